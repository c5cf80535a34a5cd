//! Copy plans: how each copy between global memory and a tile is lowered — vector width,
//! loads per thread in flight, masking, the unmasked twin for windows inside the parameter,
//! and the proof that a window is inside at every launch (then only the unmasked path).

use super::Lowerer;
use crate::Result;
use crate::ir::{DType, Expr, Region, Scope, window_axes, window_shape};
use crate::lir::WindowLoad;
use crate::lir::{CopyPlan, Dist, Op};

impl Lowerer<'_> {
    /// Whether `param` has a view of runs of four elements (a u8/i8 parameter's view holds
    /// runs of four words, for lets' word reads, not elements).
    fn element_view(&self, param: usize) -> bool {
        self.vector[param].is_some() && !matches!(self.k.params[param].dtype, DType::U8 | DType::I8)
    }

    /// The vector width of a fragment's copy to or from `param`: its run of columns, where the
    /// parameter has a view of elements.
    fn fragment_vector(&self, tile: usize, param: usize) -> Option<u32> {
        let b = self.tiles[tile].blocks()?;
        (b.run > 1 && self.element_view(param)).then_some(b.run)
    }

    /// Vector width of a fragment's save to `param`: as a load's, and for bf16 and fp8
    /// parameters runs of 4, each encoded into whole words (two, or one) with no view needed.
    fn save_vector(&self, tile: usize, param: usize) -> Option<u32> {
        let b = self.tiles[tile].blocks()?;
        let packed =
            matches!(self.k.params[param].dtype, DType::BF16 | DType::F8E4M3 | DType::F8E5M2);
        self.fragment_vector(tile, param).or((packed && b.run == 4).then_some(4))
    }

    /// Loads per thread of a global-to-shared copy, when every thread takes the same number
    /// and there are at most 16 (unrolled, they are all in flight at once).
    fn unroll(&self, tile: usize, vector: Option<u32>) -> Option<u32> {
        let t = &self.k.tiles[tile];
        if t.scope != Scope::Shared {
            return None;
        }
        let items = t.shape.iter().map(|&d| d as u64).product::<u64>() / vector.unwrap_or(1) as u64;
        let threads = self.k.threads as u64;
        (items.is_multiple_of(threads) && items / threads <= 16).then(|| (items / threads) as u32)
    }

    /// `plan` for a copy between `param`'s window at `origin` and `tile`, made `proven` (only
    /// its unmasked twin emitted, nothing masked) when it has that twin, the tile is unstaged
    /// and the window lies inside the parameter at every launch.
    fn prove(
        &self,
        mut plan: CopyPlan,
        param: usize,
        origin: &[Expr],
        axes: &[usize],
        tile: usize,
        stage: &Option<Expr>,
    ) -> CopyPlan {
        let window = window_shape(axes, &self.k.tiles[tile].shape, origin.len());
        plan.proven = plan.interior
            && stage.is_none()
            && self.typer.window_proven(param, origin, &window, plan.vector);
        plan.masked = !plan.proven;
        plan
    }

    /// A copy statement lowered: a load, a save, or a copy between tiles.
    pub(super) fn copy(&self, src: &Region, dst: &Region) -> Result<Op> {
        let (k, op) = (self.k, "copy");
        let global = matches!(src, Region::Global { .. }) || matches!(dst, Region::Global { .. });
        for r in [src, dst] {
            if let Region::Tile { tile, .. } = r
                && global
                && self.tiles[tile.0].row_statistic()
            {
                return Err(self.err(
                    op,
                    format!(
                        "{} is a row statistic (held by every thread of a row); copy it through a \
                         shared tile, or store it in a parallel loop over its rows",
                        k.tiles[tile.0].name
                    ),
                ));
            }
        }
        Ok(match (src, dst) {
            (Region::Global { param, origin, axes }, Region::Tile { tile, stage }) => {
                let t = &k.tiles[tile.0];
                let axes = window_axes(axes, t.shape.len(), origin.len());
                // Vectors run along the parameter's rows: the window's last axis must be its.
                let rows = axes.last() == Some(&(origin.len() - 1));
                // fp8 needs no view: one u32 word of the packed array holds 4.
                let fp8 = matches!(k.params[param.0].dtype, DType::F8E4M3 | DType::F8E5M2);
                let vector = if t.scope == Scope::Fragment {
                    self.fragment_vector(tile.0, param.0)
                } else {
                    ((self.element_view(param.0) || fp8)
                        && t.shape.last().is_some_and(|d| d % 4 == 0))
                    .then_some(4)
                }
                .filter(|_| rows);
                let unroll = self.unroll(tile.0, vector);
                // Fragments, or shared windows loaded as vectors: the test is per axis.
                let interior = t.scope == Scope::Fragment || (vector.is_some() && unroll.is_some());
                let plan = self.prove(
                    CopyPlan::masked(self.dist(tile.0), vector, unroll, interior),
                    param.0,
                    origin,
                    &axes,
                    tile.0,
                    stage,
                );
                Op::Load(WindowLoad {
                    param: (*param).into(),
                    origin: origin.iter().map(|o| self.u32e(op, o)).collect::<Result<_>>()?,
                    axes,
                    dst: self.slot(op, tile.0, stage)?,
                    plan,
                })
            }
            (Region::Tile { tile, stage }, Region::Global { param, origin, axes }) => {
                let dist = self.dist(tile.0);
                let axes = window_axes(axes, k.tiles[tile.0].shape.len(), origin.len());
                let rows = axes.last() == Some(&(origin.len() - 1));
                // Matrix saves go through per-subgroup scratch, masked there.
                let interior = matches!(dist, Dist::Threads | Dist::Fragment(_));
                let vector = self.save_vector(tile.0, param.0).filter(|_| rows);
                let plan = self.prove(
                    CopyPlan::masked(dist, vector, None, interior),
                    param.0,
                    origin,
                    &axes,
                    tile.0,
                    stage,
                );
                Op::Save {
                    src: self.slot(op, tile.0, stage)?,
                    param: (*param).into(),
                    origin: origin.iter().map(|o| self.u32e(op, o)).collect::<Result<_>>()?,
                    axes,
                    plan,
                }
            }
            (Region::Tile { tile: a, stage: sa }, Region::Tile { tile: b, stage: sb }) => {
                let dist = match (self.dist(a.0), self.dist(b.0)) {
                    // Matrices stored into a shared tile (a split accumulator's stage).
                    (d @ Dist::Matrix(_), Dist::Threads) => d,
                    (Dist::Matrix(_), _) | (_, Dist::Matrix(_)) => {
                        return Err(self
                            .err(op, "a matrix fragment is copied only to a shared tile".into()));
                    }
                    (d @ Dist::Fragment(_), _) | (_, d @ Dist::Fragment(_)) => d,
                    _ => Dist::Threads,
                };
                Op::CopyTiles { src: self.slot(op, a.0, sa)?, dst: self.slot(op, b.0, sb)?, dist }
            }
            (Region::Global { .. }, Region::Global { .. }) => {
                return Err(self.err(op, "global to global copies need a tile in between".into()));
            }
        })
    }
}

//! Reduction strategies: how the lowering reduces a fragment from registers (with the partials
//! tile it adds), a fragment's rows within their lanes, or a threadgroup tile.

use super::Lowerer;
use crate::Result;
use crate::ir::{DType, ReduceOp, Scope};
use crate::lir::{
    MAX_UNROLLED_SLOTS, Named, ReduceStrategy, RegisterReduction, TileInfo, TileIx, TileStorage,
};

impl Lowerer<'_> {
    /// How a fragment (SIMT layout; the rewrite pass left only last-axis, non-index
    /// reductions of such fragments) is reduced from registers, with the partials tile added.
    pub(super) fn register_reduction(
        &mut self,
        src: usize,
        op: ReduceOp,
    ) -> Result<ReduceStrategy> {
        let t = &self.k.tiles[src];
        let b = self.tiles[src].blocks().ok_or_else(|| {
            self.bug(format!("reduced fragment {} has no register layout", t.name))
        })?;
        let lanes = b.thread_cols();
        let subgroup_ok = self.subgroups && matches!(t.dtype, DType::F32 | DType::I32 | DType::U32);
        let subgroup_first = subgroup_ok && b.tm == b.rows;
        // Index pairs are combined one thread per row (the subgroup combine knows no columns).
        let combine_subgroup = subgroup_ok
            && !op.is_arg()
            && !subgroup_first
            && lanes >= self.profile.simd_width.max(2);
        let shape = if subgroup_first {
            vec![b.rows, (self.k.threads / self.profile.simd_width_min.max(1)).max(1)]
        } else {
            vec![b.rows, lanes]
        };
        let add = |lw: &mut Self, what: &str, dtype: DType| {
            let id = lw.tiles.len() + lw.extra.len();
            let name = lw.extra_name(format!("{}_{what}", lw.k.tiles[src].name));
            lw.extra.push(TileInfo {
                named: Named { name, ident: format!("s{id}_{what}") },
                scope: Scope::Shared,
                dtype,
                shape: shape.clone(),
                stages: 1,
                storage: TileStorage::Workgroup,
                row_pad: 0,
            });
            TileIx(id)
        };
        let partials = add(self, "partials", t.dtype);
        let arg_partials = op.is_arg().then(|| add(self, "arg_partials", DType::U32));
        let unrolled = b.per_thread() <= MAX_UNROLLED_SLOTS;
        Ok(ReduceStrategy::Registers(RegisterReduction {
            partials,
            lanes,
            subgroup_first,
            combine_subgroup,
            unrolled,
            arg_partials,
        }))
    }

    /// A fragment's rows reduced into its row statistic `dst` by exchanges among each row's
    /// lanes (`passes::ir::lanes` kept only reductions whose rows fit one subgroup).
    pub(super) fn lane_reduction(&self, src: usize, dst: usize) -> Result<ReduceStrategy> {
        match (self.tiles[src].blocks(), self.tiles[dst].row_statistic()) {
            (Some(b), true) => Ok(ReduceStrategy::Lanes {
                lanes: b.thread_cols(),
                unrolled: b.per_thread() <= MAX_UNROLLED_SLOTS,
            }),
            _ => Err(self.bug(format!(
                "fragment {} is reduced into fragment {} that is not its row statistic",
                self.k.tiles[src].name, self.k.tiles[dst].name
            ))),
        }
    }

    /// How a threadgroup tile is reduced along `axis` into `dst`: serially per output, one
    /// subgroup per output, or (few outputs, long lines) split over every subgroup with the
    /// partials tile added.
    pub(super) fn tile_reduction(
        &mut self,
        op: ReduceOp,
        src: usize,
        dst: usize,
        axis: usize,
    ) -> ReduceStrategy {
        let k = self.k;
        let t = &k.tiles[src];
        let subgroup = self.subgroups
            && t.scope == Scope::Shared
            && !op.is_arg()
            && matches!(t.dtype, DType::F32 | DType::I32 | DType::U32)
            && t.shape[axis] >= self.profile.simd_width.max(2);
        let outs: u64 = k.tiles[dst].shape.iter().map(|&d| d as u64).product();
        let width = self.profile.simd_width.max(1) as u64;
        // Fewer outputs than subgroups, and lines long enough to split: all subgroups
        // share each line instead of most idling.
        let split =
            subgroup && outs * width < k.threads as u64 && t.shape[axis] as u64 >= 4 * width;
        if split {
            let slots = (k.threads / self.profile.simd_width_min.max(1)).max(outs as u32);
            let partials = self.tiles.len() + self.extra.len();
            let name = self.extra_name(format!("{}_partials", t.name));
            self.extra.push(TileInfo {
                named: Named { name, ident: format!("s{partials}_partials") },
                scope: Scope::Shared,
                dtype: t.dtype,
                shape: vec![slots],
                stages: 1,
                storage: TileStorage::Workgroup,
                row_pad: 0,
            });
            ReduceStrategy::SplitSubgroups { partials: TileIx(partials) }
        } else if subgroup {
            ReduceStrategy::Subgroup
        } else {
            ReduceStrategy::Serial
        }
    }
}

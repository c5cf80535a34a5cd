//! Whole kernels on workgroup-scope matrices (`VK_NV_cooperative_matrix2`), for the native
//! SPIR-V back end only: where every tile a kernel uses can be one matrix of the whole
//! threadgroup, nothing goes through threadgroup memory. Each op becomes its matrix form:
//! - operand tiles loaded from a global window: tensor-addressed loads (clamped at the edges);
//! - products: workgroup-scope multiply-adds, a matrix twin folded back into its fragment;
//! - a fragment stored as the cast of an accumulator's element, then copied to a shared tile
//!   a product reads: one conversion of the accumulator into that operand;
//! - row reductions into row statistics: matrix row reductions, the statistic held as a
//!   `[rows, columns]` matrix whose columns all hold its row's value
//!   ([`TileStorage::WorkgroupRows`]); `[rows]` shared tiles read and written beside them too;
//! - element loops: one per-element operation per stored matrix, reading the other matrices'
//!   elements at the same place; a statistic read beside a matrix of other columns is spread
//!   to those columns first;
//! - saves: tensor-addressed stores.
//!
//! A kernel with any other op or tile keeps its lowering. The flash-attention prefill
//! (online softmax) is the kernel this was made for; nothing here knows it.

use std::cell::Cell;

use crate::ir::{DType, ReduceOp, Scope, Var};
use crate::lir::{
    Dist, ETy, ElemRef, FragmentLayout, GemmLowering, Lowered, MatrixRole, Op, ParamAccess, Reduce,
    ReduceStrategy, TExpr, TKind, TileInfo, TileIx, TileSlot, TileStorage,
};
use crate::profile::Profile;
use tiles::{collect_slots, mark, own_index, row_index, spread_tile, tensor, walk};

mod reuse;
mod tiles;

/// Rewrites `l` onto workgroup-scope matrices where every op and tile allows; returns whether
/// it did (`l` is unchanged otherwise).
pub fn workgroup_kernel(l: &mut Lowered, profile: &Profile) -> bool {
    let Some(w) = profile.workgroup_matrix else { return false };
    if !l.threads.is_multiple_of(profile.simd_width) {
        return false;
    }
    let mut k = l.clone();
    let Some(plan) = Plan::make(&k, w.bf16, w.granule) else { return false };
    let Some(mut body) = plan.ops(&mut k, &l.body) else { return false };
    reuse::drop_repeated_copies(&mut body);
    // The matrix of ones row sums multiply by, filled once.
    if let Some(ones) = plan.ones.get() {
        let one = TExpr { ty: ETy::Num(plan.input), kind: TKind::Lit(1.0) };
        body.insert(0, Op::Fill { tile: ones, value: one, dist: Dist::Workgroup(ones) });
    }
    k.body = body;
    if !plan.finish(&mut k) {
        return false;
    }
    *l = k;
    true
}

/// What each tile becomes.
struct Plan {
    /// Matrix twins and their stages: (twin, stage, fragment).
    twins: Vec<(TileIx, TileIx, TileIx)>,
    /// Shared tiles a product reads that are copies of fragments: (shared, fragment).
    operand_copies: Vec<(TileIx, TileIx)>,
    /// Element type of the products' operands.
    input: DType,
    /// Columns row statistics are held in (the narrowest matrices the profile takes: fewer
    /// registers, and per-element operations over fewer elements).
    stat_columns: u32,
    /// The `[columns, stat_columns]` B matrix of ones that row sums multiply by, once made.
    ones: Cell<Option<TileIx>>,
}

impl Plan {
    fn make(l: &Lowered, bf16: bool, stat_columns: u32) -> Option<Plan> {
        let mut plan = Plan {
            twins: Vec::new(),
            operand_copies: Vec::new(),
            input: DType::F16,
            stat_columns,
            ones: Cell::new(None),
        };
        let mut copies = Vec::new();
        let mut loads = Vec::new();
        let mut gemms = Vec::new();
        walk(&l.body, &mut |op| match op {
            Op::CopyTiles { src, dst, dist } => copies.push((src.tile, dst.tile, *dist)),
            Op::Load(w) => loads.push((w.dst.tile, w.param)),
            Op::Gemm { a, b, c, trans_a, .. } => gemms.push((a.tile, b.tile, *c, *trans_a)),
            _ => {}
        });
        for &(twin, stage, dist) in &copies {
            if dist == Dist::Matrix(twin)
                && let Some(&(_, frag, _)) = copies.iter().find(|c| c.0 == stage)
            {
                plan.twins.push((twin, stage, frag));
            }
        }
        // A kernel that is one product (and its epilogue) is the gemm pass's: its tile rule
        // was measured. This one takes kernels where products feed each other or reductions.
        let mut reduces = 0;
        walk(&l.body, &mut |op| reduces += matches!(op, Op::Reduce(_)) as usize);
        if gemms.len() < 2 && reduces == 0 {
            return None;
        }
        let mut inputs = Vec::new();
        for &(a, b, _, trans_a) in &gemms {
            if trans_a {
                return None;
            }
            for t in [a, b] {
                if let Some(&(_, p)) = loads.iter().find(|x| x.0 == t) {
                    inputs.push(l.params[p].dtype);
                } else if let Some(&(frag, _, _)) = copies.iter().find(|c| c.1 == t) {
                    plan.operand_copies.push((t, frag));
                } else {
                    return None;
                }
            }
        }
        plan.input = *inputs.first()?;
        let ok = |d: DType| d == DType::F16 || (bf16 && d == DType::BF16);
        if !inputs.iter().all(|&d| d == plan.input && ok(d)) {
            return None;
        }
        Some(plan)
    }

    /// The `[columns, stat_columns]` B matrix of ones (made once).
    fn ones_tile(&self, k: &mut Lowered, columns: u32) -> TileIx {
        if let Some(t) = self.ones.get() {
            return t;
        }
        k.tiles.push(TileInfo {
            named: crate::lir::Named { name: "ones".into(), ident: "ones".into() },
            scope: Scope::Fragment,
            dtype: self.input,
            shape: vec![columns, self.stat_columns],
            stages: 1,
            storage: TileStorage::Unused,
            row_pad: 0,
        });
        let t = TileIx(k.tiles.len() - 1);
        self.ones.set(Some(t));
        t
    }

    /// The fragment a twin stands for, or the tile itself.
    fn alias(&self, t: TileIx) -> TileIx {
        self.twins.iter().find(|x| x.0 == t).map_or(t, |x| x.2)
    }

    /// The ops of `ops` in their matrix form, new tiles added to `k`; `None` where one has
    /// none.
    fn ops(&self, k: &mut Lowered, ops: &[Op]) -> Option<Vec<Op>> {
        let mut out = Vec::new();
        for op in ops {
            match op {
                Op::Barrier => {}
                Op::Load(w) => {
                    let mut w = w.clone();
                    // Tensor-addressed loads run along the parameter's last two axes.
                    if w.dst.stage.is_some() || !last_two(&w.axes, k.params[w.param.0].shape.len())
                    {
                        return None;
                    }
                    w.plan = tensor(w.dst.tile, w.plan.proven);
                    out.push(Op::Load(w));
                }
                Op::Fill { tile, value, .. } => {
                    let t = self.alias(*tile);
                    out.push(Op::Fill { tile: t, value: value.clone(), dist: Dist::Workgroup(t) });
                }
                Op::Gemm { a, b, c, trans_a, trans_b, .. } => {
                    let operand = |t: TileIx| {
                        let t = self.operand_copies.iter().find(|x| x.0 == t).map_or(t, |x| x.1);
                        TileSlot { tile: t, stage: None }
                    };
                    out.push(Op::Gemm {
                        a: operand(a.tile),
                        b: operand(b.tile),
                        c: self.alias(*c),
                        trans_a: *trans_a,
                        trans_b: *trans_b,
                        lowering: GemmLowering::Workgroup,
                    });
                }
                Op::CopyTiles { src, dst, .. } => {
                    let twin_copy = self.twins.iter().any(|x| x.0 == src.tile || x.1 == src.tile);
                    let operand_copy = self.operand_copies.iter().any(|x| x.0 == dst.tile);
                    if !twin_copy && !operand_copy {
                        out.push(Op::CopyTiles {
                            src: src.clone(),
                            dst: dst.clone(),
                            dist: Dist::Workgroup(dst.tile),
                        });
                    }
                }
                Op::Reduce(r) => {
                    let ok =
                        r.axis == 1 && r.clear && matches!(r.op, ReduceOp::Max | ReduceOp::Sum);
                    let src = self.alias(r.src.tile);
                    let rows = k.tiles[src].shape[0];
                    if !ok || r.src.stage.is_some() || k.tiles[src].shape.len() != 2 {
                        return None;
                    }
                    if !self.is_matrix(k, r.dst, rows, self.stat_columns) {
                        return None;
                    }
                    // A row sum of a matrix just converted to an A operand: that operand
                    // times a matrix of ones, on the matrix units.
                    if let (ReduceOp::Sum, Some(Op::CopyTiles { src: from, dst: a, .. })) =
                        (r.op, out.last())
                        && from.tile == src
                        && self.operand_copies.iter().any(|x| x.1 == a.tile)
                    {
                        let a = a.clone();
                        let ones = self.ones_tile(k, k.tiles[src].shape[1]);
                        let zero = TExpr { ty: ETy::Num(DType::F32), kind: TKind::Lit(0.0) };
                        out.push(Op::Fill {
                            tile: r.dst,
                            value: zero,
                            dist: Dist::Workgroup(r.dst),
                        });
                        out.push(Op::Gemm {
                            a,
                            b: TileSlot { tile: ones, stage: None },
                            c: r.dst,
                            trans_a: false,
                            trans_b: false,
                            lowering: GemmLowering::Workgroup,
                        });
                        continue;
                    }
                    out.push(Op::Reduce(Reduce {
                        src: TileSlot { tile: self.alias(r.src.tile), stage: None },
                        dist: Dist::Workgroup(r.dst),
                        strategy: ReduceStrategy::WorkgroupRows,
                        ..r.clone()
                    }));
                }
                Op::Parallel { extents, vars, body, vector_reads, .. } => {
                    if !vector_reads.is_empty() {
                        return None;
                    }
                    out.extend(self.element_loop(k, extents, vars, body)?);
                }
                Op::EpilogueSave { vars, body, src, param, origin, axes } => {
                    let extents = k.tiles[src.tile].shape.clone();
                    out.extend(self.element_loop(k, &extents, vars, body)?);
                    out.push(Op::Save {
                        src: src.clone(),
                        param: *param,
                        origin: origin.clone(),
                        axes: axes.clone(),
                        plan: tensor(src.tile, false),
                    });
                }
                Op::Save { src, param, origin, axes, plan } => out.push(Op::Save {
                    src: TileSlot { tile: self.alias(src.tile), stage: None },
                    param: *param,
                    origin: origin.clone(),
                    axes: axes.clone(),
                    plan: tensor(src.tile, plan.proven),
                }),
                Op::For { var, extent, uniform_slot: None, body } => out.push(Op::For {
                    var: *var,
                    extent: extent.clone(),
                    uniform_slot: None,
                    body: self.ops(k, body)?,
                }),
                _ => return None,
            }
        }
        Some(out)
    }

    /// An element loop over `extents` (`[rows, columns]`, or `[rows]` over row statistics) as
    /// one per-element operation per stored matrix, each keeping the lets and its own store;
    /// the casts of a stored value into an operand fragment become one conversion after them,
    /// and statistics read beside a matrix of other columns are spread to them first.
    fn element_loop(
        &self,
        k: &mut Lowered,
        extents: &[u32],
        vars: &[Var],
        body: &[Op],
    ) -> Option<Vec<Op>> {
        let (mut before, mut lets, mut stores, mut after) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // Columns of the matrices the loop runs over (a loop over rows: those of the
        // statistics it touches, decided by the first one).
        let mut columns = extents.get(1).copied();
        for op in body {
            match op {
                Op::Let { id, name, value } => {
                    let value =
                        self.element_expr(k, value, (vars, extents[0]), &mut columns, &mut before)?;
                    lets.push(Op::Let { id: *id, name: name.clone(), value });
                }
                Op::Store { target, value } => {
                    let t = match target {
                        ElemRef::FragmentSlot(t) => self.alias(*t),
                        ElemRef::Tile(el) if row_index(&el.index, vars) => el.tile,
                        ElemRef::Tile(el) if own_index(&el.index, vars) => el.tile,
                        _ => return None,
                    };
                    // A cast into an operand fragment: converted once, after the loop.
                    if let TKind::Cast(inner) = &value.kind
                        && self.operand_copies.iter().any(|x| x.1 == t)
                    {
                        let from = stores
                            .iter()
                            .find_map(|(s, v): &(TileIx, TExpr)| (*v == **inner).then_some(*s))?;
                        after.push(Op::CopyTiles {
                            src: TileSlot { tile: from, stage: None },
                            dst: TileSlot { tile: t, stage: None },
                            dist: Dist::Workgroup(t),
                        });
                        continue;
                    }
                    let value =
                        self.element_expr(k, value, (vars, extents[0]), &mut columns, &mut before)?;
                    stores.push((t, value));
                }
                _ => return None,
            }
        }
        let columns = columns?;
        let mut out = before;
        for (j, (t, value)) in stores.iter().enumerate() {
            // The same value stored twice: the second matrix is a copy of the first (an
            // operand, converted; else a matrix of the loop's type).
            if let Some((first, _)) = stores[..j].iter().find(|(_, v)| v == value) {
                let operand = self.operand_copies.iter().any(|x| x.1 == *t);
                if !operand && !self.is_matrix(k, *t, extents[0], columns) {
                    return None;
                }
                out.push(Op::CopyTiles {
                    src: TileSlot { tile: *first, stage: None },
                    dst: TileSlot { tile: *t, stage: None },
                    dist: Dist::Workgroup(*t),
                });
                continue;
            }
            // Each operation sees the matrices as they were before the loop: an earlier
            // store's matrix must not be read by a later one.
            let earlier: Vec<TileIx> = stores[..j].iter().map(|s| s.0).collect();
            let mut reads = Vec::new();
            collect_slots(value, &mut reads);
            for l in &lets {
                if let Op::Let { value, .. } = l {
                    collect_slots(value, &mut reads);
                }
            }
            if reads.iter().any(|r| earlier.contains(r)) {
                return None;
            }
            // A matrix updated from its own elements alone may be of any type (scaling an
            // operand); otherwise all are f32 accumulators of the loop's shape.
            let alone = reads.iter().all(|r| r == t) && k.tiles[t.0].shape == extents;
            if !alone && !self.is_matrix(k, *t, extents[0], columns) {
                return None;
            }
            let mut ops = lets.clone();
            ops.push(Op::Store { target: ElemRef::FragmentSlot(*t), value: value.clone() });
            out.push(Op::Parallel {
                extents: extents.to_vec(),
                vars: vars.to_vec(),
                dist: Dist::Workgroup(*t),
                unrolled: false,
                vector_reads: Vec::new(),
                body: ops,
            });
        }
        out.extend(after);
        Some(out)
    }

    /// Whether tile `t` can be held as an f32 accumulator of `rows x columns` (a product's
    /// accumulator of that shape, or a row statistic held in that many columns), marking row
    /// statistics and `[rows]` shared tiles as such.
    fn is_matrix(&self, k: &mut Lowered, t: TileIx, rows: u32, columns: u32) -> bool {
        let tile = &mut k.tiles[t];
        if tile.dtype != DType::F32 || tile.shape[0] != rows {
            return false;
        }
        match (&tile.storage, tile.shape.len()) {
            (TileStorage::WorkgroupRows { columns: c }, 1) => *c == columns,
            (_, 1) if tile.row_statistic() || tile.storage == TileStorage::Workgroup => {
                tile.storage = TileStorage::WorkgroupRows { columns };
                true
            }
            (_, 2) => tile.shape[1] == columns,
            _ => false,
        }
    }

    /// `e` inside a per-element operation over `rows x columns`: elements of `[rows]` tiles at
    /// the row index become the statistic's element, twins their fragments; a statistic held
    /// in other columns is read through a copy spread to these (added to `before`).
    fn element_expr(
        &self,
        k: &mut Lowered,
        e: &TExpr,
        (vars, rows): (&[Var], u32),
        columns: &mut Option<u32>,
        before: &mut Vec<Op>,
    ) -> Option<TExpr> {
        let mut e = e.clone();
        if let TKind::Tile(el) = &e.kind {
            let at = row_index(&el.index, vars) || own_index(&el.index, vars);
            if !at || el.stage.is_some() {
                return None;
            }
            e.kind = TKind::FragmentSlot(el.tile);
        }
        if let TKind::FragmentSlot(t) = e.kind {
            let t = self.alias(t);
            let tile = &k.tiles[t];
            if tile.shape.len() == 2
                && (tile.shape[0] != rows || tile.shape[1] != *columns.get_or_insert(tile.shape[1]))
            {
                return None;
            }
            let held = match &tile.storage {
                TileStorage::WorkgroupRows { columns } => Some(*columns),
                _ => self.statistic_columns(k, t),
            };
            e.kind = TKind::FragmentSlot(t);
            if tile.shape.len() == 1 {
                let held = held?;
                let want = *columns.get_or_insert(held);
                if !self.is_matrix(k, t, k.tiles[t].shape[0], held) {
                    return None;
                }
                if want != held {
                    let spread = spread_tile(k, t, want);
                    let copy = Op::CopyTiles {
                        src: TileSlot { tile: t, stage: None },
                        dst: TileSlot { tile: spread, stage: None },
                        dist: Dist::Workgroup(spread),
                    };
                    if !before.contains(&copy) {
                        before.push(copy);
                    }
                    e.kind = TKind::FragmentSlot(spread);
                }
            }
            return Some(e);
        }
        let mut bad = false;
        for c in e.children_mut() {
            match self.element_expr(k, c, (vars, rows), columns, before) {
                Some(v) => *c = v,
                None => bad = true,
            }
        }
        (!bad).then_some(e)
    }

    /// The columns a row statistic (a fragment following another's rows) is held in, or for
    /// a `[rows]` shared tile, none yet (decided by the loop).
    fn statistic_columns(&self, k: &Lowered, t: TileIx) -> Option<u32> {
        match &k.tiles[t].storage {
            TileStorage::Fragment { layout: FragmentLayout::Rows { .. }, .. } => {
                Some(self.stat_columns)
            }
            _ => None,
        }
    }

    /// Gives every tile still used its workgroup-matrix storage and the rest none; false where
    /// a used tile cannot be a matrix.
    fn finish(&self, k: &mut Lowered) -> bool {
        let mut used = vec![false; k.tiles.len()];
        let mut roles: Vec<Option<(MatrixRole, bool)>> = vec![None; k.tiles.len()];
        let mut statistics = Vec::new();
        walk(&k.body, &mut |op| {
            mark(op, &mut used);
            match op {
                Op::Gemm { a, b, c, trans_b, .. } => {
                    roles[a.tile.0] = Some((MatrixRole::A, false));
                    roles[b.tile.0] = Some((MatrixRole::B, *trans_b));
                    roles[c.0] = Some((MatrixRole::Accumulator, false));
                }
                Op::Reduce(r) => statistics.push(r.dst),
                _ => {}
            }
        });
        // Reduction results are held as row statistics.
        for dst in statistics {
            let c = self.stat_columns;
            if !matches!(k.tiles[dst].storage, TileStorage::WorkgroupRows { columns } if columns == c)
            {
                return false;
            }
        }
        let mut params = Vec::new();
        walk(&k.body, &mut |op| {
            if let Op::Load(w) = op {
                params.push(w.param);
            }
        });
        for (i, tile) in k.tiles.iter_mut().enumerate() {
            if !used[i] {
                tile.storage = TileStorage::Unused;
                continue;
            }
            match (&tile.storage, roles[i]) {
                // A row statistic is an accumulator already (a row sum's product).
                (TileStorage::WorkgroupRows { .. }, None | Some((MatrixRole::Accumulator, _))) => {}
                (_, Some((role, transposed))) => {
                    let acc = role == MatrixRole::Accumulator;
                    if tile.shape.len() != 2 || (acc && tile.dtype != DType::F32) {
                        return false;
                    }
                    tile.storage =
                        TileStorage::WorkgroupMatrix { role, input: self.input, transposed };
                    tile.row_pad = 0;
                }
                _ => return false,
            }
            if tile.shape.iter().any(|d| !d.is_multiple_of(16)) && roles[i].is_some() {
                return false;
            }
            // Accumulators of fewer rows than half the threads crashed the H200's driver when
            // the pipeline was made (64 rows over 256 threads, 128 over 512): such kernels
            // keep their lowering.
            let accumulator = matches!(roles[i], Some((MatrixRole::Accumulator, _)))
                || matches!(tile.storage, TileStorage::WorkgroupRows { .. });
            if accumulator && tile.shape[0] * 2 < k.threads {
                return false;
            }
        }
        // bf16 operands load as bf16: their buffers are declared in their own type.
        if self.input == DType::BF16 {
            for p in params {
                k.params[p.0].access = ParamAccess::Tensor;
                k.params[p.0].vector_view = None;
            }
        }
        // Saves go to f32 or f16 parameters written as they are, or (where the profile's
        // matrices take bf16) to bf16 ones, then written in their own type.
        // A row statistic is saved along the parameter's last axis (its first column only).
        let mut saves = Vec::new();
        walk(&k.body, &mut |op| {
            if let Op::Save { param, src, axes, .. } = op {
                saves.push((*param, src.tile, axes.clone()));
            }
        });
        for (param, src, axes) in saves {
            let p = &mut k.params[param.0];
            let plain =
                p.access == ParamAccess::Plain && matches!(p.dtype, DType::F32 | DType::F16);
            // (Tensor already where an earlier save of the same parameter made it so.)
            let packed = self.input == DType::BF16
                && p.dtype == DType::BF16
                && matches!(p.access, ParamAccess::Packed(DType::BF16) | ParamAccess::Tensor);
            let rank = p.shape.len();
            let shaped = match k.tiles[src].storage {
                TileStorage::WorkgroupRows { .. } => axes == [rank - 1],
                _ => k.tiles[src].shape.len() == 2 && last_two(&axes, rank),
            };
            if !shaped || !(plain || packed) {
                return false;
            }
            if packed {
                p.access = ParamAccess::Tensor;
                p.vector_view = None;
            }
        }
        k.features.workgroup_matrix = true;
        k.features.matrix = true;
        true
    }
}

/// Whether a window's `axes` are the last two of a rank-`rank` parameter, in order: the axes a
/// tensor layout addresses a matrix along.
fn last_two(axes: &[usize], rank: usize) -> bool {
    rank >= 2 && axes == [rank - 2, rank - 1]
}

//! Workgroup-scope matrices (`VK_NV_cooperative_matrix2`), for the native SPIR-V back end
//! only. A gemm's K loop that stages an A and a B window (B possibly transposed: a linear's
//! `W`) in threadgroup memory for one product, followed by the accumulator's save (to f32, or
//! to f16 converting), after an elementwise epilogue or not, becomes:
//! - one workgroup-scope product per K step, both operands loaded straight from global memory
//!   by tensor-addressed loads (clamped at the edges, so ragged shapes need no masking);
//! - the epilogue as one per-element operation on the whole accumulator;
//! - a tensor-addressed store.
//!
//! The staging, its barriers and the per-subgroup tiling go. Applied where the profile offers
//! such matrices ([`Profile::workgroup_matrix`]) and the kernel's tile is the one it names:
//! f16 products on subgroup matrices, and bf16 ones (SIMT in WGSL, which has no bf16
//! matrices) whose operands then load as bf16, with no scaling. Windows may span a
//! parameter's last two axes only (a batched gemm's leading axis is its item).

use crate::ir::DType;
use crate::lir::WindowLoad;
use crate::lir::{
    CopyPlan, Dist, ElemRef, GemmLowering, Lowered, MatrixRole, Op, ParamAccess, ParamIx, TExpr,
    TKind, TileIx, TileSlot, TileStorage,
};
use crate::profile::Profile;

/// The pieces of a matched gemm: the accumulator, operand tiles and parameters, their
/// element type, and where its ops sit.
struct Gemm {
    acc: TileIx,
    a: TileIx,
    b: TileIx,
    params: [ParamIx; 2],
    input: DType,
    /// B is loaded transposed (`W[N, K]`).
    trans_b: bool,
    fill: usize,
    k_loop: usize,
    /// The elementwise loop over the accumulator before its save, if any (its index), or the
    /// save with the epilogue fused in.
    epilogue: Option<usize>,
    save: usize,
}

/// Rewrites `l` onto workgroup-scope matrices where it matches; returns whether it did.
pub fn workgroup_matrices(l: &mut Lowered, profile: &Profile) -> bool {
    let Some(g) = find(l, profile) else { return false };
    // The subgroup matrices' save scratch is no longer read: dropped when it is the last tile
    // (the lowering appends it), so it takes no threadgroup memory.
    let scratch = l.tiles[g.acc].matrix().and_then(|m| m.scratch);
    for (t, role) in [(g.acc, MatrixRole::Accumulator), (g.a, MatrixRole::A), (g.b, MatrixRole::B)]
    {
        let transposed = role == MatrixRole::B && g.trans_b;
        l.tiles[t].storage = TileStorage::WorkgroupMatrix { role, input: g.input, transposed };
        l.tiles[t].row_pad = 0;
    }
    // bf16 operands load as bf16: their buffers are declared in their own type, not packed.
    if g.input == DType::BF16 {
        for p in g.params {
            l.params[p].access = ParamAccess::Tensor;
            l.params[p].vector_view = None;
        }
    }
    // Windows proven inside at every launch (constant shapes, multiples of the tile) load
    // unclamped; the others clamp. There is no unclamped twin behind a branch on the window:
    // the branch keeps the driver from pipelining the loads, which cost more than the clamps
    // (4096^3 f16 on an H100: 1.08 ms, against 0.74 clamped).
    let tensor = |tile, proven| CopyPlan {
        proven,
        ..CopyPlan::masked(Dist::Workgroup(tile), None, None, false)
    };
    if let Op::Fill { dist, .. } = &mut l.body[g.fill] {
        *dist = Dist::Workgroup(g.acc);
    }
    // (origin, parameter, proven) of the A and B loads.
    let mut windows = Vec::new();
    if let Op::For { body, .. } = &mut l.body[g.k_loop] {
        body.retain(|op| !matches!(op, Op::Barrier));
        for op in body.iter_mut() {
            match op {
                Op::Load(WindowLoad { dst, plan, origin, param, .. }) => {
                    windows.push((origin.clone(), *param, plan.proven));
                    *plan = tensor(dst.tile, plan.proven);
                }
                Op::Gemm { lowering, .. } => *lowering = GemmLowering::Workgroup,
                _ => {}
            }
        }
    }
    // The epilogue becomes a per-element operation on the accumulator, followed by the save
    // (a fused one is taken apart).
    let mut save = g.save;
    if let Some(e) = g.epilogue {
        if let Op::Parallel { dist, unrolled, vector_reads, .. } = &mut l.body[e] {
            *dist = Dist::Workgroup(g.acc);
            *unrolled = false;
            vector_reads.clear();
        }
    } else if matches!(l.body[save], Op::EpilogueSave { .. })
        && let Op::EpilogueSave { vars, body, src, param, origin, axes } = l.body.remove(save)
    {
        let extents = l.tiles[g.acc].shape.clone();
        let parallel = Op::Parallel {
            extents,
            vars,
            dist: Dist::Workgroup(g.acc),
            unrolled: false,
            vector_reads: Vec::new(),
            body,
        };
        let plan = tensor(g.acc, false);
        l.body.insert(save, Op::Save { src, param, origin, axes, plan });
        l.body.insert(save, parallel);
        save += 1;
    }
    let shape = |p: ParamIx| l.params[p].shape.clone();
    // C's window is proven inside where its rows are A's proven window's and its columns B's
    // (same origins, same extents of the same dimensions; B's columns are W's rows), and any
    // leading (batch) coordinates are A's.
    let c_proven = match (&l.body[save], &windows[..]) {
        (Op::Save { origin, param, .. }, [(oa, pa, true), (ob, pb, true)]) => {
            let r = origin.len();
            let b_cols = r - 1 - usize::from(g.trans_b);
            let lead = oa.len() == r
                && ob.len() == r
                && (0..r - 2).all(|a| origin[a] == oa[a] && shape(*param)[a] == shape(*pa)[a]);
            lead && origin[r - 2] == oa[r - 2]
                && origin[r - 1] == ob[b_cols]
                && shape(*param)[r - 2] == shape(*pa)[r - 2]
                && shape(*param)[r - 1] == shape(*pb)[b_cols]
        }
        _ => false,
    };
    if let Op::Save { plan, .. } = &mut l.body[save] {
        *plan = tensor(g.acc, plan.proven || c_proven);
    }
    if scratch.is_some_and(|s| s.0 + 1 == l.tiles.len()) {
        l.tiles.pop();
    }
    l.features.workgroup_matrix = true;
    // Workgroup matrices are cooperative matrices too (a bf16 gemm was SIMT until here).
    l.features.matrix = true;
    true
}

fn find(l: &Lowered, profile: &Profile) -> Option<Gemm> {
    let w = profile.workgroup_matrix?;
    let [bm, bn, bk] = w.tile;
    if l.threads != w.threads {
        return None;
    }
    // A parameter of type `d` read as it is (bf16 arrives in packed words).
    let plain = |p: ParamIx, d: DType| {
        let prm = &l.params[p];
        let access =
            if d == DType::BF16 { ParamAccess::Packed(DType::BF16) } else { ParamAccess::Plain };
        prm.dtype == d && prm.access == access && prm.shape.len() >= 2
    };
    // A window spanning a parameter's last two axes (any leading ones are batch coordinates).
    let last_two = |p: ParamIx, axes: &[usize]| {
        let r = l.params[p].shape.len();
        axes == [r - 2, r - 1]
    };
    let whole = |s: &TileSlot| s.stage.is_none();
    let mut found = None;
    for (i, op) in l.body.iter().enumerate() {
        let Op::For { body, uniform_slot: None, .. } = op else { continue };
        let ops: Vec<&Op> = body.iter().filter(|o| !matches!(o, Op::Barrier)).collect();
        let [
            Op::Load(WindowLoad { param: pa, axes: xa, dst: sa, .. }),
            Op::Load(WindowLoad { param: pb, axes: xb, dst: sb, .. }),
            Op::Gemm { a, b, c, trans_a: false, trans_b, lowering },
        ] = ops[..]
        else {
            continue;
        };
        // f16 on subgroup matrices; bf16 (SIMT, WGSL having no bf16 matrices) where the
        // profile's workgroup matrices take it.
        let input = match lowering {
            GemmLowering::Matrix(m) if m.input == DType::F16 && m.k_split == 1 => DType::F16,
            GemmLowering::Simt(_) if w.bf16 && l.params[*pa].dtype == DType::BF16 => DType::BF16,
            _ => continue,
        };
        let ok = whole(sa)
            && whole(sb)
            && a == sa
            && b == sb
            && plain(*pa, input)
            && plain(*pb, input)
            && last_two(*pa, xa)
            && last_two(*pb, xb)
            && l.params[*pa].shape.len() == l.params[*pb].shape.len()
            && l.tiles[sa.tile].shape == [bm, bk]
            && l.tiles[sb.tile].shape == if *trans_b { [bn, bk] } else { [bk, bn] }
            && l.tiles[*c].shape == [bm, bn]
            && l.tiles[*c].dtype == DType::F32;
        if ok && found.is_none() {
            found = Some((i, sa.tile, sb.tile, *c, [*pa, *pb], input, *trans_b));
        } else if ok {
            return None;
        }
    }
    let (k_loop, a, b, acc, params, input, trans_b) = found?;
    let fill = l.body[..k_loop]
        .iter()
        .position(|op| matches!(op, Op::Fill { tile, .. } if *tile == acc))?;
    let save = k_loop
        + 1
        + l.body[k_loop + 1..].iter().position(|op| match op {
            Op::Save { src, plan, axes, param, .. } => {
                src.tile == acc
                    && whole(src)
                    && matches!(plan.dist, Dist::Matrix(_) | Dist::Fragment(_))
                    && last_two(*param, axes)
                    && (plain(*param, DType::F32) || plain(*param, DType::F16))
            }
            Op::EpilogueSave { src, axes, param, vars, body, .. } => {
                src.tile == acc
                    && whole(src)
                    && last_two(*param, axes)
                    && (plain(*param, DType::F32) || plain(*param, DType::F16))
                    && per_element(vars.len(), body, acc)
            }
            _ => false,
        })?;
    // An elementwise loop over the accumulator right before its save (SIMT, unfused).
    let epilogue = l.body[..save].iter().rposition(|op| !matches!(op, Op::Barrier)).filter(|&e| {
        matches!(&l.body[e], Op::Parallel { dist: Dist::Fragment(f) | Dist::Matrix(f), vars, body, .. }
            if *f == acc && per_element(vars.len(), body, acc))
    });
    // The kernel is the gemm and nothing else (barriers aside): no other op may see the
    // accumulator, which lives in no memory any more, or the operand tiles.
    let alone = l.body.iter().enumerate().all(|(i, op)| {
        [fill, k_loop, save].contains(&i) || Some(i) == epilogue || matches!(op, Op::Barrier)
    });
    if !alone {
        return None;
    }
    Some(Gemm { acc, a, b, params, input, trans_b, fill, k_loop, epilogue, save })
}

/// Whether a loop over (row, column) of the accumulator `acc` with `body` can run as a
/// per-element operation: lets and stores to the element only, reading the element,
/// parameters, arguments and the indices (no other tile, no vector reads of runs).
fn per_element(vars: usize, body: &[Op], acc: TileIx) -> bool {
    fn reads_ok(e: &TExpr, acc: TileIx) -> bool {
        let here = match &e.kind {
            TKind::Tile(_) | TKind::ParamLane(..) | TKind::WordLane(..) => false,
            TKind::FragmentSlot(t) => *t == acc,
            _ => true,
        };
        here && e.children().into_iter().all(|c| reads_ok(c, acc))
    }
    vars == 2
        && body.iter().all(|op| match op {
            Op::Let { value, .. } => reads_ok(value, acc),
            Op::Store { target: ElemRef::FragmentSlot(t), value } => {
                *t == acc && reads_ok(value, acc)
            }
            _ => false,
        })
}

//! Workgroup-scope matrices (`VK_NV_cooperative_matrix2`), for the native SPIR-V back end
//! only: a gemm whose K loop stages an A and a B window in threadgroup memory for one
//! subgroup-matrix product, and whose accumulator is then saved without an epilogue, becomes
//! one workgroup-scope product per K step with both operands loaded straight from global
//! memory by tensor-addressed loads (clamped at the edges, so ragged shapes need no masking),
//! and a tensor-addressed store. The staging, its barriers and the per-subgroup tiling go.
//! Applied where the profile offers such matrices ([`Profile::workgroup_matrix`]) and the
//! kernel's tile is the one it names: f16 gemms on subgroup matrices, and bf16 gemms (SIMT in
//! WGSL, which has no bf16 matrices) whose operands then load as bf16, with no scaling.

use crate::ir::DType;
use crate::lir::{
    CopyPlan, Dist, GemmLowering, Lowered, MatrixRole, Op, ParamAccess, TileSlot, TileStorage,
};
use crate::profile::Profile;

/// The pieces of a matched gemm: the accumulator, operand tiles and parameters, their
/// element type, and where its ops sit.
struct Gemm {
    acc: usize,
    a: usize,
    b: usize,
    params: [usize; 2],
    input: DType,
    fill: usize,
    k_loop: usize,
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
        l.tiles[t].storage = TileStorage::WorkgroupMatrix { role, input: g.input };
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
    // unclamped; the others clamp. A clamp on every load cost 4096^3 f16 on an H100 0.74 ms
    // against 0.50 unclamped, and both behind a branch on the window 1.08 (the branch keeps
    // the driver from pipelining the loads), so there is no unclamped twin.
    let tensor = |tile, proven| CopyPlan {
        proven,
        ..CopyPlan::masked(Dist::Workgroup(tile), None, None, false)
    };
    if let Op::Fill { dist, .. } = &mut l.body[g.fill] {
        *dist = Dist::Workgroup(g.acc);
    }
    // (origin, shape, proven) of the A and B loads.
    let mut windows = Vec::new();
    if let Op::For { body, .. } = &mut l.body[g.k_loop] {
        body.retain(|op| !matches!(op, Op::Barrier));
        for op in body.iter_mut() {
            match op {
                Op::Load { dst, plan, origin, param, .. } => {
                    windows.push((origin.clone(), *param, plan.proven));
                    *plan = tensor(dst.tile, plan.proven);
                }
                Op::Gemm { lowering, .. } => *lowering = GemmLowering::Workgroup,
                _ => {}
            }
        }
    }
    let shape = |p: usize| l.params[p].shape.clone();
    // C's window is proven inside where its rows are A's proven window's and its columns B's
    // (same origins, same extents of the same dimensions).
    let c_proven = match (&l.body[g.save], &windows[..]) {
        (Op::Save { origin, param, .. }, [(oa, pa, true), (ob, pb, true)]) => {
            origin[0] == oa[0]
                && origin[1] == ob[1]
                && shape(*param)[0] == shape(*pa)[0]
                && shape(*param)[1] == shape(*pb)[1]
        }
        _ => false,
    };
    if let Op::Save { plan, .. } = &mut l.body[g.save] {
        *plan = tensor(g.acc, plan.proven || c_proven);
    }
    if scratch.is_some_and(|s| s + 1 == l.tiles.len()) {
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
    let plain = |p: usize, d: DType| {
        let prm = &l.params[p];
        let access =
            if d == DType::BF16 { ParamAccess::Packed(DType::BF16) } else { ParamAccess::Plain };
        prm.dtype == d && prm.access == access && prm.shape.len() == 2
    };
    let whole = |s: &TileSlot| s.stage.is_none();
    let mut found = None;
    for (i, op) in l.body.iter().enumerate() {
        let Op::For { body, uniform_slot: None, .. } = op else { continue };
        let ops: Vec<&Op> = body.iter().filter(|o| !matches!(o, Op::Barrier)).collect();
        let [
            Op::Load { param: pa, axes: xa, dst: sa, .. },
            Op::Load { param: pb, axes: xb, dst: sb, .. },
            Op::Gemm { a, b, c, trans_a: false, trans_b: false, lowering },
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
            && *xa == [0, 1]
            && *xb == [0, 1]
            && l.tiles[sa.tile].shape == [bm, bk]
            && l.tiles[sb.tile].shape == [bk, bn]
            && l.tiles[*c].shape == [bm, bn]
            && l.tiles[*c].dtype == DType::F32;
        if ok && found.is_none() {
            found = Some((i, sa.tile, sb.tile, *c, [*pa, *pb], input));
        } else if ok {
            return None;
        }
    }
    let (k_loop, a, b, acc, params, input) = found?;
    let fill = l.body[..k_loop]
        .iter()
        .position(|op| matches!(op, Op::Fill { tile, .. } if *tile == acc))?;
    let save = k_loop
        + 1
        + l.body[k_loop + 1..].iter().position(|op| {
            matches!(op, Op::Save { src, plan, axes, param, .. }
                if src.tile == acc && whole(src)
                    && matches!(plan.dist, Dist::Matrix(_) | Dist::Fragment(_))
                    && *axes == [0, 1] && plain(*param, DType::F32))
        })?;
    // The kernel is the gemm and nothing else (barriers aside): no other op may see the
    // accumulator, which lives in no memory any more, or the operand tiles.
    let alone = l
        .body
        .iter()
        .enumerate()
        .all(|(i, op)| [fill, k_loop, save].contains(&i) || matches!(op, Op::Barrier));
    if !alone {
        return None;
    }
    Some(Gemm { acc, a, b, params, input, fill, k_loop, save })
}

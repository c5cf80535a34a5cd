//! Epilogue fusion: a pointwise loop over a matrix fragment (scale, bias, activation) followed
//! by the fragment's save, with the fragment not read again, becomes one `EpilogueSave`. Each
//! matrix then visits threadgroup memory once (stored, transformed and written out by its
//! lanes) instead of twice (stored, transformed, loaded back; stored again for the save), which
//! halves the epilogue's barriers and scratch traffic.

use crate::lir::{Dist, Lowered, Op, TileIx};

/// Whether `op` may follow a fused save of tile `tile`: barriers and saves of other tiles.
fn leaves_alone(op: &Op, tile: TileIx) -> bool {
    match op {
        Op::Barrier => true,
        Op::Save { src, .. } | Op::EpilogueSave { src, .. } => src.tile != tile,
        _ => false,
    }
}

fn fuse(ops: &mut Vec<Op>) {
    let mut i = 0;
    while i + 1 < ops.len() {
        let fusable = match (&ops[i], &ops[i + 1]) {
            (Op::Parallel { dist: Dist::Matrix(f), vars, .. }, Op::Save { src, plan, .. }) => {
                *f == src.tile
                    && vars.len() == 2
                    && matches!(plan.dist, Dist::Matrix(_))
                    && ops[i + 2..].iter().all(|op| leaves_alone(op, *f))
            }
            _ => false,
        };
        if fusable {
            let save = ops.remove(i + 1);
            let Op::Parallel { vars, body, .. } = ops.remove(i) else { unreachable!() };
            let Op::Save { src, param, origin, axes, .. } = save else { unreachable!() };
            ops.insert(i, Op::EpilogueSave { vars, body, src, param, origin, axes });
        }
        i += 1;
    }
}

/// Fuses epilogues into saves in `l`'s body (see the module docs).
pub fn fuse_epilogues(l: &mut Lowered) {
    fuse(&mut l.body);
}

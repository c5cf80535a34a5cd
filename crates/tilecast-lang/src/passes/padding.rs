//! Shared row padding: threadgroup tiles a gemm reads get padded rows, so the rows one matrix
//! load (or one SIMT K step) reads together fall in distinct memory banks.
//!
//! A cooperative-matrix load reads 16-byte pieces of 8 consecutive rows at once. Threadgroup
//! memory has 32 banks of 4 bytes (128 bytes a line) on the GPUs tilecast targets, so those 8
//! pieces are conflict-free exactly when the row pitch, counted in 16-byte units, is odd. A row
//! of 32 f16 (64 bytes, 4 units) puts pieces of rows 0, 2, 4, 6 in the same banks: a 4-way
//! conflict, measured as 4.6x slower loads on an H200 (`bench/probe/v3`). Padding by 16 bytes
//! makes the pitch odd. Only tiles whose every use indexes them through the tile's pitch (loads,
//! saves, fills, copies, element access, gemm) are padded, and only while the kernel's
//! threadgroup memory still fits the profile.

use crate::lir::{Lowered, Op, TileStorage};
use crate::profile::Profile;

/// Bytes a row is padded by: one 16-byte piece.
const PAD_BYTES: u32 = 16;

/// Pads the rows of threadgroup tiles read by a gemm (see the module docs).
pub fn pad_shared_rows(l: &mut Lowered, profile: &Profile) {
    let n = l.tiles.len();
    let (mut gemm, mut other) = (vec![false; n], vec![false; n]);
    scan(&l.body, &mut gemm, &mut other);
    let mut total: u64 = l.tiles.iter().map(bytes).sum();
    for i in 0..n {
        let t = &l.tiles[i];
        let size = t.dtype.size() as u32;
        let row_bytes = t.shape.last().copied().unwrap_or(0) * size;
        let eligible = gemm[i]
            && !other[i]
            && t.storage == TileStorage::Workgroup
            && t.shape.len() == 2
            && row_bytes.is_multiple_of(PAD_BYTES)
            && (row_bytes / PAD_BYTES).is_multiple_of(2);
        if !eligible {
            continue;
        }
        let before = bytes(t);
        let mut padded = t.clone();
        padded.row_pad = PAD_BYTES / size;
        let after = bytes(&padded);
        if total - before + after <= profile.max_shared_bytes as u64 {
            total = total - before + after;
            l.tiles[i] = padded;
        }
    }
}

fn bytes(t: &crate::lir::TileInfo) -> u64 {
    if t.storage != TileStorage::Workgroup {
        return 0;
    }
    t.stored_elements() * t.stages as u64 * t.dtype.size() as u64
}

/// Marks tiles a gemm reads, and tiles used where the printer indexes them linearly (reductions
/// and prefix sums), which stay unpadded.
fn scan(ops: &[Op], gemm: &mut [bool], other: &mut [bool]) {
    for op in ops {
        match op {
            Op::Gemm { a, b, .. } => {
                gemm[a.tile] = true;
                gemm[b.tile] = true;
            }
            Op::Reduce { src, dst, strategy, .. } => {
                other[src.tile] = true;
                other[*dst] = true;
                for t in strategy_tiles(strategy) {
                    other[t] = true;
                }
            }
            Op::Cumsum { src, dst, .. } => {
                other[*src] = true;
                other[*dst] = true;
            }
            Op::Parallel { body, .. } | Op::For { body, .. } => scan(body, gemm, other),
            Op::If { then, otherwise, .. } => {
                scan(then, gemm, other);
                scan(otherwise, gemm, other);
            }
            _ => {}
        }
    }
}

/// Scratch tiles a reduction strategy names.
fn strategy_tiles(s: &crate::lir::ReduceStrategy) -> Vec<usize> {
    use crate::lir::ReduceStrategy as R;
    match s {
        R::Registers { partials, arg_partials, .. } => {
            let mut v = vec![*partials];
            v.extend(*arg_partials);
            v
        }
        R::SplitSubgroups { partials, .. } => vec![*partials],
        _ => Vec::new(),
    }
}

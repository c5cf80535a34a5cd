//! Shared row padding: threadgroup tiles a gemm reads, or that consecutive threads walk down a
//! column of, get padded rows, so the elements read together fall in distinct memory banks.
//!
//! A cooperative-matrix load reads 16-byte pieces of 8 consecutive rows at once. Threadgroup
//! memory has 32 banks of 4 bytes (128 bytes a line) on the GPUs tilecast targets, so those 8
//! pieces are conflict-free exactly when the row pitch, counted in 16-byte units, is odd. A row
//! of 32 f16 (64 bytes, 4 units) puts pieces of rows 0, 2, 4, 6 in the same banks: a 4-way
//! conflict, measured as 4.6x slower loads on an H200. Padding by 16 bytes makes the pitch odd.
//!
//! A column walk (a loop spread over threads, or over a fragment's SIMT layout, whose fastest
//! index steps a tile's row axis, as a transpose reads its window) puts 32 threads on 32 rows of one column: with a row pitch that
//! is an even number of 4-byte words, many of them share a bank (all 32 for 64 f16 or 32 f32).
//! Padding by one word makes the pitch odd and the walk conflict-free.
//!
//! Only tiles whose every use indexes them through the tile's pitch (loads, saves, fills,
//! copies, element access, gemm) are padded, and only while the kernel's threadgroup memory
//! still fits the profile.

use crate::ir::Var;
use crate::lir::{Dist, ElemRef, Lowered, Op, TExpr, TKind, TileElem, TileIx, TileStorage};
use crate::profile::Profile;

/// Bytes a gemm operand's row is padded by: one 16-byte piece.
const PAD_BYTES: u32 = 16;
/// Bytes a column-walked row is padded by: one bank word.
const WORD_BYTES: u32 = 4;

/// Pads the rows of threadgroup tiles read by a gemm or walked down a column (see the module
/// docs).
pub fn pad_shared_rows(l: &mut Lowered, profile: &Profile) {
    let n = l.tiles.len();
    let (mut gemm, mut other, mut column) = (vec![false; n], vec![false; n], vec![false; n]);
    scan(&l.body, &mut gemm, &mut other);
    scan_columns(&l.body, None, &mut column);
    let mut total: u64 = l.tiles.iter().map(bytes).sum();
    for i in 0..n {
        let t = &l.tiles[i];
        let size = t.dtype.size() as u32;
        let row_bytes = t.shape.last().copied().unwrap_or(0) * size;
        let usable = !other[i] && t.storage == TileStorage::Workgroup && size <= WORD_BYTES;
        // Gemm operands first: their rule also decides the pitch of a tile walked both ways.
        let pad = if gemm[i] {
            let odd =
                row_bytes.is_multiple_of(PAD_BYTES) && (row_bytes / PAD_BYTES).is_multiple_of(2);
            (t.shape.len() == 2 && odd).then_some(PAD_BYTES)
        } else if column[i] {
            let even =
                row_bytes.is_multiple_of(WORD_BYTES) && (row_bytes / WORD_BYTES).is_multiple_of(2);
            (t.shape.len() >= 2 && even).then_some(WORD_BYTES)
        } else {
            None
        };
        let Some(pad) = pad.filter(|_| usable) else {
            continue;
        };
        let before = bytes(t);
        let mut padded = t.clone();
        padded.row_pad = pad / size;
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
                gemm[a.tile.0] = true;
                gemm[b.tile.0] = true;
            }
            Op::Reduce(r) => {
                other[r.src.tile.0] = true;
                other[r.dst.0] = true;
                for t in strategy_tiles(&r.strategy) {
                    other[t.0] = true;
                }
            }
            Op::Cumsum { src, dst, .. } => {
                other[src.0] = true;
                other[dst.0] = true;
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
fn strategy_tiles(s: &crate::lir::ReduceStrategy) -> Vec<TileIx> {
    use crate::lir::ReduceStrategy as R;
    match s {
        R::Registers(r) => {
            let mut v = vec![r.partials];
            v.extend(r.arg_partials);
            v
        }
        R::SplitSubgroups { partials, .. } => vec![*partials],
        _ => Vec::new(),
    }
}

/// Marks threadgroup tiles a loop spread over threads walks down a column: `fastest` is the
/// innermost index of the enclosing such loop (consecutive threads take consecutive values).
fn scan_columns(ops: &[Op], fastest: Option<&Var>, column: &mut [bool]) {
    let visit = |el: &TileElem, column: &mut [bool]| {
        let [.., row, col] = el.index.as_slice() else { return };
        if let Some(v) = fastest
            && mentions(row, v)
            && !mentions(col, v)
        {
            column[el.tile.0] = true;
        }
    };
    for op in ops {
        match op {
            Op::Parallel { vars, dist, body, .. } => {
                // Threads, and SIMT fragment layouts (neighbouring threads own neighbouring
                // column blocks), step the last variable fastest.
                let inner = match dist {
                    Dist::Threads | Dist::Fragment(_) => vars.last(),
                    _ => None,
                };
                scan_columns(body, inner, column);
            }
            Op::For { body, .. } => scan_columns(body, fastest, column),
            Op::If { cond, then, otherwise } => {
                tile_reads(cond, &mut |el| visit(el, column));
                scan_columns(then, fastest, column);
                scan_columns(otherwise, fastest, column);
            }
            Op::Store { target, value } => {
                match target {
                    ElemRef::Tile(el) => {
                        visit(el, column);
                        el.index.iter().for_each(|e| tile_reads(e, &mut |el| visit(el, column)));
                    }
                    ElemRef::Param(_, index, _) => {
                        index.iter().for_each(|e| tile_reads(e, &mut |el| visit(el, column)));
                    }
                    ElemRef::FragmentSlot(_) => {}
                }
                tile_reads(value, &mut |el| visit(el, column));
            }
            Op::Let { value, .. } => tile_reads(value, &mut |el| visit(el, column)),
            _ => {}
        }
    }
}

/// Calls `f` on every tile element `e` reads.
fn tile_reads(e: &TExpr, f: &mut impl FnMut(&TileElem)) {
    if let TKind::Tile(el) = &e.kind {
        f(el);
    }
    e.children().into_iter().for_each(|c| tile_reads(c, f));
}

/// Whether `e` depends on `v`.
fn mentions(e: &TExpr, v: &Var) -> bool {
    matches!(&e.kind, TKind::Var(x) if x == v) || e.children().into_iter().any(|c| mentions(c, v))
}

//! Layout inference: which thread owns which element of a fragment.
//!
//! A fragment [R, C] over T threads gives each thread a TM x TN register block (TM * TN =
//! R * C / T), squarest first so a gemm reuses each loaded operand as often as possible. Threads
//! form a (R / TM) x (C / TN) grid; thread t owns rows `(t / (C/TN)) * TM + i` and the strided
//! columns `t % (C/TN) + j * (C/TN)`, so neighbouring threads touch neighbouring columns:
//! coalesced global stores and conflict-free shared reads of B. The selection pass may then
//! give fragments that only move to and from global memory runs of 4 columns
//! ([`RegisterBlocks::run`]), read and written as vectors.

use crate::ir::Tile;
use crate::lir::RegisterBlocks;

/// Infers the layout of `tile` (2-D, or 1-D as one row) over `threads` threads.
pub fn fragment_layout(tile: &Tile, threads: u32) -> Result<RegisterBlocks, String> {
    let (rows, cols, per) = per_thread(tile, threads)?;
    let best = (1..=per)
        .filter(|tm| fits(rows, cols, per, *tm))
        .min_by_key(|tm| (*tm as i64 - (per / tm) as i64).abs());
    match best {
        Some(tm) => Ok(RegisterBlocks { rows, cols, tm, tn: per / tm, run: 1 }),
        None => Err(format!(
            "no register blocking of {rows}x{cols} over {threads} threads ({per} elements each) divides both axes"
        )),
    }
}

/// The layout of `tile` over `threads` threads with `tm` rows per thread: the rows each thread
/// owns are then those of any other fragment of as many rows with `tm` rows per thread (a row
/// statistic read over both needs that).
pub fn fragment_layout_with_rows(
    tile: &Tile,
    threads: u32,
    tm: u32,
) -> Result<RegisterBlocks, String> {
    let (rows, cols, per) = per_thread(tile, threads)?;
    if tm == 0 || !fits(rows, cols, per, tm) {
        return Err(format!(
            "{rows}x{cols} over {threads} threads ({per} elements each) has no register blocking \
             of {tm} rows per thread"
        ));
    }
    Ok(RegisterBlocks { rows, cols, tm, tn: per / tm, run: 1 })
}

/// Rows, columns and elements per thread of `tile` over `threads`, if they divide evenly.
fn per_thread(tile: &Tile, threads: u32) -> Result<(u32, u32, u32), String> {
    let (rows, cols) = match tile.shape.as_slice() {
        [c] => (1, *c),
        [r, c] => (*r, *c),
        s => return Err(format!("fragments are 1-D or 2-D; this one is {s:?}")),
    };
    let total = rows as u64 * cols as u64;
    if !total.is_multiple_of(threads as u64) {
        return Err(format!(
            "{rows}x{cols} = {total} elements do not divide evenly over {threads} threads"
        ));
    }
    Ok((rows, cols, (total / threads as u64) as u32))
}

/// Whether blocks of `tm` rows (and `per / tm` columns) tile `rows` x `cols`.
fn fits(rows: u32, cols: u32, per: u32, tm: u32) -> bool {
    per.is_multiple_of(tm) && rows.is_multiple_of(tm) && cols.is_multiple_of(per / tm)
}

//! Grids for kernels whose threadgroup count grows with the data: spread over two dimensions,
//! so a 256 MiB tensor stays under the 65,535-per-dimension limit devices commonly report.

use tilecast_lang::{Expr, block_x, block_y, ceil_div};

/// Threadgroups per grid row, at most.
const ROW: u32 = 32768;

/// A two-dimensional grid with at least `blocks` threadgroups, each dimension at most 32,768.
pub(crate) fn flat_grid(blocks: &Expr) -> [Expr; 2] {
    let y = ceil_div(blocks, ROW);
    [ceil_div(blocks, &y), y]
}

/// The linear index of this threadgroup in [`flat_grid`]`(blocks)` (may exceed `blocks - 1`
/// in the last row; accesses past the data are masked).
pub(crate) fn flat_block(blocks: &Expr) -> Expr {
    block_y() * ceil_div(blocks, ceil_div(blocks, ROW)) + block_x()
}

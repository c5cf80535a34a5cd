//! Fragment layouts: which thread owns which element of a fragment, as SIMT register blocks
//! or as matrices spread over subgroups. The selection pass chooses them; the lowering and the
//! back end follow them.

use super::TileIx;
use crate::ir::DType;

/// Most register slots per thread for which loops over a fragment are unrolled: beyond it the
/// unrolled code grows large, and a loop index into the fragment moves it to local memory.
pub const MAX_UNROLLED_SLOTS: u32 = 128;

/// A fragment distributed as per-thread register blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterBlocks {
    /// Rows of the fragment.
    pub rows: u32,
    /// Columns of the fragment.
    pub cols: u32,
    /// Rows each thread owns.
    pub tm: u32,
    /// Columns each thread owns.
    pub tn: u32,
    /// Columns a thread owns side by side (1, or 4 where the selection pass chose vector runs):
    /// thread column `c`'s slot `j` is column `(j / run) * thread_cols * run + c * run + j % run`,
    /// so with 4 one vector load fills four slots, and with 1 neighbouring threads own
    /// neighbouring columns.
    pub run: u32,
}

impl RegisterBlocks {
    /// Threads along the column axis.
    pub fn thread_cols(&self) -> u32 {
        self.cols / self.tn
    }
    /// The column of slot `j` (of a block row) relative to the thread's first column.
    pub fn col_step(&self, j: u32) -> u32 {
        (j / self.run) * self.thread_cols() * self.run + j % self.run
    }
    /// Elements each thread holds.
    pub fn per_thread(&self) -> u32 {
        self.tm * self.tn
    }
}

/// A fragment tiled over matrix units: a `warps[0] x warps[1]` grid of subgroups, each owning
/// a `blocks[0] x blocks[1]` block of `shape x shape` matrices; with `k_split > 1` that grid is
/// repeated `k_split` times, each copy accumulating every `k_split`-th K step of the same
/// matrices (subgroup `sg` is grid position `sg % (warps[0] * warps[1])`, K slice
/// `sg / (warps[0] * warps[1])`), and saves add the slices' partial sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixTiling {
    /// The (square) matrix unit's M = N = K.
    pub shape: u32,
    /// Subgroups along rows and columns.
    pub warps: [u32; 2],
    /// Matrices each subgroup owns along rows and columns.
    pub blocks: [u32; 2],
    /// Element type of the A and B operands.
    pub input: DType,
    /// The shared tile saves go through (one matrix per subgroup), if the fragment is saved.
    pub scratch: Option<TileIx>,
    /// Subgroups sharing each block of matrices, each taking every `k_split`-th K step (1: no
    /// split). Chosen where the tile has fewer matrices than the threadgroup has subgroups (a
    /// decode gemm's 16-row tiles): more subgroups load and multiply each K step.
    pub k_split: u32,
}

impl MatrixTiling {
    /// Matrices each subgroup holds.
    pub fn per_subgroup(&self) -> u32 {
        self.blocks[0] * self.blocks[1]
    }
    /// Subgroups in one grid of blocks (one K slice).
    pub fn grid_subgroups(&self) -> u32 {
        self.warps[0] * self.warps[1]
    }
}

/// Where a fragment's elements live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FragmentLayout {
    /// SIMT: each thread owns a register block.
    Simt(RegisterBlocks),
    /// Matrix units (cooperative / simdgroup matrices).
    Matrix(MatrixTiling),
    /// A `[R]` row statistic of the `[R, C]` SIMT fragment `of`: each thread holds the values
    /// of the rows it owns in `of` (`blocks.tm` slots; `blocks.cols` is `of`'s thread columns,
    /// `blocks.tn` 1), the same in every thread of a row, so a loop over `of` reads its row's
    /// value from a register.
    Rows {
        /// The fragment whose rows it follows.
        of: TileIx,
        /// `of`'s thread grid, one slot per owned row.
        blocks: RegisterBlocks,
    },
}

//! The lowered form: the tile program with every lowering choice made and written down as data
//! (fragment layouts, copy plans, reduction strategies, barriers, bounds checks, parameter
//! access, expression types). Passes produce it; back ends only print it, and
//! `tilecast emit --target ir` shows it.

mod copy;
mod display;
mod expr;
mod gemm;
mod ids;
mod indexing;
mod issue;
mod layout;
mod load;
mod reduce;

pub use copy::{CopyPlan, Dist, TileSlot};
pub use expr::{Bounds, ETy, TExpr, TKind, TileElem};
pub use ids::{ParamIx, TileIx};
pub use issue::issue_runs;
pub use layout::{FragmentLayout, MAX_UNROLLED_SLOTS, MatrixTiling, RegisterBlocks};
pub use load::{LoadPath, WindowLoad};
pub use reduce::{ReduceLines, final_op, reduce_name};

use crate::ir::{DType, Expr, ReduceOp, Scope, Var};

/// A kernel ready for a back end.
#[derive(Clone, Debug, PartialEq)]
pub struct Lowered {
    /// The kernel's name (for messages).
    pub name: String,
    /// The entry point's identifier.
    pub entry: String,
    /// Threads per threadgroup.
    pub threads: u32,
    /// Threadgroups along x, y, z (u32 expressions of symbols).
    pub grid: [Expr; 3],
    /// Buffer arguments, in binding order (indexed by [`ParamIx`]).
    pub params: Vec<ParamInfo>,
    /// Shape symbols, in immediate order (first in the immediate block).
    pub symbols: Vec<Named>,
    /// Scalar arguments that are not symbols (f32, i32), after the symbols in the immediates.
    pub scalars: Vec<ScalarInfo>,
    /// Tiles with their storage (indexed by [`TileIx`]).
    pub tiles: Vec<TileInfo>,
    /// `vec4` views of read-only parameters: (binding, parameter).
    pub vector_views: Vec<(u32, ParamIx)>,
    /// The body.
    pub body: Vec<Op>,
    /// Language features the body needs.
    pub features: Features,
}

impl Lowered {
    /// Bytes of threadgroup memory its tiles take (padding and stages included).
    pub fn shared_bytes(&self) -> u64 {
        self.tiles
            .iter()
            .filter(|t| t.storage == TileStorage::Workgroup)
            .map(|t| t.stored_elements() * t.stages as u64 * t.dtype.size() as u64)
            .sum()
    }
}

/// A name and the identifier generated code uses for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Named {
    /// As the user wrote it.
    pub name: String,
    /// Identifier in generated code (unique, never a keyword).
    pub ident: String,
}

/// A scalar argument that is not a symbol.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarInfo {
    /// Name and identifier.
    pub named: Named,
    /// f32 or i32.
    pub dtype: DType,
}

/// How generated code reaches a parameter's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamAccess {
    /// An array of its element type.
    Plain,
    /// An array of atomics: every load and store is atomic (the kernel adds atomically).
    Atomic,
    /// Elements narrower than 32 bits (u8, i8, bf16, fp8 e4m3/e5m2) packed in `u32` words and
    /// widened on load: integers to u32/i32 (sign-extended for i8), floats to f32 exactly.
    /// Written ones (bf16 and fp8 only) are atomic words: a run of 4 is encoded (nearest even)
    /// and stored whole; a lone element is merged into its word with atomics on its own bits.
    Packed(DType),
    /// An array of its own element type, even a narrow one (bf16 stays bf16), read only by
    /// tensor-addressed loads into workgroup-scope matrices of that type. Made by
    /// `passes::lowered::workgroup_matrices` for the native back end; WGSL, which has no such types,
    /// never sees it.
    Tensor,
}

/// A buffer argument.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    /// Name and identifier.
    pub named: Named,
    /// Element type.
    pub dtype: DType,
    /// Shape (u32 expressions of symbols).
    pub shape: Vec<TExpr>,
    /// Declared read-only.
    pub read_only: bool,
    /// The kernel writes it.
    pub written: bool,
    /// How elements are reached.
    pub access: ParamAccess,
    /// Binding of its `vec4` view, if vectorized copies read it.
    pub vector_view: Option<u32>,
}

/// Where a tile's elements live.
#[derive(Clone, Debug, PartialEq)]
pub enum TileStorage {
    /// Threadgroup memory: `elements` per stage.
    Workgroup,
    /// Every thread holds all elements.
    PerThread,
    /// A workgroup-scope matrix (`SPV_NV_cooperative_matrix2`): the whole threadgroup holds
    /// it as one value. Made only for the native SPIR-V back end by
    /// `passes::lowered::workgroup_matrices`, for an accumulator and the operand tiles that fed it.
    WorkgroupMatrix {
        /// What the matrix is for.
        role: MatrixRole,
        /// Element type of the A and B operands.
        input: DType,
        /// The tile holds the matrix transposed (a linear's `W[N, K]` window for a B of
        /// `K x N`): loads go through a transposing tensor view.
        transposed: bool,
    },
    /// A row statistic `[rows]` held as a workgroup-scope f32 accumulator `[rows, columns]`
    /// whose every column holds its row's value (what a row reduction of a `[rows, columns]`
    /// workgroup matrix gives), so per-element operations read it beside that matrix. Made by
    /// `passes::lowered::workgroup_kernel` for the native SPIR-V back end.
    WorkgroupRows {
        /// Columns of the matrix it is held in.
        columns: u32,
    },
    /// No op reads or writes it any more (the native lowering replaced it): declared nowhere,
    /// it takes no memory.
    Unused,
    /// A fragment with its layout, and why the selection pass chose it.
    Fragment {
        /// The layout.
        layout: FragmentLayout,
        /// The selection pass's reason.
        reason: String,
    },
}

/// What a matrix is for in `C += A x B`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixRole {
    /// The left operand.
    A,
    /// The right operand.
    B,
    /// The accumulator.
    Accumulator,
}

/// A tile.
#[derive(Clone, Debug, PartialEq)]
pub struct TileInfo {
    /// Name and identifier.
    pub named: Named,
    /// Scope as written.
    pub scope: Scope,
    /// Element type.
    pub dtype: DType,
    /// Shape of one stage.
    pub shape: Vec<u32>,
    /// Stages.
    pub stages: u32,
    /// Storage decided by the passes.
    pub storage: TileStorage,
    /// Elements of padding after each row (the last axis) in threadgroup memory, chosen by the
    /// `padding` pass so the rows a matrix load reads together fall in distinct banks.
    pub row_pad: u32,
}

impl TileInfo {
    /// Elements of one stage.
    pub fn elements(&self) -> u64 {
        self.shape.iter().map(|&d| d as u64).product()
    }
    /// Elements from one row's start to the next in memory (the last axis plus its padding).
    pub fn row_pitch(&self) -> u32 {
        self.shape.last().copied().unwrap_or(1) + self.row_pad
    }
    /// Elements one stage occupies in memory, padding included.
    pub fn stored_elements(&self) -> u64 {
        self.elements() / self.shape.last().copied().unwrap_or(1).max(1) as u64
            * self.row_pitch() as u64
    }
    /// The SIMT register blocks of a fragment.
    pub fn blocks(&self) -> Option<RegisterBlocks> {
        match &self.storage {
            TileStorage::Fragment { layout: FragmentLayout::Simt(b), .. } => Some(*b),
            TileStorage::Fragment { layout: FragmentLayout::Rows { blocks, .. }, .. } => {
                Some(*blocks)
            }
            _ => None,
        }
    }
    /// Whether this is a row statistic ([`FragmentLayout::Rows`]).
    pub fn row_statistic(&self) -> bool {
        matches!(&self.storage, TileStorage::Fragment { layout: FragmentLayout::Rows { .. }, .. })
    }
    /// The matrix tiling of a fragment on matrix units.
    pub fn matrix(&self) -> Option<MatrixTiling> {
        match &self.storage {
            TileStorage::Fragment { layout: FragmentLayout::Matrix(m), .. } => Some(*m),
            _ => None,
        }
    }
}

/// Features generated code needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// f16 types.
    pub f16: bool,
    /// The erf helper.
    pub erf: bool,
    /// Subgroup operations.
    pub subgroups: bool,
    /// Subgroup shuffles (lane reductions).
    pub shuffles: bool,
    /// Cooperative (simdgroup) matrices.
    pub matrix: bool,
    /// Workgroup-scope matrices with tensor addressing (native SPIR-V only).
    pub workgroup_matrix: bool,
    /// Integer dot products of packed bytes ([`crate::ir::BinOp::Dot4I8`]).
    pub dot_product: bool,
}

/// A reduction along an axis, as lowered: what the back ends print for a `reduce`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduce {
    /// Operator.
    pub op: ReduceOp,
    /// Source.
    pub src: TileSlot,
    /// Destination.
    pub dst: TileIx,
    /// Axis.
    pub axis: usize,
    /// Start from the identity.
    pub clear: bool,
    /// Distribution of outputs.
    pub dist: Dist,
    /// How.
    pub strategy: ReduceStrategy,
}

/// A fragment reduced along its last axis in registers ([`ReduceStrategy::Registers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterReduction {
    /// Shared tile the partial results meet in, added by the lowering: `[rows, lanes]`, or
    /// `[rows, subgroups]` when `subgroup_first`.
    pub partials: TileIx,
    /// Threads holding parts of one row (the fragment layout's thread columns).
    pub lanes: u32,
    /// Every thread holds parts of every row (`lanes` is the whole threadgroup): each
    /// subgroup reduces its threads' results first and writes one partial per row, so one
    /// barrier separates the registers from the final combine.
    pub subgroup_first: bool,
    /// The final combine of `lanes` partials per row runs on one subgroup per row (else
    /// one thread per row).
    pub combine_subgroup: bool,
    /// The fold over register slots is unrolled (constant slot indices keep the fragment
    /// in registers; see [`MAX_UNROLLED_SLOTS`]).
    pub unrolled: bool,
    /// Index reductions (argmax, argmin): the u32 tile, shaped as `partials`, that carries
    /// each partial result's column beside its value.
    pub arg_partials: Option<TileIx>,
}

/// How a reduction is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceStrategy {
    /// Each output by one thread, serially.
    Serial,
    /// Each output by one subgroup: strided partial results, then a subgroup reduction.
    Subgroup,
    /// Fewer outputs than subgroups: each output split over `threadgroup subgroups / outputs`
    /// subgroups, whose subgroup-reduced partial results meet in the shared tile `partials`
    /// (one threadgroup barrier inside the op), so a one-row reduction keeps every subgroup busy.
    SplitSubgroups {
        /// Shared scratch tile (one slot per subgroup) added by the lowering.
        partials: TileIx,
    },
    /// A fragment along its last axis: each thread folds the elements it holds in registers,
    /// and only those per-thread results meet in threadgroup memory (the fragment itself never
    /// goes there).
    Registers(RegisterReduction),
    /// A fragment along its last axis into a row statistic of it, where each row's threads are
    /// `lanes` neighbouring lanes of one subgroup: each thread folds its slots, then
    /// `log2(lanes)` exchanges (`shuffle_xor`) leave every lane of the row with the result, in
    /// its own register. No threadgroup memory, no barrier.
    Lanes {
        /// Threads holding parts of one row (a power of two dividing the subgroup size).
        lanes: u32,
        /// The fold over register slots is unrolled.
        unrolled: bool,
    },
    /// A workgroup-scope matrix along its rows into a row statistic held as a workgroup matrix
    /// ([`TileStorage::WorkgroupRows`]): one matrix reduction, each element of the result its
    /// row's value.
    WorkgroupRows,
}

/// What a back end prints for a [`Reduce`] ([`Reduce::path`]): its strategy unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReducePath {
    /// One thread per output ([`ReduceStrategy::Serial`]) or one subgroup per output
    /// ([`ReduceStrategy::Subgroup`]), each walking its line.
    Lines,
    /// Each output split over several subgroups; the shared tile their partials meet in.
    Split(TileIx),
    /// A value reduction from a fragment's registers.
    Registers(RegisterReduction),
    /// An index reduction from a fragment's registers; the tile carrying the partials' columns.
    RegisterArgs(RegisterReduction, TileIx),
    /// A value reduction from a fragment's registers into a row statistic, by exchanges among
    /// each row's `lanes` (see [`ReduceStrategy::Lanes`]); whether the fold is unrolled.
    Lanes(u32, bool),
    /// A matrix row reduction of workgroup-scope matrices ([`ReduceStrategy::WorkgroupRows`]).
    WorkgroupRows,
}

/// How a gemm is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmLowering {
    /// Per-thread register blocking following the accumulator's layout.
    Simt(RegisterBlocks),
    /// Cooperative matrices loaded from threadgroup memory, multiply-accumulated per subgroup.
    Matrix(MatrixTiling),
    /// One workgroup-scope multiply-accumulate of operand matrices loaded straight from
    /// global memory ([`TileStorage::WorkgroupMatrix`]).
    Workgroup,
}

/// A gemm's operands as the back ends read them, with what their storage implies for the K
/// loop ([`Lowered::gemm_operands`]).
#[derive(Clone, Copy, Debug)]
pub struct GemmOperands<'a> {
    /// Left operand.
    pub a: &'a TileSlot,
    /// Right operand.
    pub b: &'a TileSlot,
    /// Accumulator.
    pub c: TileIx,
    /// A stored [K, M]; B stored [N, K].
    pub trans: (bool, bool),
    /// The K extent: A's rows when it is stored [K, M], else its columns.
    pub k: u32,
    /// Elements from one stored row of A, and of B, to the next (padding included): the
    /// stride operand loads step by.
    pub pitch: (u32, u32),
}

/// Element of a store.
#[derive(Clone, Debug, PartialEq)]
pub enum ElemRef {
    /// A tile element.
    Tile(TileElem),
    /// The current fragment slot.
    FragmentSlot(TileIx),
    /// A parameter element (dropped out of bounds), with the axes tested as for
    /// [`TKind::Param`].
    Param(ParamIx, Vec<TExpr>, Vec<bool>),
}

/// A parameter read taken once per run of a fragment's columns.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorRead {
    /// The parameter.
    pub param: ParamIx,
    /// The coordinates the body reads, at the run's first column.
    pub index: Vec<TExpr>,
    /// Axes tested, as for [`TKind::Param`].
    pub tests: Vec<bool>,
    /// The xor on the column: lane `l` of the run takes component `l ^ (xor % 4)` (0 for a read
    /// at the column itself).
    pub xor: u32,
    /// Where the run's vector comes from.
    pub source: VectorSource,
}

/// Where a [`VectorRead`]'s vector comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum VectorSource {
    /// A load at these coordinates: the read's own, or its column's where its xor stays
    /// inside the aligned vector (a partner in the same four columns).
    Load(Vec<TExpr>),
    /// The vector an earlier read of the same loop loads (its position in the list): same
    /// parameter, same load coordinates.
    Shared(usize),
}

/// Lowered statements.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Threadgroup barrier.
    Barrier,
    /// Set every element of a tile.
    Fill {
        /// The tile.
        tile: TileIx,
        /// Value.
        value: TExpr,
        /// Distribution.
        dist: Dist,
    },
    /// Global window -> tile.
    Load(WindowLoad),
    /// Tile -> global window.
    Save {
        /// Source.
        src: TileSlot,
        /// Destination parameter.
        param: ParamIx,
        /// Window origin.
        origin: Vec<TExpr>,
        /// The parameter axis each tile axis runs along ([`crate::ir::window_axes`]).
        axes: Vec<usize>,
        /// Plan.
        plan: CopyPlan,
    },
    /// A pointwise loop over a matrix fragment (an epilogue) run as the fragment is saved:
    /// each matrix visits the subgroup's scratch matrix once, its lanes run `body` on the
    /// elements there and store the results to the window (masked), and nothing is loaded back
    /// (the fragment is not read again). Made by `passes::lowered::fuse` from a `Parallel` over the
    /// fragment followed by its `Save`.
    EpilogueSave {
        /// The loop's index variables (row, column).
        vars: Vec<Var>,
        /// The loop's body.
        body: Vec<Op>,
        /// Source fragment (on matrix units).
        src: TileSlot,
        /// Destination parameter.
        param: ParamIx,
        /// Window origin.
        origin: Vec<TExpr>,
        /// The parameter axis each tile axis runs along.
        axes: Vec<usize>,
    },
    /// Tile -> tile of the same shape.
    CopyTiles {
        /// Source.
        src: TileSlot,
        /// Destination.
        dst: TileSlot,
        /// Distribution.
        dist: Dist,
    },
    /// `c += op(a) * op(b)`.
    Gemm {
        /// Left operand.
        a: TileSlot,
        /// Right operand.
        b: TileSlot,
        /// Accumulator.
        c: TileIx,
        /// A stored [K, M].
        trans_a: bool,
        /// B stored [N, K].
        trans_b: bool,
        /// How.
        lowering: GemmLowering,
    },
    /// Reduction along an axis.
    Reduce(Reduce),
    /// Inclusive prefix sum along an axis; one thread per line.
    Cumsum {
        /// Source.
        src: TileIx,
        /// Destination.
        dst: TileIx,
        /// Axis.
        axis: usize,
        /// Distribution of lines.
        dist: Dist,
    },
    /// Elementwise loop.
    Parallel {
        /// Extents.
        extents: Vec<u32>,
        /// Index variables.
        vars: Vec<Var>,
        /// Distribution.
        dist: Dist,
        /// Over a fragment's register slots: emitted once per slot, so every register index is
        /// a constant (a loop over the slots can leave the fragment in local memory when the
        /// body is large, e.g. an erf epilogue).
        unrolled: bool,
        /// Parameter reads (parameter, coordinates, axes tested) the body makes at the
        /// fragment's column plus an offset proven a multiple of 4, from a parameter whose rows
        /// are whole vectors: over a fragment with runs of 4 columns, each is read once per run
        /// as one vector instead of once per slot.
        vector_reads: Vec<VectorRead>,
        /// Body.
        body: Vec<Op>,
    },
    /// `let` in a parallel body: `value` evaluated once per element, read by
    /// [`TKind::Local`] in the ops after it.
    Let {
        /// Its number in the kernel.
        id: usize,
        /// Its name.
        name: String,
        /// Value.
        value: TExpr,
    },
    /// Element store.
    Store {
        /// Where.
        target: ElemRef,
        /// Value (of the element's type).
        value: TExpr,
    },
    /// Atomic add to a parameter element (dropped out of bounds).
    AtomicAdd {
        /// Parameter.
        param: ParamIx,
        /// Coordinates.
        index: Vec<TExpr>,
        /// Value.
        value: TExpr,
    },
    /// Serial loop.
    For {
        /// Counter.
        var: Var,
        /// Trip count.
        extent: TExpr,
        /// A trip count read from memory: the one-element workgroup tile thread 0 stores it
        /// to, which every thread then reads with `workgroupUniformLoad`, so the loop stays in
        /// uniform control flow (its body may hold barriers).
        uniform_slot: Option<TileIx>,
        /// Body.
        body: Vec<Op>,
    },
    /// Conditional.
    If {
        /// Condition.
        cond: TExpr,
        /// Taken branch.
        then: Vec<Op>,
        /// Other branch.
        otherwise: Vec<Op>,
    },
}

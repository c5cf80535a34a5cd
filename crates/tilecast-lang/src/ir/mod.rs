//! The tile IR: small, plain data. A kernel is a grid of threadgroups; its body moves and
//! combines whole tiles, and the compiler decides which thread does what.

mod expr;
mod ids;
mod printer;
pub mod visit;

pub use expr::{BinOp, Expr, MathFn, Var, VarKind, ceil_div, select, sym, thread_index};
pub use ids::{LetId, ParamId, ScalarId, TileId};
pub(crate) use printer::{bin_text, call_text, math_text};
pub use printer::{op_symbol, var_name};
pub use tilecast_core::DType;

/// Where a tile lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Threadgroup memory, shared by the threads of one group.
    Shared,
    /// A register tile distributed over the threadgroup (the GEMM accumulator).
    Fragment,
    /// Per-thread registers: every thread holds the whole tile.
    Local,
}

/// A kernel parameter: a global tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Shape, each dimension a constant or a symbol expression.
    pub shape: Vec<Expr>,
    /// Declared read-only (`Kernel::input`): writing it is an error.
    pub read_only: bool,
}

/// A scalar kernel argument (`eps`, `scale`, an offset), set at launch. A `u32` scalar also
/// sets the shape symbol of the same name.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarParam {
    /// Its name (and, for `u32`, the symbol it sets).
    pub name: String,
    /// f32, i32 or u32.
    pub dtype: DType,
}

/// A tile buffer with a static shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Tile {
    /// Its name.
    pub name: String,
    /// Scope.
    pub scope: Scope,
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: Vec<u32>,
    /// Pipeline stages (1 unless a pipelined loop multi-buffers it).
    pub stages: u32,
}

impl Tile {
    /// Elements in one stage.
    pub fn elements(&self) -> u64 {
        self.shape.iter().map(|&d| d as u64).product()
    }
    /// Bytes of all stages.
    pub fn bytes(&self) -> u64 {
        self.elements() * self.stages as u64 * self.dtype.size() as u64
    }
}

/// One side of a copy.
#[derive(Clone, Debug, PartialEq)]
pub enum Region {
    /// A tile-shaped window of a parameter whose first element is at `origin`.
    Global {
        /// The parameter.
        param: ParamId,
        /// Coordinates of the window's first element.
        origin: Vec<Expr>,
        /// The parameter axis each tile axis runs along, in increasing order (the window is
        /// one element deep along the others); `None` where the tile has the parameter's rank.
        axes: Option<Vec<usize>>,
    },
    /// A whole tile (one stage of it when `stage` is set).
    Tile {
        /// The tile.
        tile: TileId,
        /// Which stage of a multi-buffered tile.
        stage: Option<Expr>,
    },
}

/// The parameter axes a window of a `tile_rank` tile spans: `axes`, or (same rank) all of
/// them.
pub fn window_axes(axes: &Option<Vec<usize>>, tile_rank: usize, param_rank: usize) -> Vec<usize> {
    match axes {
        Some(a) => a.clone(),
        None => (param_rank.saturating_sub(tile_rank)..param_rank).collect(),
    }
}

/// The extent of a window along each parameter axis: the tile's along the axes it spans, 1
/// along the others. A window's elements in this shape's row-major order are the tile's in its
/// own, so a copy may walk either.
pub fn window_shape(axes: &[usize], tile_shape: &[u32], param_rank: usize) -> Vec<u32> {
    let mut out = vec![1; param_rank];
    for (&a, &n) in axes.iter().zip(tile_shape) {
        out[a] = n;
    }
    out
}

/// Reduction operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// Sum.
    Sum,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
    /// Sum of absolute values.
    AbsSum,
    /// Sum of squares (norms: one pass, no squared copy of the tile).
    SqSum,
    /// Index (u32) of the first largest element.
    Argmax,
    /// Index (u32) of the first smallest element.
    Argmin,
}

impl ReduceOp {
    /// The value a reduction of elements computed in `d` starts from: -inf / +inf for float
    /// max / min, the type's extremes for integer max / min, 0 otherwise. Every back end prints
    /// this value.
    pub fn identity(self, d: DType) -> f64 {
        match (self, d) {
            (ReduceOp::Max, DType::F32 | DType::F16) => f64::NEG_INFINITY,
            (ReduceOp::Min, DType::F32 | DType::F16) => f64::INFINITY,
            (ReduceOp::Max, DType::I32) => i32::MIN as f64,
            (ReduceOp::Min, DType::I32) => i32::MAX as f64,
            (ReduceOp::Min, _) => u32::MAX as f64,
            _ => 0.0,
        }
    }
    /// Whether the result is an index rather than a value.
    pub fn is_arg(self) -> bool {
        matches!(self, ReduceOp::Argmax | ReduceOp::Argmin)
    }
}

/// Statements.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// Copy a tile-shaped region; out-of-bounds global elements read as zero and are not written.
    Copy {
        /// Source.
        src: Region,
        /// Destination.
        dst: Region,
        /// Synchronize the threadgroup around it (off inside lowered pipelines).
        sync: bool,
    },
    /// Set every element of a tile.
    Fill {
        /// The tile.
        tile: TileId,
        /// The value.
        value: Expr,
    },
    /// `c += op(a) * op(b)`: a `[M, K]` (or `[K, M]` transposed), b `[K, N]` (or `[N, K]`),
    /// c `[M, N]`.
    Gemm {
        /// Left operand (shared).
        a: Region,
        /// Right operand (shared).
        b: Region,
        /// Accumulator (fragment).
        c: TileId,
        /// A is stored [K, M].
        trans_a: bool,
        /// B is stored [N, K].
        trans_b: bool,
    },
    /// Reduce `src` along `axis` into `dst` (src's shape without that axis).
    Reduce {
        /// Operator.
        op: ReduceOp,
        /// Source tile.
        src: TileId,
        /// Which stage of a multi-buffered source (set by pipelining).
        src_stage: Option<Expr>,
        /// Destination tile.
        dst: TileId,
        /// Axis reduced.
        axis: usize,
        /// Start from the identity (else combine with dst's contents).
        clear: bool,
    },
    /// Inclusive prefix sum of `src` along `axis` into `dst` (same shape).
    Cumsum {
        /// Source tile.
        src: TileId,
        /// Destination tile (may be `src`).
        dst: TileId,
        /// Axis scanned.
        axis: usize,
    },
    /// `param[index] += value` atomically (inside a parallel body; i32/u32 parameters).
    AtomicAdd {
        /// The global parameter.
        param: ParamId,
        /// Element coordinates.
        index: Vec<Expr>,
        /// Value added.
        value: Expr,
    },
    /// Elementwise work over an index space; `vars` are its indices.
    Parallel {
        /// Extent of each index.
        extents: Vec<u32>,
        /// Index variables.
        vars: Vec<Var>,
        /// Body: stores only.
        body: Vec<Stmt>,
    },
    /// `let name = value` inside a parallel body: evaluated once per element, read through
    /// [`Expr::Local`] by the statements after it in the same body.
    Let {
        /// Its number in the kernel.
        id: LetId,
        /// Its name, for listings and messages.
        name: String,
        /// Value.
        value: Expr,
    },
    /// `buffer[index] = value` inside a parallel body.
    Store {
        /// Tile or global parameter.
        target: Target,
        /// Element coordinates.
        index: Vec<Expr>,
        /// Value.
        value: Expr,
    },
    /// A serial loop over `0..extent`.
    For {
        /// Loop variable.
        var: Var,
        /// Trip count (uniform).
        extent: Expr,
        /// Body.
        body: Vec<Stmt>,
    },
    /// A software-pipelined loop: copies into shared tiles for later iterations are issued
    /// before the compute of the current one.
    Pipelined {
        /// Loop variable.
        var: Var,
        /// Trip count.
        extent: Expr,
        /// Stages (1 = no overlap).
        stages: u32,
        /// Body: copies into shared tiles, then compute.
        body: Vec<Stmt>,
    },
    /// Uniform conditional.
    If {
        /// Condition (bool).
        cond: Expr,
        /// Taken branch.
        then: Vec<Stmt>,
        /// Other branch.
        otherwise: Vec<Stmt>,
    },
    /// Threadgroup barrier (inserted by passes).
    Barrier,
}

/// What a store writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A tile.
    Tile(TileId),
    /// A global parameter (masked at its bounds).
    Param(ParamId),
}

/// A whole kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Entry point name.
    pub name: String,
    /// Threadgroups per grid axis (x, y, z; at most three), in terms of symbols.
    pub grid: Vec<Expr>,
    /// Threads per threadgroup.
    pub threads: u32,
    /// Global parameters, in binding order.
    pub params: Vec<Param>,
    /// Shape symbols, in order of first appearance.
    pub symbols: Vec<String>,
    /// Scalar arguments, in argument order.
    pub scalars: Vec<ScalarParam>,
    /// Tile buffers.
    pub tiles: Vec<Tile>,
    /// Body.
    pub body: Vec<Stmt>,
    /// Why the kernel runs as WGSL where the device would take the native back end's module
    /// (a family's measured choice), or None: native where it can.
    pub prefer_wgsl: Option<String>,
}

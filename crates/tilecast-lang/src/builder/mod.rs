//! The Rust front end: a builder that reads like the math.
//!
//! ```
//! use tilecast_lang::{Kernel, ceil_div, sym, block_x, block_y, DType::{F16, F32}};
//! const BM: u32 = 64;
//! const BN: u32 = 64;
//! const BK: u32 = 32;
//! let (m, n, kd) = (sym("M"), sym("N"), sym("K"));
//! let k = Kernel::new("gemm").grid([ceil_div(&n, BN), ceil_div(&m, BM)]).threads(128);
//! let (a, b, c) = (k.input("A", F16, [&m, &kd]), k.input("B", F16, [&kd, &n]), k.param("C", F32, [&m, &n]));
//! let (a_s, b_s) = (k.shared(F16, [BM, BK]), k.shared(F16, [BK, BN]));
//! let acc = k.fragment(F32, [BM, BN]);
//! let (bx, by) = (block_x(), block_y());
//! k.clear(&acc);
//! k.pipelined(ceil_div(&kd, BK), 3, |k, ko| {
//!     k.copy(a.tile([&by * BM, &ko * BK]), &a_s);
//!     k.copy(b.tile([&ko * BK, &bx * BN]), &b_s);
//!     k.gemm(&a_s, &b_s, &acc);
//! });
//! k.copy(&acc, c.tile([&by * BM, &bx * BN]));
//! let kernel = k.build();
//! assert_eq!(kernel.symbols, ["M", "K", "N"]);
//! ```

mod blocks;
mod frame;

use std::cell::RefCell;

use crate::ir::{
    self, DType, Expr, ParamId, ReduceOp, Region, ScalarId, Scope, Stmt, Target, Tile, TileId, Var,
    VarKind,
};

/// Threadgroup index along x.
pub fn block_x() -> Expr {
    Expr::Var(Var { id: 0, kind: VarKind::Block(0) })
}
/// Threadgroup index along y.
pub fn block_y() -> Expr {
    Expr::Var(Var { id: 1, kind: VarKind::Block(1) })
}
/// Threadgroup index along z.
pub fn block_z() -> Expr {
    Expr::Var(Var { id: 2, kind: VarKind::Block(2) })
}

/// A handle to a global parameter.
#[derive(Clone, Copy, Debug)]
pub struct GlobalParam(pub ParamId);

impl GlobalParam {
    /// The tile-shaped window starting at `origin` (its extent comes from the other side of
    /// the copy).
    pub fn tile<const N: usize, E: Into<Expr>>(&self, origin: [E; N]) -> Region {
        self.tile_dyn(origin.into_iter().map(Into::into).collect())
    }
    /// The window starting at `origin` whose tile axes run along parameter `axes` (increasing;
    /// one per tile axis), one element deep along the others: a head's `[T, D]` keys of a
    /// token-major `K[T, H, D]` are `K.window([t0, h, 0], [0, 2])`, a head's `[S, D]` rows of
    /// `Q[B, H, S, D]` are `Q.window([b, h, s0, 0], [2, 3])`. A tile of lower rank than its
    /// parameter needs its axes named.
    pub fn window<const N: usize, const M: usize, E: Into<Expr>>(
        &self,
        origin: [E; N],
        axes: [usize; M],
    ) -> Region {
        Region::Global {
            param: self.0,
            origin: origin.into_iter().map(Into::into).collect(),
            axes: Some(axes.to_vec()),
        }
    }
    /// One element (zero when out of bounds).
    pub fn at<const N: usize, E: Into<Expr>>(&self, index: [E; N]) -> Expr {
        self.at_dyn(index.into_iter().map(Into::into).collect())
    }
    /// [`tile`](Self::tile) with a rank known only at run time.
    pub fn tile_dyn(&self, origin: Vec<Expr>) -> Region {
        Region::Global { param: self.0, origin, axes: None }
    }
    /// [`at`](Self::at) with a rank known only at run time.
    pub fn at_dyn(&self, index: Vec<Expr>) -> Expr {
        Expr::LoadParam(self.0, index)
    }
    /// Word `i` of a u8 or i8 parameter: its bytes `4i .. 4i + 4` (row-major over the whole
    /// parameter) as a u32, the first byte in the lowest bits; zero past the end. Packed
    /// quantized weights are read this way, a word per load, and taken apart with
    /// [`Expr::bits`], [`Expr::byte`] and [`Expr::nibble`].
    pub fn word(&self, i: impl Into<Expr>) -> Expr {
        Expr::LoadWord(self.0, Box::new(i.into()))
    }
}

/// A handle to a tile buffer.
#[derive(Clone, Copy, Debug)]
pub struct TileRef(pub TileId);

impl TileRef {
    /// One element.
    pub fn at<const N: usize, E: Into<Expr>>(&self, index: [E; N]) -> Expr {
        self.at_dyn(index.into_iter().map(Into::into).collect())
    }
    /// [`at`](Self::at) with a rank known only at run time.
    pub fn at_dyn(&self, index: Vec<Expr>) -> Expr {
        Expr::LoadTile(self.0, index)
    }
}

impl From<&TileRef> for Region {
    fn from(t: &TileRef) -> Region {
        Region::Tile { tile: t.0, stage: None }
    }
}
impl From<&TileRef> for Target {
    fn from(t: &TileRef) -> Target {
        Target::Tile(t.0)
    }
}
impl From<&GlobalParam> for Target {
    fn from(p: &GlobalParam) -> Target {
        Target::Param(p.0)
    }
}

struct State {
    kernel: ir::Kernel,
    frames: Vec<frame::Frame>,
    location: Option<String>,
    next_var: u32,
    next_let: usize,
}

/// Builds one kernel. Methods take `&self` so nested closures can keep using the builder.
pub struct Kernel {
    state: RefCell<State>,
}

impl Kernel {
    /// A kernel named `name` (its entry point), one threadgroup of 128 threads by default.
    pub fn new(name: &str) -> Kernel {
        Kernel {
            state: RefCell::new(State {
                kernel: ir::Kernel {
                    name: name.to_string(),
                    grid: vec![Expr::Int(1)],
                    threads: 128,
                    params: Vec::new(),
                    symbols: Vec::new(),
                    scalars: Vec::new(),
                    tiles: Vec::new(),
                    body: Vec::new(),
                    prefer_wgsl: None,
                },
                frames: vec![frame::Frame::body()],
                location: None,
                next_var: 3,
                next_let: 0,
            }),
        }
    }

    /// Threadgroups along x, y(, z): at most three entries (the verifier rejects more), u32
    /// expressions of symbols and constants.
    pub fn grid<const N: usize, E: Into<Expr>>(self, grid: [E; N]) -> Kernel {
        self.grid_dyn(grid.into_iter().map(Into::into).collect())
    }

    /// [`grid`](Self::grid) from a list (programs that build kernels of varying rank).
    pub fn grid_dyn(self, grid: Vec<Expr>) -> Kernel {
        self.state.borrow_mut().kernel.grid = grid;
        self
    }

    /// Runs the kernel as WGSL where the device would take the native back end's module,
    /// for the `reason` given (a measured one: the listing shows it).
    pub fn prefer_wgsl(self, reason: &str) -> Kernel {
        self.state.borrow_mut().kernel.prefer_wgsl = Some(reason.to_string());
        self
    }

    /// Threads per threadgroup.
    pub fn threads(self, threads: u32) -> Kernel {
        self.state.borrow_mut().kernel.threads = threads;
        self
    }

    fn add_param(
        &self,
        name: &str,
        dtype: DType,
        shape: Vec<Expr>,
        read_only: bool,
    ) -> GlobalParam {
        let mut st = self.state.borrow_mut();
        st.kernel.params.push(ir::Param { name: name.to_string(), dtype, shape, read_only });
        GlobalParam(ParamId(st.kernel.params.len() - 1))
    }

    /// A global tensor the kernel may read and write.
    pub fn param<const N: usize, E: Into<Expr>>(
        &self,
        name: &str,
        dtype: DType,
        shape: [E; N],
    ) -> GlobalParam {
        self.add_param(name, dtype, shape.into_iter().map(Into::into).collect(), false)
    }

    /// [`param`](Self::param) with a rank known only at run time.
    pub fn param_dyn(&self, name: &str, dtype: DType, shape: Vec<Expr>) -> GlobalParam {
        self.add_param(name, dtype, shape, false)
    }

    /// [`input`](Self::input) with a rank known only at run time.
    pub fn input_dyn(&self, name: &str, dtype: DType, shape: Vec<Expr>) -> GlobalParam {
        self.add_param(name, dtype, shape, true)
    }

    /// A scalar argument set at launch (f32, i32 or u32). A `u32` scalar is also a shape symbol:
    /// the returned expression is `sym(name)`, usable in grids, loop extents and shapes.
    pub fn scalar(&self, name: &str, dtype: DType) -> Expr {
        let mut st = self.state.borrow_mut();
        st.kernel.scalars.push(ir::ScalarParam { name: name.to_string(), dtype });
        if dtype == DType::U32 {
            Expr::Sym(name.to_string())
        } else {
            Expr::Scalar(ScalarId(st.kernel.scalars.len() - 1))
        }
    }

    /// A read-only global tensor; writing it is a verifier error.
    pub fn input<const N: usize, E: Into<Expr>>(
        &self,
        name: &str,
        dtype: DType,
        shape: [E; N],
    ) -> GlobalParam {
        self.add_param(name, dtype, shape.into_iter().map(Into::into).collect(), true)
    }

    fn add_tile(&self, name: Option<&str>, scope: Scope, dtype: DType, shape: &[u32]) -> TileRef {
        let mut st = self.state.borrow_mut();
        let n = st.kernel.tiles.len();
        let prefix = match scope {
            Scope::Shared => "shared",
            Scope::Fragment => "frag",
            Scope::Local => "local",
        };
        let name = name.map_or_else(|| format!("{prefix}{n}"), str::to_string);
        st.kernel.tiles.push(Tile { name, scope, dtype, shape: shape.to_vec(), stages: 1 });
        TileRef(TileId(n))
    }

    /// A threadgroup-memory tile.
    pub fn shared<const N: usize>(&self, dtype: DType, shape: [u32; N]) -> TileRef {
        self.add_tile(None, Scope::Shared, dtype, &shape)
    }
    /// A tile of `scope` with a rank known only at run time.
    pub fn tile_dyn(&self, scope: Scope, dtype: DType, shape: &[u32]) -> TileRef {
        self.add_tile(None, scope, dtype, shape)
    }
    /// A named tile of `scope` with a rank known only at run time (front ends name tiles
    /// after their variables).
    pub fn tile_named_dyn(&self, name: &str, scope: Scope, dtype: DType, shape: &[u32]) -> TileRef {
        self.add_tile(Some(name), scope, dtype, shape)
    }
    /// A threadgroup-memory tile with a name for messages and listings.
    pub fn shared_named<const N: usize>(
        &self,
        name: &str,
        dtype: DType,
        shape: [u32; N],
    ) -> TileRef {
        self.add_tile(Some(name), Scope::Shared, dtype, &shape)
    }
    /// A register tile distributed over the threadgroup.
    pub fn fragment<const N: usize>(&self, dtype: DType, shape: [u32; N]) -> TileRef {
        self.add_tile(None, Scope::Fragment, dtype, &shape)
    }
    /// A named fragment.
    pub fn fragment_named<const N: usize>(
        &self,
        name: &str,
        dtype: DType,
        shape: [u32; N],
    ) -> TileRef {
        self.add_tile(Some(name), Scope::Fragment, dtype, &shape)
    }
    /// A per-thread tile.
    pub fn local<const N: usize>(&self, dtype: DType, shape: [u32; N]) -> TileRef {
        self.add_tile(None, Scope::Local, dtype, &shape)
    }
    /// A named per-thread tile.
    pub fn local_named<const N: usize>(
        &self,
        name: &str,
        dtype: DType,
        shape: [u32; N],
    ) -> TileRef {
        self.add_tile(Some(name), Scope::Local, dtype, &shape)
    }

    /// Sets every element to zero (of the tile's type, so integer tiles clear too).
    pub fn clear(&self, tile: &TileRef) {
        let dtype = self.state.borrow().kernel.tiles.get(tile.0.0).map(|t| t.dtype);
        match dtype {
            Some(DType::U32) => self.fill(tile, 0u32),
            Some(DType::I32) => self.fill(tile, 0i32),
            _ => self.fill(tile, 0.0f32),
        }
    }

    /// Sets every element to `value`.
    pub fn fill(&self, tile: &TileRef, value: impl Into<Expr>) {
        self.push(Stmt::Fill { tile: tile.0, value: value.into() });
    }

    /// Copies between global windows and tiles of the same shape.
    pub fn copy(&self, src: impl Into<Region>, dst: impl Into<Region>) {
        self.push(Stmt::Copy { src: src.into(), dst: dst.into(), sync: true });
    }

    /// `c += a * b` with a `[M, K]` and b `[K, N]` shared tiles, c a `[M, N]` fragment.
    pub fn gemm(&self, a: &TileRef, b: &TileRef, c: &TileRef) {
        self.gemm_t(a, b, c, false, false);
    }

    /// `c += op(a) * op(b)`, with a stored `[K, M]` when `trans_a`, b stored `[N, K]` when
    /// `trans_b`.
    pub fn gemm_t(&self, a: &TileRef, b: &TileRef, c: &TileRef, trans_a: bool, trans_b: bool) {
        self.push(Stmt::Gemm { a: a.into(), b: b.into(), c: c.0, trans_a, trans_b });
    }

    /// `dst = op(src) along axis` (`Argmax`/`Argmin` give u32 indices). A fragment reduced
    /// along its last axis into a shared tile by a value operator is folded in registers first
    /// (see `emit --target ir`); other fragment reductions go through a shared copy.
    pub fn reduce(&self, op: ReduceOp, src: &TileRef, dst: &TileRef, axis: usize) {
        self.push(Stmt::Reduce { op, src: src.0, src_stage: None, dst: dst.0, axis, clear: true });
    }

    /// `dst = op(dst, op(src) along axis)`: accumulate across a loop (not for arg reductions).
    pub fn reduce_into(&self, op: ReduceOp, src: &TileRef, dst: &TileRef, axis: usize) {
        self.push(Stmt::Reduce { op, src: src.0, src_stage: None, dst: dst.0, axis, clear: false });
    }

    /// Inclusive prefix sum along `axis`: `dst[.., i, ..] = sum of src[.., 0..=i, ..]`.
    pub fn cumsum(&self, src: &TileRef, dst: &TileRef, axis: usize) {
        self.push(Stmt::Cumsum { src: src.0, dst: dst.0, axis });
    }

    /// `param[index] += value` atomically (inside `parallel`; i32 or u32 parameters). Every
    /// other access to that parameter becomes atomic too.
    pub fn atomic_add<const N: usize, E: Into<Expr>>(
        &self,
        param: &GlobalParam,
        index: [E; N],
        value: impl Into<Expr>,
    ) {
        self.push(Stmt::AtomicAdd {
            param: param.0,
            index: index.into_iter().map(Into::into).collect(),
            value: value.into(),
        });
    }

    /// [`store`](Self::store) with a rank known only at run time.
    pub fn store_dyn(&self, target: impl Into<Target>, index: Vec<Expr>, value: impl Into<Expr>) {
        self.push(Stmt::Store { target: target.into(), index, value: value.into() });
    }

    /// [`atomic_add`](Self::atomic_add) with a rank known only at run time.
    pub fn atomic_add_dyn(&self, param: &GlobalParam, index: Vec<Expr>, value: impl Into<Expr>) {
        self.push(Stmt::AtomicAdd { param: param.0, index, value: value.into() });
    }

    /// `let name = value` (inside `parallel`): `value` is evaluated once per element, and the
    /// returned expression reads it in the statements that follow in the same body.
    pub fn let_named(&self, name: &str, value: impl Into<Expr>) -> Expr {
        let id = {
            let mut st = self.state.borrow_mut();
            st.next_let += 1;
            crate::ir::LetId(st.next_let - 1)
        };
        self.push(Stmt::Let { id, name: name.to_string(), value: value.into() });
        Expr::Local(id)
    }

    /// `target[index] = value` (inside `parallel`).
    pub fn store<const N: usize, E: Into<Expr>>(
        &self,
        target: impl Into<Target>,
        index: [E; N],
        value: impl Into<Expr>,
    ) {
        self.push(Stmt::Store {
            target: target.into(),
            index: index.into_iter().map(Into::into).collect(),
            value: value.into(),
        });
    }

    /// Finishes the kernel, collecting its shape symbols in order of first appearance (parameter
    /// shapes, then the grid, then scalar arguments, then the body).
    pub fn build(self) -> ir::Kernel {
        self.build_located().0
    }
}

/// `Kernel` shorthands for one reduction operator each: `k.$name(src, dst, axis)` is
/// `k.$via(ReduceOp::$op, src, dst, axis)`.
macro_rules! reduce_shorthands {
    ($($(#[$doc:meta])* $name:ident => $via:ident($op:ident);)*) => {
        impl Kernel {
            $(
                $(#[$doc])*
                pub fn $name(&self, src: &TileRef, dst: &TileRef, axis: usize) {
                    self.$via(ReduceOp::$op, src, dst, axis);
                }
            )*
        }
    };
}

reduce_shorthands! {
        /// `dst = sum of src along axis`.
        reduce_sum => reduce(Sum);
        /// `dst = max of src along axis`.
        reduce_max => reduce(Max);
        /// `dst = min of src along axis`.
        reduce_min => reduce(Min);
        /// `dst = sum of |src| along axis`.
        reduce_abs_sum => reduce(AbsSum);
        /// `dst = sum of src * src along axis`.
        reduce_sq_sum => reduce(SqSum);
        /// `dst += sum of src * src along axis`.
        reduce_sq_sum_into => reduce_into(SqSum);
        /// `dst = index of the first maximum along axis` (dst is u32).
        reduce_argmax => reduce(Argmax);
        /// `dst = index of the first minimum along axis` (dst is u32).
        reduce_argmin => reduce(Argmin);
        /// `dst += sum of src along axis` (dst keeps its contents: accumulate across a loop).
        reduce_sum_into => reduce_into(Sum);
        /// `dst = max(dst, max of src along axis)`.
        reduce_max_into => reduce_into(Max);
}

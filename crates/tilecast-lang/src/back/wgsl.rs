//! The WGSL back end. It lowers each tile op to SIMT code as it goes:
//! - copies: one element per thread per step (masked at the parameter's bounds), four when the
//!   window is known to be whole 4-element runs (`vectorize`);
//! - gemm: per-thread register blocking following the accumulator's layout;
//! - reduce / parallel / fill: distributed over threads, or following a fragment's layout;
//! - barriers: before and after every statement that writes threadgroup memory (deduplicated),
//!   and where the pipelining pass placed them.

use std::collections::HashMap;
use std::fmt::Write;

use crate::ir::{
    BinOp, DType, Expr, Kernel, MathFn, ReduceOp, Region, Scope, Stmt, Target, TileId, Var,
    op_symbol, var_name,
};
use crate::passes::layout::{FragmentLayout, fragment_layout};
use crate::types::{Ty, type_of};
use crate::{Error, Result};

fn wgsl_type(d: DType) -> &'static str {
    match d {
        DType::F32 => "f32",
        DType::F16 => "f16",
        DType::I32 => "i32",
        DType::U32 => "u32",
        other => unreachable!("verifier rejects {other}"),
    }
}

/// WGSL for the first fragment row thread `tid` owns; it owns rows `row0 + i`, i < tm.
fn frag_row0(l: &FragmentLayout) -> String {
    format!("(tid / {}u) * {}u", l.thread_cols(), l.tm)
}

/// WGSL for the first fragment column thread `tid` owns; it owns `col0 + j * thread_cols`.
fn frag_col0(l: &FragmentLayout) -> String {
    format!("tid % {}u", l.thread_cols())
}

fn ident(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// Largest finite value of a float type (WGSL has no infinity literal).
fn lowest(d: DType) -> &'static str {
    match d {
        DType::F32 => "-3.40282347e38",
        DType::F16 => "-65504.0",
        DType::I32 => "-2147483647 - 1",
        _ => "0",
    }
}

struct Emitter<'a> {
    k: &'a Kernel,
    out: String,
    depth: usize,
    layouts: HashMap<usize, FragmentLayout>,
    /// The last line emitted was a barrier.
    fenced: bool,
    uses_erf: bool,
    counter: u32,
    /// Inside a parallel loop over a fragment: the slot expression of the current element.
    slot: Option<(Vec<Var>, String)>,
    /// Read-only parameters with a `vec4` view, and the view's binding.
    vec_views: HashMap<usize, u32>,
}

impl<'a> Emitter<'a> {
    fn line(&mut self, s: &str) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
        self.fenced = false;
    }

    fn barrier(&mut self) {
        if !self.fenced {
            self.line("workgroupBarrier();");
            self.fenced = true;
        }
    }

    /// A name for a generated variable. The leading underscore keeps it apart from IR
    /// variables (`bx`, `i4`, `p7`), which it could otherwise shadow.
    fn fresh(&mut self, base: &str) -> String {
        self.counter += 1;
        format!("_{base}{}", self.counter)
    }

    fn err(&self, op: &str, message: String) -> Error {
        Error::Verify { kernel: self.k.name.clone(), op: op.into(), message }
    }

    fn param_name(&self, p: usize) -> String {
        format!("g_{}", ident(&self.k.params[p].name))
    }

    fn tile_name(&self, t: usize) -> String {
        let tile = &self.k.tiles[t];
        let prefix = match tile.scope {
            Scope::Shared => "s_",
            Scope::Fragment => "f_",
            Scope::Local => "l_",
        };
        format!("{prefix}{}", ident(&tile.name))
    }

    fn lit(&self, v: f64, t: Ty) -> Result<String> {
        let out_of_range = match t.settle() {
            Ty::Num(DType::U32) => v < 0.0 || v > u32::MAX as f64 || v.fract() != 0.0,
            Ty::Num(DType::I32) => v < i32::MIN as f64 || v > i32::MAX as f64 || v.fract() != 0.0,
            _ => false,
        };
        if out_of_range {
            return Err(
                self.err("literal", format!("{v} does not fit {}", crate::types::name(t.settle())))
            );
        }
        Ok(match t.settle() {
            Ty::Num(DType::U32) => format!("{}u", v as u64),
            Ty::Num(DType::I32) => format!("{}i", v as i64),
            Ty::Num(d) => format!("{}({v:?})", wgsl_type(d)),
            _ => format!("{v:?}"),
        })
    }

    /// Emits `e` as a value of type `want` where `e` is a literal or adapts to it.
    fn expr(&mut self, e: &Expr, want: Ty) -> Result<String> {
        let k = self.k;
        let own = type_of(k, e).map_err(|m| self.err("expression", m))?;
        let t = if matches!(own, Ty::IntLit | Ty::FloatLit) { want } else { own };
        Ok(match e {
            Expr::Int(v) => self.lit(*v as f64, t)?,
            Expr::Float(v) => self.lit(*v, t)?,
            Expr::Sym(s) => format!("args.s_{}", ident(s)),
            Expr::Var(v) => var_name(*v),
            Expr::Bin(op, a, b) => {
                let ta = type_of(k, a).map_err(|m| self.err("expression", m))?;
                let tb = type_of(k, b).map_err(|m| self.err("expression", m))?;
                let operand = match (ta, tb) {
                    (Ty::IntLit | Ty::FloatLit, Ty::IntLit | Ty::FloatLit) => {
                        if matches!(
                            op,
                            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
                        ) {
                            if ta == Ty::FloatLit || tb == Ty::FloatLit {
                                Ty::FloatLit.settle()
                            } else {
                                Ty::IntLit.settle()
                            }
                        } else {
                            t
                        }
                    }
                    (Ty::IntLit | Ty::FloatLit, x) | (x, _) => x,
                };
                let (x, y) = (self.expr(a, operand)?, self.expr(b, operand)?);
                match op {
                    BinOp::Max | BinOp::Min => format!("{}({x}, {y})", op_symbol(*op)),
                    _ => format!("({x} {} {y})", op_symbol(*op)),
                }
            }
            Expr::Math(f, a) => {
                let x = self.expr(a, t)?;
                match f {
                    MathFn::Exp => format!("exp({x})"),
                    MathFn::Log => format!("log({x})"),
                    MathFn::Sqrt => format!("sqrt({x})"),
                    MathFn::Rsqrt => format!("inverseSqrt({x})"),
                    MathFn::Tanh => format!("tanh({x})"),
                    MathFn::Abs => format!("abs({x})"),
                    MathFn::Neg => format!("(-{x})"),
                    MathFn::Erf => {
                        self.uses_erf = true;
                        let ty = wgsl_type(t.dtype().unwrap_or(DType::F32));
                        format!("{ty}(tc_erf(f32({x})))")
                    }
                }
            }
            Expr::Select(c, a, b) => {
                let c = self.expr(c, Ty::Bool)?;
                let (x, y) = (self.expr(a, t)?, self.expr(b, t)?);
                format!("select({y}, {x}, {c})")
            }
            Expr::Cast(d, a) => {
                let inner = type_of(k, a).map_err(|m| self.err("expression", m))?.settle();
                format!("{}({})", wgsl_type(*d), self.expr(a, inner)?)
            }
            Expr::LoadTile(t, idx) => self.tile_element(t.0, idx, None)?,
            Expr::LoadParam(p, idx) => {
                let args: Vec<String> =
                    idx.iter().map(|i| self.expr(i, Ty::Num(DType::U32))).collect::<Result<_>>()?;
                format!("ld_{}({})", ident(&k.params[p.0].name), args.join(", "))
            }
        })
    }

    /// `name[linear index]` of a tile element (for a fragment: the current parallel slot).
    fn tile_element(&mut self, t: usize, idx: &[Expr], stage: Option<&Expr>) -> Result<String> {
        let tile = &self.k.tiles[t];
        let name = self.tile_name(t);
        if tile.scope == Scope::Fragment {
            let Some((vars, slot)) = &self.slot else {
                return Err(self.err(&format!("fragment {}", tile.name), "fragment elements are only addressable inside a parallel loop over the fragment".into()));
            };
            let same =
                idx.len() == vars.len() && idx.iter().zip(vars).all(|(e, v)| *e == Expr::Var(*v));
            if !same {
                return Err(self.err(&format!("fragment {}", tile.name), "a parallel loop may only touch a fragment at its own index (the thread that owns the element computes it)".into()));
            }
            return Ok(format!("{name}[{slot}]"));
        }
        let mut lin = String::new();
        for (i, e) in idx.iter().enumerate() {
            let x = self.expr(e, Ty::Num(DType::U32))?;
            lin = if i == 0 { x } else { format!("({lin}) * {}u + {x}", tile.shape[i]) };
        }
        if let Some(s) = stage {
            let s = self.expr(s, Ty::Num(DType::U32))?;
            lin = format!("({s}) * {}u + {lin}", tile.elements());
        }
        Ok(format!("{name}[{lin}]"))
    }

    fn layout(&self, t: TileId) -> FragmentLayout {
        self.layouts[&t.0]
    }

    /// Coordinates `c0..cn` of linear element `e` in `shape`, as `let` lines.
    fn coords(&mut self, e: &str, shape: &[u32], prefix: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut stride: u64 = shape.iter().map(|&d| d as u64).product();
        for (i, d) in shape.iter().enumerate() {
            stride /= *d as u64;
            let n = format!("{prefix}{i}");
            self.line(&format!("let {n} = ({e} / {stride}u) % {d}u;"));
            names.push(n);
        }
        names
    }

    fn stage_offset(&mut self, tile: usize, stage: &Option<Expr>) -> Result<String> {
        Ok(match stage {
            Some(s) => format!(
                "({}) * {}u + ",
                self.expr(s, Ty::Num(DType::U32))?,
                self.k.tiles[tile].elements()
            ),
            None => String::new(),
        })
    }

    fn writes_shared(&self, s: &Stmt) -> bool {
        let shared = |t: &TileId| self.k.tiles[t.0].scope == Scope::Shared;
        match s {
            Stmt::Copy { dst: Region::Tile { tile, .. }, sync, .. } => *sync && shared(tile),
            Stmt::Fill { tile, .. } => shared(tile),
            Stmt::Reduce { dst, .. } => shared(dst),
            Stmt::Parallel { body, .. } => body
                .iter()
                .any(|b| matches!(b, Stmt::Store { target: Target::Tile(t), .. } if shared(t))),
            _ => false,
        }
    }

    fn stmts(&mut self, body: &[Stmt]) -> Result<()> {
        for s in body {
            let fence = self.writes_shared(s);
            if fence {
                self.barrier();
            }
            self.stmt(s)?;
            if fence {
                self.barrier();
            }
        }
        Ok(())
    }

    /// Opens a loop over `n` elements: every thread takes every element of a per-thread
    /// (local) tile; otherwise threads take elements `tid, tid + T, ...`.
    fn open_elements(&mut self, var: &str, n: u64, per_thread: bool) {
        if per_thread {
            self.open(&format!("for (var {var} = 0u; {var} < {n}u; {var}++)"));
        } else {
            let t = self.k.threads;
            self.open(&format!("for (var {var} = tid; {var} < {n}u; {var} += {t}u)"));
        }
    }

    fn open(&mut self, head: &str) {
        self.line(&if head.is_empty() { "{".to_string() } else { format!("{head} {{") });
        self.depth += 1;
        self.fenced = false;
    }

    fn close(&mut self) {
        self.depth -= 1;
        self.line("}");
    }

    fn stmt(&mut self, s: &Stmt) -> Result<()> {
        let k = self.k;
        match s {
            Stmt::Barrier => self.barrier(),
            Stmt::Fill { tile, value } => {
                let t = &k.tiles[tile.0];
                let v = self.expr(value, Ty::Num(t.dtype))?;
                let name = self.tile_name(tile.0);
                let n = t.elements() * t.stages as u64;
                let e = self.fresh("e");
                match t.scope {
                    Scope::Shared => self.open_elements(&e, n, false),
                    Scope::Fragment => {
                        // Unrolled: constant register indices keep the fragment in registers.
                        for slot in 0..self.layout(*tile).per_thread() {
                            self.line(&format!("{name}[{slot}] = {v};"));
                        }
                        return Ok(());
                    }
                    Scope::Local => self.open_elements(&e, n, true),
                }
                self.line(&format!("{name}[{e}] = {v};"));
                self.close();
            }
            Stmt::Copy { src, dst, .. } => self.copy(src, dst)?,
            Stmt::Gemm { a, b, c, trans_a, trans_b } => self.gemm(a, b, *c, *trans_a, *trans_b)?,
            Stmt::Reduce { op, src, dst, axis, clear } => {
                self.reduce(*op, src.0, dst.0, *axis, *clear)?
            }
            Stmt::Parallel { extents, vars, body } => self.parallel(extents, vars, body)?,
            Stmt::Store { target, index, value } => {
                let dtype = match target {
                    Target::Tile(t) => k.tiles[t.0].dtype,
                    Target::Param(p) => k.params[p.0].dtype,
                };
                let v = self.expr(value, Ty::Num(dtype))?;
                match target {
                    Target::Tile(t) => {
                        let dst = self.tile_element(t.0, index, None)?;
                        self.line(&format!("{dst} = {v};"));
                    }
                    Target::Param(p) => {
                        let args: Vec<String> = index
                            .iter()
                            .map(|i| self.expr(i, Ty::Num(DType::U32)))
                            .collect::<Result<_>>()?;
                        self.line(&format!(
                            "st_{}({}, {v});",
                            ident(&k.params[p.0].name),
                            args.join(", ")
                        ));
                    }
                }
            }
            Stmt::For { var, extent, body } => {
                let n = self.expr(extent, Ty::Num(DType::U32))?;
                let v = var_name(*var);
                self.open(&format!("for (var {v} = 0u; {v} < {n}; {v}++)"));
                self.stmts(body)?;
                self.close();
            }
            Stmt::If { cond, then, otherwise } => {
                let c = self.expr(cond, Ty::Bool)?;
                self.open(&format!("if ({c})"));
                self.stmts(then)?;
                self.close();
                if !otherwise.is_empty() {
                    self.open("else");
                    self.stmts(otherwise)?;
                    self.close();
                }
            }
            Stmt::Pipelined { .. } => unreachable!("the pipelining pass lowers pipelined loops"),
        }
        Ok(())
    }

    fn copy(&mut self, src: &Region, dst: &Region) -> Result<()> {
        let k = self.k;
        match (src, dst) {
            (Region::Global { param, origin }, Region::Tile { tile, stage })
            | (Region::Tile { tile, stage }, Region::Global { param, origin })
                if matches!(src, Region::Global { .. })
                    || self.k.tiles[tile.0].scope == Scope::Fragment =>
            {
                let load = matches!(src, Region::Global { .. });
                let t = &k.tiles[tile.0];
                let pname = ident(&k.params[param.0].name);
                let org: Vec<String> = origin
                    .iter()
                    .map(|o| self.expr(o, Ty::Num(DType::U32)))
                    .collect::<Result<_>>()?;
                let tname = self.tile_name(tile.0);
                let (pd, td) = (k.params[param.0].dtype, t.dtype);
                if t.scope == Scope::Fragment {
                    // Unrolled: constant register indices keep the fragment in registers.
                    let l = self.layout(*tile);
                    self.open("");
                    self.line(&format!("let r = {};", frag_row0(&l)));
                    self.line(&format!("let c = {};", frag_col0(&l)));
                    for i in 0..l.tm {
                        for j in 0..l.tn {
                            let (row, col) =
                                (format!("r + {i}u"), format!("c + {}u", j * l.thread_cols()));
                            let coords = if t.shape.len() == 1 {
                                format!("{} + {col}", org[0])
                            } else {
                                format!("{} + {row}, {} + {col}", org[0], org[1])
                            };
                            let slot = format!("{tname}[{}]", i * l.tn + j);
                            if load {
                                self.line(&format!(
                                    "{slot} = {}(ld_{pname}({coords}));",
                                    wgsl_type(td)
                                ));
                            } else {
                                self.line(&format!(
                                    "st_{pname}({coords}, {}({slot}));",
                                    wgsl_type(pd)
                                ));
                            }
                        }
                    }
                    self.close();
                    return Ok(());
                }
                let off = self.stage_offset(tile.0, stage)?;
                let inner = *t.shape.last().expect("tiles have a rank");
                if load && inner.is_multiple_of(4) && self.vec_views.contains_key(&param.0) {
                    let rank = t.shape.len();
                    let row_len =
                        self.expr(&k.params[param.0].shape[rank - 1], Ty::Num(DType::U32))?;
                    self.open(&format!(
                        "if ({row_len} % 4u == 0u && ({}) % 4u == 0u)",
                        org[rank - 1]
                    ));
                    let e = self.fresh("e");
                    self.open_elements(&e, t.elements() / 4, t.scope == Scope::Local);
                    let first = format!("{e} * 4u");
                    let c = self.coords(&first, &t.shape, "c");
                    let coords: Vec<String> =
                        org.iter().zip(&c).map(|(o, c)| format!("{o} + {c}")).collect();
                    self.line(&format!("let v = ldv_{pname}({});", coords.join(", ")));
                    for (lane, comp) in ["x", "y", "z", "w"].iter().enumerate() {
                        self.line(&format!(
                            "{tname}[{off}{first} + {lane}u] = {}(v.{comp});",
                            wgsl_type(td)
                        ));
                    }
                    self.close();
                    self.close();
                    self.open("else");
                    self.scalar_copy(tile.0, &off, &org, &pname, td);
                    self.close();
                    return Ok(());
                }
                self.scalar_copy(tile.0, &off, &org, &pname, td);
                return Ok(());
            }
            (Region::Tile { tile, stage }, Region::Global { param, origin })
                if self.k.tiles[tile.0].scope != Scope::Fragment =>
            {
                let t = &k.tiles[tile.0];
                let pname = ident(&k.params[param.0].name);
                let org: Vec<String> = origin
                    .iter()
                    .map(|o| self.expr(o, Ty::Num(DType::U32)))
                    .collect::<Result<_>>()?;
                let tname = self.tile_name(tile.0);
                let pd = k.params[param.0].dtype;
                let off = self.stage_offset(tile.0, stage)?;
                let e = self.fresh("e");
                let n = t.elements();
                self.open_elements(&e, n, t.scope == Scope::Local);
                let c = self.coords(&e, &t.shape, "c");
                let coords: Vec<String> =
                    org.iter().zip(&c).map(|(o, c)| format!("{o} + {c}")).collect();
                self.line(&format!(
                    "st_{pname}({}, {}({tname}[{off}{e}]));",
                    coords.join(", "),
                    wgsl_type(pd)
                ));
                self.close();
            }
            (Region::Tile { tile: s, stage: ss }, Region::Tile { tile: d, stage: ds }) => {
                let (st, dt) = (&k.tiles[s.0], &k.tiles[d.0]);
                let (sn, dn) = (self.tile_name(s.0), self.tile_name(d.0));
                let (so, doff) = (self.stage_offset(s.0, ss)?, self.stage_offset(d.0, ds)?);
                let ty = wgsl_type(dt.dtype);
                if st.scope == Scope::Fragment || dt.scope == Scope::Fragment {
                    let frag = if st.scope == Scope::Fragment { *s } else { *d };
                    let l = self.layout(frag);
                    let (i, j) = (self.fresh("i"), self.fresh("j"));
                    self.open(&format!("for (var {i} = 0u; {i} < {}u; {i}++)", l.tm));
                    self.open(&format!("for (var {j} = 0u; {j} < {}u; {j}++)", l.tn));
                    self.line(&format!(
                        "let lin = ({} + {i}) * {}u + {} + {j} * {}u;",
                        frag_row0(&l),
                        l.cols,
                        frag_col0(&l),
                        l.thread_cols()
                    ));
                    let slot = format!("{i} * {}u + {j}", l.tn);
                    let (from, to) =
                        match (st.scope == Scope::Fragment, dt.scope == Scope::Fragment) {
                            (true, true) => (format!("{sn}[{slot}]"), format!("{dn}[{slot}]")),
                            (true, false) => (format!("{sn}[{slot}]"), format!("{dn}[{doff}lin]")),
                            _ => (format!("{sn}[{so}lin]"), format!("{dn}[{slot}]")),
                        };
                    self.line(&format!("{to} = {ty}({from});"));
                    self.close();
                    self.close();
                } else {
                    let e = self.fresh("e");
                    self.open_elements(&e, st.elements(), false);
                    self.line(&format!("{dn}[{doff}{e}] = {ty}({sn}[{so}{e}]);"));
                    self.close();
                }
            }
            _ => unreachable!("verifier rejects global to global copies"),
        }
        Ok(())
    }

    /// One element per thread per step, masked at the parameter's bounds.
    fn scalar_copy(&mut self, tile: usize, off: &str, org: &[String], pname: &str, td: DType) {
        let t = &self.k.tiles[tile];
        let tname = self.tile_name(tile);
        let e = self.fresh("e");
        let n = t.elements();
        self.open_elements(&e, n, t.scope == Scope::Local);
        let shape = t.shape.clone();
        let c = self.coords(&e, &shape, "c");
        let coords: Vec<String> = org.iter().zip(&c).map(|(o, c)| format!("{o} + {c}")).collect();
        self.line(&format!(
            "{tname}[{off}{e}] = {}(ld_{pname}({}));",
            wgsl_type(td),
            coords.join(", ")
        ));
        self.close();
    }

    fn gemm(&mut self, a: &Region, b: &Region, c: TileId, ta: bool, tb: bool) -> Result<()> {
        let k = self.k;
        let (Region::Tile { tile: at, stage: ast }, Region::Tile { tile: bt, stage: bst }) = (a, b)
        else {
            unreachable!("verifier requires shared operands")
        };
        let l = self.layout(c);
        let acc = k.tiles[c.0].dtype;
        let accty = wgsl_type(acc);
        let a_t = &k.tiles[at.0];
        let kdim = if ta { a_t.shape[0] } else { a_t.shape[1] };
        let (m, n) = (l.rows, l.cols);
        let (an, bn, cn) = (self.tile_name(at.0), self.tile_name(bt.0), self.tile_name(c.0));
        let (ao, bo) = (self.stage_offset(at.0, ast)?, self.stage_offset(bt.0, bst)?);
        let tc = l.thread_cols();
        let kk = self.fresh("kk");
        self.open("");
        self.line(&format!("let tr = {};", frag_row0(&l)));
        self.line(&format!("let tcol = {};", frag_col0(&l)));
        self.open(&format!("for (var {kk} = 0u; {kk} < {kdim}u; {kk}++)"));
        for i in 0..l.tm {
            let idx = if ta {
                format!("{kk} * {m}u + tr + {i}u")
            } else {
                format!("(tr + {i}u) * {kdim}u + {kk}")
            };
            self.line(&format!("let a{i} = {accty}({an}[{ao}{idx}]);"));
        }
        for j in 0..l.tn {
            let col = format!("tcol + {}u", j * tc);
            let idx = if tb {
                format!("({col}) * {kdim}u + {kk}")
            } else {
                format!("{kk} * {n}u + {col}")
            };
            self.line(&format!("let b{j} = {accty}({bn}[{bo}{idx}]);"));
        }
        for i in 0..l.tm {
            for j in 0..l.tn {
                let s = i * l.tn + j;
                self.line(&format!("{cn}[{s}] = fma(a{i}, b{j}, {cn}[{s}]);"));
            }
        }
        self.close();
        self.close();
        Ok(())
    }

    fn reduce(
        &mut self,
        op: ReduceOp,
        src: usize,
        dst: usize,
        axis: usize,
        clear: bool,
    ) -> Result<()> {
        let k = self.k;
        let (s, d) = (&k.tiles[src], &k.tiles[dst]);
        let (sn, dn) = (self.tile_name(src), self.tile_name(dst));
        let ty = wgsl_type(s.dtype);
        let outs = d.elements();
        let o = self.fresh("o");
        self.open_elements(&o, outs, s.scope == Scope::Local);
        let mut out_shape = s.shape.clone();
        out_shape.remove(axis);
        let oc = if out_shape.is_empty() { Vec::new() } else { self.coords(&o, &out_shape, "q") };
        let init = match (clear, op) {
            (false, _) => format!("{dn}[{o}]"),
            (true, ReduceOp::Sum) => format!("{ty}(0)"),
            (true, ReduceOp::Max) => format!("{ty}({})", lowest(s.dtype)),
        };
        self.line(&format!("var acc = {init};"));
        let r = self.fresh("r");
        self.open(&format!("for (var {r} = 0u; {r} < {}u; {r}++)", s.shape[axis]));
        let mut lin = String::new();
        let mut q = oc.iter();
        for (i, dim) in s.shape.iter().enumerate() {
            let c = if i == axis {
                r.clone()
            } else {
                q.next().expect("one coordinate per kept axis").clone()
            };
            lin = if i == 0 { c } else { format!("({lin}) * {dim}u + {c}") };
        }
        let v = format!("{sn}[{lin}]");
        self.line(&match op {
            ReduceOp::Sum => format!("acc = acc + {v};"),
            ReduceOp::Max => format!("acc = max(acc, {v});"),
        });
        self.close();
        self.line(&format!("{dn}[{o}] = acc;"));
        self.close();
        Ok(())
    }

    fn parallel(&mut self, extents: &[u32], vars: &[Var], body: &[Stmt]) -> Result<()> {
        let k = self.k;
        let mut frag = None;
        let mut local = false;
        for s in body {
            if let Stmt::Store { target: Target::Tile(t), value, .. } = s {
                match k.tiles[t.0].scope {
                    Scope::Fragment => frag = Some(*t),
                    Scope::Local => local = true,
                    Scope::Shared => {}
                }
                if frag.is_none() {
                    frag = first_fragment(k, value);
                }
            } else if let Stmt::Store { value, .. } = s
                && frag.is_none()
            {
                frag = first_fragment(k, value);
            }
        }
        if let Some(f) = frag {
            let l = self.layout(f);
            let (i, j) = (self.fresh("i"), self.fresh("j"));
            self.open(&format!("for (var {i} = 0u; {i} < {}u; {i}++)", l.tm));
            self.open(&format!("for (var {j} = 0u; {j} < {}u; {j}++)", l.tn));
            let tc = l.thread_cols();
            if vars.len() == 2 {
                self.line(&format!("let {} = {} + {i};", var_name(vars[0]), frag_row0(&l)));
                self.line(&format!("let {} = {} + {j} * {tc}u;", var_name(vars[1]), frag_col0(&l)));
            } else {
                self.line(&format!("let {} = {} + {j} * {tc}u;", var_name(vars[0]), frag_col0(&l)));
            }
            self.slot = Some((vars.to_vec(), format!("{i} * {}u + {j}", l.tn)));
            let r = self.stmts(body);
            self.slot = None;
            r?;
            self.close();
            self.close();
            return Ok(());
        }
        let n: u64 = extents.iter().map(|&e| e as u64).product();
        let e = self.fresh("e");
        self.open_elements(&e, n, local);
        let names = self.coords(&e, extents, "v");
        for (v, c) in vars.iter().zip(names) {
            self.line(&format!("let {} = {c};", var_name(*v)));
        }
        self.stmts(body)?;
        self.close();
        Ok(())
    }
}

fn first_fragment(k: &Kernel, e: &Expr) -> Option<TileId> {
    match e {
        Expr::LoadTile(t, _) if k.tiles[t.0].scope == Scope::Fragment => Some(*t),
        _ => e.children().into_iter().find_map(|c| first_fragment(k, c)),
    }
}

const ERF: &str = "// erf by Abramowitz & Stegun 7.1.26 (max error 1.5e-7).
fn tc_erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.3275911 * abs(x));
    let y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-x * x);
    return select(-y, y, x >= 0.0);
}
";

/// Read-only f32/f16 parameters loaded into tiles whose rows are whole 4-element runs: they get a
/// second, `vec4` view so such copies move 16 (or 8) bytes per load when the launch's shapes
/// allow it (checked in the shader, uniformly, before each copy).
fn vector_views(k: &Kernel) -> Vec<(u32, usize)> {
    fn loads(body: &[Stmt], k: &Kernel, out: &mut Vec<usize>) {
        for s in body {
            match s {
                Stmt::Copy {
                    src: Region::Global { param, .. },
                    dst: Region::Tile { tile, .. },
                    ..
                } => {
                    let t = &k.tiles[tile.0];
                    let p = &k.params[param.0];
                    if t.scope != Scope::Fragment
                        && t.shape.last().is_some_and(|d| d % 4 == 0)
                        && p.read_only
                        && matches!(p.dtype, DType::F32 | DType::F16)
                        && !out.contains(&param.0)
                    {
                        out.push(param.0);
                    }
                }
                Stmt::For { body, .. } | Stmt::Pipelined { body, .. } => loads(body, k, out),
                Stmt::If { then, otherwise, .. } => {
                    loads(then, k, out);
                    loads(otherwise, k, out);
                }
                _ => {}
            }
        }
    }
    let mut params = Vec::new();
    loads(&k.body, k, &mut params);
    params.sort();
    params.into_iter().enumerate().map(|(i, p)| ((k.params.len() + i) as u32, p)).collect()
}

/// Emits WGSL for a verified, lowered kernel, and the `vec4` views it binds (binding, param).
pub fn emit(k: &Kernel) -> Result<(String, Vec<(u32, usize)>)> {
    let views = vector_views(k);
    let vec_views: HashMap<usize, u32> = views.iter().map(|&(b, p)| (p, b)).collect();
    let mut layouts = HashMap::new();
    for (i, t) in k.tiles.iter().enumerate() {
        if t.scope == Scope::Fragment {
            let l = fragment_layout(t, k.threads).map_err(|m| Error::Verify {
                kernel: k.name.clone(),
                op: format!("fragment {}", t.name),
                message: m,
            })?;
            layouts.insert(i, l);
        }
    }
    let mut em = Emitter {
        k,
        out: String::new(),
        depth: 1,
        layouts,
        fenced: false,
        uses_erf: false,
        counter: 0,
        slot: None,
        vec_views: vec_views.clone(),
    };
    em.line("let bx = wg.x;");
    em.line("let by = wg.y;");
    em.line("let bz = wg.z;");
    for (i, t) in k.tiles.iter().enumerate() {
        let n = match t.scope {
            Scope::Fragment => em.layouts[&i].per_thread() as u64,
            Scope::Local => t.elements(),
            Scope::Shared => continue,
        };
        em.line(&format!("var {}: array<{}, {n}>;", em.tile_name(i), wgsl_type(t.dtype)));
    }
    em.stmts(&k.body)?;
    let body = std::mem::take(&mut em.out);

    let mut out = String::new();
    let uses_f16 = k.params.iter().any(|p| p.dtype == DType::F16)
        || k.tiles.iter().any(|t| t.dtype == DType::F16);
    let _ = writeln!(out, "// tilecast kernel {:?}: {} threads per threadgroup", k.name, k.threads);
    if uses_f16 {
        out.push_str("enable f16;\n");
    }
    out.push('\n');
    if !k.symbols.is_empty() {
        out.push_str("struct Args {\n");
        for s in &k.symbols {
            let _ = writeln!(out, "    s_{}: u32,", ident(s));
        }
        out.push_str("}\nvar<immediate> args: Args;\n\n");
    }
    let mut scratch = Emitter {
        k,
        out: String::new(),
        depth: 0,
        layouts: HashMap::new(),
        fenced: false,
        uses_erf: false,
        counter: 0,
        slot: None,
        vec_views: HashMap::new(),
    };
    for (i, p) in k.params.iter().enumerate() {
        let access = if p.read_only || !writes_param(&k.body, i) { "read" } else { "read_write" };
        let _ = writeln!(
            out,
            "@group(0) @binding({i}) var<storage, {access}> {}: array<{}>;",
            scratch.param_name(i),
            wgsl_type(p.dtype)
        );
    }
    for &(binding, p) in &views {
        let _ = writeln!(
            out,
            "@group(0) @binding({binding}) var<storage, read> v_{}: array<vec4<{}>>;",
            ident(&k.params[p].name),
            wgsl_type(k.params[p].dtype)
        );
    }
    for (i, t) in k.tiles.iter().enumerate() {
        if t.scope == Scope::Shared {
            let _ = writeln!(
                out,
                "var<workgroup> {}: array<{}, {}>;",
                scratch.tile_name(i),
                wgsl_type(t.dtype),
                t.elements() * t.stages as u64
            );
        }
    }
    out.push('\n');
    for (i, p) in k.params.iter().enumerate() {
        let name = ident(&p.name);
        let ty = wgsl_type(p.dtype);
        let dims: Vec<String> =
            p.shape.iter().map(|d| scratch.expr(d, Ty::Num(DType::U32))).collect::<Result<_>>()?;
        let idx: Vec<String> = (0..dims.len()).map(|d| format!("i{d}: u32")).collect();
        let inb: Vec<String> =
            dims.iter().enumerate().map(|(d, n)| format!("i{d} < {n}")).collect();
        let mut lin = String::new();
        for (d, n) in dims.iter().enumerate() {
            lin = if d == 0 { "i0".into() } else { format!("({lin}) * {n} + i{d}") };
        }
        let g = scratch.param_name(i);
        let _ = writeln!(
            out,
            "fn ld_{name}({}) -> {ty} {{\n    if ({}) {{ return {g}[{lin}]; }}\n    return {ty}(0);\n}}",
            idx.join(", "),
            inb.join(" && ")
        );
        if vec_views.contains_key(&i) {
            // Callers guarantee the last index is a multiple of 4 and the row length is too, so
            // a vector lies wholly inside the row or wholly outside it.
            let _ = writeln!(
                out,
                "fn ldv_{name}({}) -> vec4<{ty}> {{\n    if ({}) {{ return v_{name}[({lin}) / 4u]; }}\n    return vec4<{ty}>(0);\n}}",
                idx.join(", "),
                inb.join(" && ")
            );
        }
        if writes_param(&k.body, i) {
            let _ = writeln!(
                out,
                "fn st_{name}({}, v: {ty}) {{\n    if ({}) {{ {g}[{lin}] = v; }}\n}}",
                idx.join(", "),
                inb.join(" && ")
            );
        }
    }
    if em.uses_erf || scratch.uses_erf {
        out.push_str(ERF);
    }
    let _ = writeln!(
        out,
        "\n@compute @workgroup_size({})\nfn {}(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {{",
        k.threads,
        ident(&k.name)
    );
    out.push_str(&body);
    out.push_str("}\n");
    Ok((out, views))
}

fn writes_param(body: &[Stmt], p: usize) -> bool {
    body.iter().any(|s| match s {
        Stmt::Copy { dst: Region::Global { param, .. }, .. } => param.0 == p,
        Stmt::Store { target: Target::Param(q), .. } => q.0 == p,
        Stmt::Parallel { body, .. } | Stmt::For { body, .. } | Stmt::Pipelined { body, .. } => {
            writes_param(body, p)
        }
        Stmt::If { then, otherwise, .. } => writes_param(then, p) || writes_param(otherwise, p),
        _ => false,
    })
}

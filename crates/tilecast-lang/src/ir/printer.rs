//! A readable text form of the IR (`tilecast emit --target ir`).

use std::fmt::{self, Write};

use super::{BinOp, Expr, Kernel, MathFn, Region, Scope, Stmt, Target, Var, VarKind};

/// The name a variable prints (and is emitted) as.
pub fn var_name(v: Var) -> String {
    match v.kind {
        VarKind::Block(a) => ["bx", "by", "bz"][a as usize].to_string(),
        VarKind::Loop => format!("i{}", v.id),
        VarKind::Parallel => format!("p{}", v.id),
        VarKind::Thread => "tid".to_string(),
    }
}

/// The operator's symbol (`max`/`min` for the two-argument functions), shared with the WGSL
/// back end, whose operators are spelled the same.
/// The listings' spelling of `a op b` (max, min and pow as calls), shared by the IR as written
/// and the lowered form.
pub(crate) fn bin_text(op: BinOp, a: String, b: String) -> String {
    match op {
        BinOp::Max | BinOp::Min | BinOp::Pow | BinOp::Dot4I8 => call_text(op_symbol(op), [a, b]),
        _ => format!("({a} {} {b})", op_symbol(op)),
    }
}

/// The listings' spelling of math function `f` of `a`.
pub(crate) fn math_text(f: MathFn, a: String) -> String {
    match f {
        MathFn::Neg => format!("-{a}"),
        _ => call_text(&format!("{f:?}").to_lowercase(), [a]),
    }
}

/// `name(args, ..)`.
pub(crate) fn call_text<const N: usize>(name: &str, args: [String; N]) -> String {
    format!("{name}({})", args.join(", "))
}

pub fn op_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::And => "&&",
        BinOp::Or => "||",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Max => "max",
        BinOp::Min => "min",
        BinOp::Pow => "pow",
        BinOp::Dot4I8 => "dot4I8Packed",
    }
}

impl Kernel {
    /// Prints an expression with this kernel's names.
    pub fn expr_text(&self, e: &Expr) -> String {
        match e {
            Expr::Int(v) => v.to_string(),
            Expr::Float(v) => format!("{v:?}"),
            Expr::Sym(s) => s.clone(),
            Expr::Scalar(a) => match self.scalars.get(a.0) {
                Some(p) => p.name.clone(),
                None => format!("scalar#{}", a.0),
            },
            Expr::Var(v) => var_name(*v),
            Expr::Local(id) => {
                super::visit::let_def(self, *id).map_or(format!("let#{}", id.0), |(n, _)| n.into())
            }
            Expr::Bin(op, a, b) => bin_text(*op, self.expr_text(a), self.expr_text(b)),
            Expr::Math(f, a) => math_text(*f, self.expr_text(a)),
            Expr::Select(c, a, b) => {
                call_text("select", [self.expr_text(c), self.expr_text(a), self.expr_text(b)])
            }
            Expr::Fma(a, b, c) => {
                call_text("fma", [self.expr_text(a), self.expr_text(b), self.expr_text(c)])
            }
            Expr::Cast(t, a) => format!("{t}({})", self.expr_text(a)),
            Expr::Bitcast(t, a) => format!("bitcast<{t}>({})", self.expr_text(a)),
            Expr::LoadTile(t, idx) => format!("{}[{}]", self.tile_label(t.0), self.list(idx)),
            Expr::LoadParam(p, idx) => format!("{}[{}]", self.param_label(p.0), self.list(idx)),
            Expr::LoadWord(p, i) => {
                format!("{}.word({})", self.param_label(p.0), self.expr_text(i))
            }
            Expr::Invalid { op, .. } => format!("<invalid {op}>"),
        }
    }

    /// A tile's name, or a placeholder for an id this kernel does not have.
    pub fn tile_label(&self, t: usize) -> String {
        self.tiles.get(t).map_or_else(|| format!("tile#{t}"), |x| x.name.clone())
    }

    /// A parameter's name, or a placeholder for an id this kernel does not have.
    pub fn param_label(&self, p: usize) -> String {
        self.params.get(p).map_or_else(|| format!("param#{p}"), |x| x.name.clone())
    }

    fn list(&self, es: &[Expr]) -> String {
        es.iter().map(|e| self.expr_text(e)).collect::<Vec<_>>().join(", ")
    }

    fn region_text(&self, r: &Region) -> String {
        match r {
            Region::Global { param, origin, axes: None } => {
                format!("{}[{} ..]", self.param_label(param.0), self.list(origin))
            }
            Region::Global { param, origin, axes: Some(axes) } => {
                let axes = axes.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ");
                format!("{}[{} ..; axes {axes}]", self.param_label(param.0), self.list(origin))
            }
            Region::Tile { tile, stage } => self.staged(tile.0, stage.as_ref()),
        }
    }

    fn staged(&self, tile: usize, stage: Option<&Expr>) -> String {
        match stage {
            None => self.tile_label(tile),
            Some(s) => format!("{}<stage {}>", self.tile_label(tile), self.expr_text(s)),
        }
    }

    fn stmts(&self, out: &mut String, body: &[Stmt], depth: usize) -> fmt::Result {
        let pad = "  ".repeat(depth);
        for s in body {
            match s {
                Stmt::Let { name, value, .. } => {
                    writeln!(out, "{pad}let {name} = {}", self.expr_text(value))?
                }
                Stmt::Copy { src, dst, sync } => writeln!(
                    out,
                    "{pad}copy {} -> {}{}",
                    self.region_text(src),
                    self.region_text(dst),
                    if *sync { "" } else { "  (async)" }
                )?,
                Stmt::Fill { tile, value } => writeln!(
                    out,
                    "{pad}fill {} = {}",
                    self.tile_label(tile.0),
                    self.expr_text(value)
                )?,
                Stmt::Gemm { a, b, c, trans_a, trans_b } => writeln!(
                    out,
                    "{pad}gemm {}{} x {}{} += {}",
                    self.region_text(a),
                    if *trans_a { "^T" } else { "" },
                    self.region_text(b),
                    if *trans_b { "^T" } else { "" },
                    self.tile_label(c.0)
                )?,
                Stmt::Reduce { op, src, src_stage, dst, axis, clear } => writeln!(
                    out,
                    "{pad}reduce_{} {} axis {axis} -> {}{}",
                    format!("{op:?}").to_lowercase(),
                    self.staged(src.0, src_stage.as_ref()),
                    self.tile_label(dst.0),
                    if *clear { "" } else { " (accumulate)" }
                )?,
                Stmt::Cumsum { src, dst, axis } => writeln!(
                    out,
                    "{pad}cumsum {} axis {axis} -> {}",
                    self.tile_label(src.0),
                    self.tile_label(dst.0)
                )?,
                Stmt::AtomicAdd { param, index, value } => writeln!(
                    out,
                    "{pad}atomic {}[{}] += {}",
                    self.param_label(param.0),
                    self.list(index),
                    self.expr_text(value)
                )?,
                Stmt::Parallel { extents, vars, body } => {
                    let ix: Vec<_> = vars
                        .iter()
                        .zip(extents)
                        .map(|(v, e)| format!("{} < {e}", var_name(*v)))
                        .collect();
                    writeln!(out, "{pad}parallel {}:", ix.join(", "))?;
                    self.stmts(out, body, depth + 1)?;
                }
                Stmt::Store { target, index, value } => {
                    let name = match target {
                        Target::Tile(t) => self.tile_label(t.0),
                        Target::Param(p) => self.param_label(p.0),
                    };
                    writeln!(out, "{pad}{name}[{}] = {}", self.list(index), self.expr_text(value))?
                }
                Stmt::For { var, extent, body } => {
                    writeln!(out, "{pad}for {} in 0..{}:", var_name(*var), self.expr_text(extent))?;
                    self.stmts(out, body, depth + 1)?;
                }
                Stmt::Pipelined { var, extent, stages, body } => {
                    writeln!(
                        out,
                        "{pad}pipelined {} in 0..{} stages {stages}:",
                        var_name(*var),
                        self.expr_text(extent)
                    )?;
                    self.stmts(out, body, depth + 1)?;
                }
                Stmt::If { cond, then, otherwise } => {
                    writeln!(out, "{pad}if {}:", self.expr_text(cond))?;
                    self.stmts(out, then, depth + 1)?;
                    if !otherwise.is_empty() {
                        writeln!(out, "{pad}else:")?;
                        self.stmts(out, otherwise, depth + 1)?;
                    }
                }
                Stmt::Barrier => writeln!(out, "{pad}barrier")?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<_> = self
            .params
            .iter()
            .map(|p| {
                format!(
                    "{}: {}[{}]{}",
                    p.name,
                    p.dtype,
                    self.list(&p.shape),
                    if p.read_only { " in" } else { "" }
                )
            })
            .collect();
        let mut out = String::new();
        let scalars: Vec<_> =
            self.scalars.iter().map(|s| format!("{}: {}", s.name, s.dtype)).collect();
        let all: Vec<String> = params.into_iter().chain(scalars).collect();
        writeln!(out, "kernel {}({})", self.name, all.join(", "))?;
        writeln!(out, "  grid [{}] threads {}", self.list(&self.grid), self.threads)?;
        if let Some(why) = &self.prefer_wgsl {
            writeln!(out, "  runs as WGSL: {why}")?;
        }
        for t in &self.tiles {
            let scope = match t.scope {
                Scope::Shared => "shared",
                Scope::Fragment => "fragment",
                Scope::Local => "local",
            };
            let dims: Vec<_> = t.shape.iter().map(u32::to_string).collect();
            let stages =
                if t.stages > 1 { format!(" x{} stages", t.stages) } else { String::new() };
            writeln!(out, "  {scope} {}: {}[{}]{stages}", t.name, t.dtype, dims.join(", "))?;
        }
        self.stmts(&mut out, &self.body, 1)?;
        f.write_str(&out)
    }
}

//! The text form of a lowered kernel (`tilecast emit --target ir`, "after passes"): the program
//! with every decision the passes made written next to the op it governs.

use std::fmt::{self, Write};

use super::load::WindowLoad;
use super::{
    Bounds, CopyPlan, Dist, ETy, ElemRef, FragmentLayout, GemmLowering, Lowered, MatrixRole, Op,
    ParamAccess, ParamIx, Reduce, ReduceStrategy, RegisterReduction, TExpr, TKind, TileElem,
    TileIx, TileSlot, TileStorage, reduce_name,
};
use crate::ir::{BinOp, Scope, bin_text, call_text, math_text, op_symbol, var_name};

impl Lowered {
    /// An expression in the listing's notation (`?` marks a bounds-checked tile index).
    pub fn expr_text(&self, e: &TExpr) -> String {
        match &e.kind {
            TKind::Lit(v) => match e.ty {
                ETy::Num(crate::ir::DType::U32) => format!("{v}"),
                ETy::Num(d @ crate::ir::DType::I32) => format!("{v}{d}"),
                ETy::Num(_) if v.is_infinite() => if *v > 0.0 { "inf" } else { "-inf" }.into(),
                ETy::Num(d) => format!("{:?}{d}", *v as f32),
                ETy::Bool => format!("{}", *v != 0.0),
            },
            TKind::Sym(i) => self.symbols[*i].name.clone(),
            TKind::Scalar(i) => self.scalars[*i].named.name.clone(),
            TKind::Var(v) => var_name(*v),
            TKind::Local(_, name) => name.clone(),
            TKind::Bin(op, a, b) => bin_text(*op, self.expr_text(a), self.expr_text(b)),
            TKind::Math(f, a) => math_text(*f, self.expr_text(a)),
            TKind::Fma(a, b, c) => {
                call_text("fma", [self.expr_text(a), self.expr_text(b), self.expr_text(c)])
            }
            TKind::Select(c, a, b) => {
                call_text("select", [self.expr_text(c), self.expr_text(a), self.expr_text(b)])
            }
            TKind::ParamLane(p, idx, tests, lane) => {
                format!("{}.lane{lane}", self.param_text(*p, idx, tests))
            }
            TKind::HalfBits(a) => format!("f32(bitcast<f16>({}))", self.expr_text(a)),
            TKind::Bitcast(a) => match e.ty {
                ETy::Num(d) => format!("bitcast<{d}>({})", self.expr_text(a)),
                ETy::Bool => self.expr_text(a),
            },
            TKind::Cast(a) => match e.ty {
                ETy::Num(d) => format!("{d}({})", self.expr_text(a)),
                ETy::Bool => self.expr_text(a),
            },
            TKind::Tile(el) => self.elem_text(el),
            TKind::FragmentSlot(t) => format!("{}[own]", self.tiles[*t].named.name),
            TKind::Param(p, idx, tests) => self.param_text(*p, idx, tests),
            TKind::WordLane(p, first, lane) => {
                let name = &self.params[*p].named.name;
                format!("{name}.words4({}).lane{lane}", self.expr_text(first))
            }
            TKind::Word(p, i, tested) => {
                let proven = if *tested { "" } else { "(proven inside)" };
                format!("{}.word({}){proven}", self.params[*p].named.name, self.expr_text(i))
            }
        }
    }

    fn list(&self, es: &[TExpr]) -> String {
        es.iter().map(|e| self.expr_text(e)).collect::<Vec<_>>().join(", ")
    }

    fn elem_text(&self, el: &TileElem) -> String {
        let stage =
            el.stage.as_ref().map_or(String::new(), |s| format!("<stage {}>", self.expr_text(s)));
        let check = if el.bounds == Bounds::Checked { "?" } else { "" };
        format!("{}{stage}[{}]{check}", self.tiles[el.tile].named.name, self.list(&el.index))
    }

    /// `P[i, j]` when every axis is tested, else with the axes still tested (or none) named.
    fn param_text(&self, p: ParamIx, idx: &[TExpr], tests: &[bool]) -> String {
        let base = format!("{}[{}]", self.params[p].named.name, self.list(idx));
        if tests.iter().all(|t| *t) {
            return base;
        }
        let axes: Vec<String> =
            tests.iter().enumerate().filter(|(_, t)| **t).map(|(a, _)| a.to_string()).collect();
        if axes.is_empty() {
            format!("{base}(proven inside)")
        } else {
            format!("{base}(tested on axis {})", axes.join(", "))
        }
    }

    fn slot_text(&self, s: &TileSlot) -> String {
        match &s.stage {
            None => self.tiles[s.tile].named.name.clone(),
            Some(st) => format!("{}<stage {}>", self.tiles[s.tile].named.name, self.expr_text(st)),
        }
    }

    fn dist_text(&self, d: Dist) -> String {
        match d {
            Dist::Threads => "over threads".into(),
            Dist::PerThread => "per thread".into(),
            Dist::Fragment(t) => format!("by {}'s layout", self.tiles[t].named.name),
            Dist::Matrix(t) => format!("by {}'s matrices, per subgroup", self.tiles[t].named.name),
            Dist::Workgroup(t) => format!(
                "{} as one workgroup-scope matrix, tensor-addressed, clamped at the edges",
                self.tiles[t].named.name
            ),
        }
    }

    /// How a copy between workgroup-scope matrices is made: a conversion of type or use, a
    /// row statistic spread over another column count, or a plain copy.
    fn matrix_copy_text(&self, src: TileIx, dst: TileIx) -> String {
        let (s, d) = (&self.tiles[src], &self.tiles[dst]);
        match (&s.storage, &d.storage) {
            (
                TileStorage::WorkgroupRows { columns: a },
                TileStorage::WorkgroupRows { columns: b },
            ) if a != b => {
                format!(
                    "workgroup-scope matrices: each row's value spread from {a} to {b} columns by a row reduction"
                )
            }
            (_, TileStorage::WorkgroupMatrix { role, input, .. }) => format!(
                "workgroup-scope matrices: the accumulator converted to a {role:?} operand of {input}"
            ),
            _ => "workgroup-scope matrices: a copy of the whole matrix".to_string(),
        }
    }

    /// [`Self::dist_text`] for ops that move no window (fills, reductions).
    fn whole_text(&self, d: Dist) -> String {
        match d {
            Dist::Workgroup(t) => {
                format!("{} as one workgroup-scope matrix", self.tiles[t].named.name)
            }
            d => self.dist_text(d),
        }
    }

    fn plan_text(&self, p: &CopyPlan) -> String {
        let mut parts = vec![self.dist_text(p.dist)];
        if let Some(w) = p.vector {
            parts.push(format!("vec{w} when the row length and origin allow"));
        }
        if let Some(u) = p.unroll {
            parts.push(format!("{u} loads per thread issued together"));
        }
        if p.masked {
            parts.push("masked at the parameter's bounds".into());
        }
        if p.proven {
            parts.push("proven inside at every launch: unmasked, no fallback".into());
        } else if p.interior {
            parts.push("unmasked when the window lies inside".into());
        }
        if p.issue_with_next {
            parts.push("issued with the next load".into());
        }
        parts.join(", ")
    }

    fn ops(&self, out: &mut String, ops: &[Op], depth: usize) -> fmt::Result {
        let pad = "  ".repeat(depth);
        for op in ops {
            match op {
                Op::Barrier => writeln!(out, "{pad}barrier")?,
                Op::Let { name, value, .. } => writeln!(
                    out,
                    "{pad}let {name} = {}  [once per element]",
                    self.expr_text(value)
                )?,
                Op::Fill { tile, value, dist } => writeln!(
                    out,
                    "{pad}fill {} = {}  [{}]",
                    self.tiles[*tile].named.name,
                    self.expr_text(value),
                    self.whole_text(*dist)
                )?,
                Op::Load(WindowLoad { param, origin, axes, dst, plan }) => writeln!(
                    out,
                    "{pad}load {}[{} ..{}] -> {}  [{}]",
                    self.params[*param].named.name,
                    self.list(origin),
                    axes_text(axes, origin.len()),
                    self.slot_text(dst),
                    self.plan_text(plan)
                )?,
                Op::Save { src, param, origin, axes, plan } => writeln!(
                    out,
                    "{pad}save {} -> {}[{} ..{}]  [{}]",
                    self.slot_text(src),
                    self.params[*param].named.name,
                    self.list(origin),
                    axes_text(axes, origin.len()),
                    self.plan_text(plan)
                )?,
                Op::EpilogueSave { vars, body, src, param, origin, .. } => {
                    let ix: Vec<_> = vars.iter().map(|v| var_name(*v)).collect();
                    writeln!(
                        out,
                        "{pad}save {} -> {}[{} ..] after the epilogue over ({})  [by {}'s matrices, per subgroup, one visit of threadgroup memory per matrix (epilogue fused into the save), masked at the parameter's bounds]:",
                        self.slot_text(src),
                        self.params[*param].named.name,
                        self.list(origin),
                        ix.join(", "),
                        self.tiles[src.tile].named.name,
                    )?;
                    self.ops(out, body, depth + 1)?;
                }
                Op::CopyTiles { src, dst, dist } => {
                    let how = match dist {
                        Dist::Workgroup(_) => self.matrix_copy_text(src.tile, dst.tile),
                        d => self.dist_text(*d),
                    };
                    writeln!(
                        out,
                        "{pad}copy {} -> {}  [{how}]",
                        self.slot_text(src),
                        self.slot_text(dst),
                    )?
                }
                Op::Gemm { a, b, c, trans_a, trans_b, lowering } => {
                    let how = match lowering {
                        GemmLowering::Simt(l) => {
                            format!("SIMT, {}x{} register block per thread", l.tm, l.tn)
                        }
                        GemmLowering::Matrix(m) => format!(
                            "matrix units {s}x{s}x{s}, {}x{} matrices per subgroup, operands from threadgroup memory",
                            m.blocks[0],
                            m.blocks[1],
                            s = m.shape
                        ),
                        GemmLowering::Workgroup => {
                            "one multiply-add of workgroup-scope matrices".into()
                        }
                    };
                    writeln!(
                        out,
                        "{pad}gemm {}{} x {}{} += {}  [{how}]",
                        self.slot_text(a),
                        if *trans_a { "^T" } else { "" },
                        self.slot_text(b),
                        if *trans_b { "^T" } else { "" },
                        self.tiles[*c].named.name,
                    )?
                }
                Op::Reduce(Reduce { op, src, dst, axis, clear, dist, strategy }) => writeln!(
                    out,
                    "{pad}reduce_{} {} axis {axis} -> {}{}  [{}, {}]",
                    reduce_name(*op),
                    self.slot_text(src),
                    self.tiles[*dst].named.name,
                    if *clear { "" } else { " (accumulate)" },
                    self.whole_text(*dist),
                    match strategy {
                        ReduceStrategy::Serial => "serial per output".to_string(),
                        ReduceStrategy::Lanes { lanes, unrolled } => format!(
                            "in registers{}, {lanes} lanes per row exchanging within a subgroup, no threadgroup memory",
                            if *unrolled { " (unrolled)" } else { "" }
                        ),
                        ReduceStrategy::Subgroup => "one subgroup per output".to_string(),
                        ReduceStrategy::WorkgroupRows => {
                            "one matrix row reduction, every column given its row's value"
                                .to_string()
                        }
                        ReduceStrategy::SplitSubgroups { partials } => format!(
                            "every subgroup, partial results through {}",
                            self.tiles[*partials].named.name
                        ),
                        ReduceStrategy::Registers(RegisterReduction {
                            partials,
                            lanes,
                            subgroup_first,
                            combine_subgroup,
                            unrolled,
                            ..
                        }) => format!(
                            "in registers{}, {lanes} threads per row, {} through {}, combined by {}",
                            if *unrolled { " (unrolled)" } else { "" },
                            if *subgroup_first {
                                "one partial per subgroup"
                            } else {
                                "one partial per thread"
                            },
                            self.tiles[*partials].named.name,
                            if *combine_subgroup {
                                "one subgroup per row"
                            } else {
                                "one thread per row"
                            }
                        ),
                    }
                )?,
                Op::Cumsum { src, dst, axis, dist } => writeln!(
                    out,
                    "{pad}cumsum {} axis {axis} -> {}  [{}, serial per line]",
                    self.tiles[*src].named.name,
                    self.tiles[*dst].named.name,
                    self.dist_text(*dist)
                )?,
                Op::Parallel { extents, vars, dist, unrolled, vector_reads, body } => {
                    let ix: Vec<_> = vars
                        .iter()
                        .zip(extents)
                        .map(|(v, e)| format!("{} < {e}", var_name(*v)))
                        .collect();
                    let mut unroll =
                        if *unrolled { ", unrolled over its register slots" } else { "" }
                            .to_string();
                    if !vector_reads.is_empty() {
                        let names: Vec<String> = vector_reads
                            .iter()
                            .map(|r| {
                                let name = &self.params[r.param].named.name;
                                match r.xor {
                                    0 => name.clone(),
                                    m => format!("{name} (column xor {m})"),
                                }
                            })
                            .collect();
                        unroll.push_str(&format!(
                            ", {} read as one vector per run of columns",
                            names.join(", ")
                        ));
                    }
                    let how = match dist {
                        Dist::Workgroup(t) => format!(
                            "one per-element operation on {}'s workgroup-scope matrix",
                            self.tiles[*t].named.name
                        ),
                        d => self.dist_text(*d),
                    };
                    writeln!(out, "{pad}parallel {}  [{how}{unroll}]:", ix.join(", "))?;
                    self.ops(out, body, depth + 1)?;
                }
                Op::Store { target, value } => {
                    let t = match target {
                        ElemRef::Tile(el) => self.elem_text(el),
                        ElemRef::FragmentSlot(t) => format!("{}[own]", self.tiles[*t].named.name),
                        ElemRef::Param(p, idx, tests) => self.param_text(*p, idx, tests),
                    };
                    writeln!(out, "{pad}{t} = {}", self.expr_text(value))?
                }
                Op::AtomicAdd { param, index, value } => writeln!(
                    out,
                    "{pad}atomic {}[{}] += {}",
                    self.params[*param].named.name,
                    self.list(index),
                    self.expr_text(value)
                )?,
                Op::For { var, extent, uniform_slot, body } => {
                    let how = match uniform_slot {
                        Some(s) => format!(
                            "  [trip count read from memory by thread 0 into {}, then \
                             workgroupUniformLoad]",
                            self.tiles[*s].named.name
                        ),
                        None => String::new(),
                    };
                    let (v, n) = (var_name(*var), self.expr_text(extent));
                    writeln!(out, "{pad}for {v} in 0..{n}:{how}")?;
                    self.ops(out, body, depth + 1)?;
                }
                Op::If { cond, then, otherwise } => {
                    writeln!(out, "{pad}if {}:", self.expr_text(cond))?;
                    self.ops(out, then, depth + 1)?;
                    if !otherwise.is_empty() {
                        writeln!(out, "{pad}else:")?;
                        self.ops(out, otherwise, depth + 1)?;
                    }
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for Lowered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let grid: Vec<String> = self.grid.iter().map(shape_text).collect();
        writeln!(
            out,
            "kernel {} (entry {}, {} threads, grid [{}])",
            self.name,
            self.entry,
            self.threads,
            grid.join(", ")
        )?;
        for p in &self.params {
            let access = match p.access {
                ParamAccess::Plain => "plain".to_string(),
                ParamAccess::Atomic => "atomic".to_string(),
                ParamAccess::Packed(d) if p.written => format!(
                    "{d} packed in atomic u32 words: runs of 4 encoded and stored whole, lone elements merged into their word"
                ),
                ParamAccess::Packed(d) => format!("{d} packed in u32 words, widened on load"),
                ParamAccess::Tensor if p.written => {
                    "in its own type, written by tensor-addressed stores only".to_string()
                }
                ParamAccess::Tensor => {
                    "in its own type, read by tensor-addressed loads only".to_string()
                }
            };
            let view =
                p.vector_view.map_or(String::new(), |b| format!(", vec4 view at binding {b}"));
            writeln!(
                out,
                "  param {}: {}[{}] {}, {access}{view}",
                p.named.name,
                p.dtype,
                self.list(&p.shape),
                if p.written { "read_write" } else { "read" }
            )?;
        }
        for (i, s) in self.symbols.iter().enumerate() {
            writeln!(out, "  symbol {} (immediate {i})", s.name)?;
        }
        for (i, s) in self.scalars.iter().enumerate() {
            writeln!(
                out,
                "  scalar {}: {} (immediate {})",
                s.named.name,
                s.dtype,
                self.symbols.len() + i
            )?;
        }
        for t in &self.tiles {
            let dims: Vec<_> = t.shape.iter().map(u32::to_string).collect();
            let stages =
                if t.stages > 1 { format!(" x{} stages", t.stages) } else { String::new() };
            let scope = match t.scope {
                Scope::Shared => "shared",
                Scope::Fragment => "fragment",
                Scope::Local => "local",
            };
            let storage = match &t.storage {
                TileStorage::Workgroup if t.row_pad > 0 => format!(
                    "threadgroup memory, rows padded to {} elements (rows read together in distinct banks)",
                    t.row_pitch()
                ),
                TileStorage::Workgroup => "threadgroup memory".to_string(),
                TileStorage::PerThread => "registers, whole in every thread".to_string(),
                TileStorage::WorkgroupMatrix { role: MatrixRole::Accumulator, input, .. } => {
                    format!(
                        "one workgroup-scope {} accumulator matrix of the whole threadgroup (products of {input} operands)",
                        t.dtype
                    )
                }
                TileStorage::WorkgroupMatrix { role, input, transposed } => format!(
                    "one workgroup-scope {role:?} matrix of the whole threadgroup ({input}{})",
                    if *transposed { ", loaded through a transposing view" } else { "" }
                ),
                TileStorage::WorkgroupRows { columns } => format!(
                    "one workgroup-scope f32 accumulator [{}, {columns}] of the whole threadgroup, each row's value in every column",
                    t.shape[0]
                ),
                TileStorage::Unused => "unused (replaced by the native lowering)".to_string(),
                TileStorage::Fragment { layout: FragmentLayout::Simt(b), reason } => format!(
                    "layout SIMT register blocks {}x{} per thread over {}x{} threads{} ({reason})",
                    b.tm,
                    b.tn,
                    b.rows / b.tm,
                    b.thread_cols(),
                    if b.run > 1 {
                        format!(", columns in runs of {}", b.run)
                    } else {
                        String::new()
                    }
                ),
                TileStorage::Fragment {
                    layout: FragmentLayout::Rows { of, blocks: b },
                    reason,
                } => {
                    format!(
                        "layout rows of {}: {} per thread, held by each of the {} threads of a row, in registers ({reason})",
                        self.tiles[*of].named.name,
                        b.tm,
                        b.thread_cols()
                    )
                }
                TileStorage::Fragment { layout: FragmentLayout::Matrix(m), reason } => format!(
                    "layout {s}x{s} matrices, {}x{} subgroups each holding {}x{}{} ({reason}){}",
                    m.warps[0],
                    m.warps[1],
                    m.blocks[0],
                    m.blocks[1],
                    if m.k_split > 1 {
                        format!(
                            ", K split {} ways (K steps dealt in turn to {} subgroups per block, partial sums added at the save)",
                            m.k_split, m.k_split
                        )
                    } else {
                        String::new()
                    },
                    m.scratch.map_or(String::new(), |t| format!(
                        "; saves go through {}",
                        self.tiles[t].named.name
                    )),
                    s = m.shape
                ),
            };
            writeln!(
                out,
                "  {scope} {}: {}[{}]{stages} -> {storage}",
                t.named.name,
                t.dtype,
                dims.join(", ")
            )?;
        }
        self.ops(&mut out, &self.body, 1)?;
        f.write_str(&out)
    }
}

/// A grid or shape expression (symbols and constants only).
fn shape_text(e: &crate::ir::Expr) -> String {
    use crate::ir::Expr;
    match e {
        Expr::Int(v) => v.to_string(),
        Expr::Sym(s) => s.clone(),
        Expr::Bin(op @ (BinOp::Max | BinOp::Min), a, b) => {
            format!("{}({}, {})", op_symbol(*op), shape_text(a), shape_text(b))
        }
        Expr::Bin(op, a, b) => format!("({} {} {})", shape_text(a), op_symbol(*op), shape_text(b)),
        other => format!("{other:?}"),
    }
}

/// `; axes ..` where a window spans other than the parameter's last axes, else nothing (so
/// listings of windows spanning the last axes read as before axes could be named).
fn axes_text(axes: &[usize], rank: usize) -> String {
    if axes.iter().copied().eq(rank - axes.len()..rank) {
        return String::new();
    }
    format!("; axes {}", axes.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", "))
}

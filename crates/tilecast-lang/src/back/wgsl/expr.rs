//! Typed expressions and element addressing.

use super::Printer;
use super::names::{ety, literal, ty};
use crate::ir::{MathFn, op_symbol, var_name};
use crate::lir::{Bounds, TExpr, TKind, TileElem, TileIx, TileSlot};

impl Printer<'_> {
    /// WGSL for `e`.
    pub(crate) fn expr(&mut self, e: &TExpr) -> String {
        match &e.kind {
            TKind::Lit(v) => literal(*v, e.ty),
            TKind::Sym(i) => format!("args.{}", self.l.symbols[*i].ident),
            TKind::Scalar(i) => format!("args.{}", self.l.scalars[*i].named.ident),
            TKind::Var(v) => var_name(*v),
            TKind::Local(id, name) => super::local_name(*id, name),
            TKind::Bin(op, a, b) => {
                let (x, y) = (self.expr(a), self.expr(b));
                match op {
                    crate::ir::BinOp::Max
                    | crate::ir::BinOp::Min
                    | crate::ir::BinOp::Pow
                    | crate::ir::BinOp::Dot4I8 => {
                        format!("{}({x}, {y})", op_symbol(*op))
                    }
                    _ => format!("({x} {} {y})", op_symbol(*op)),
                }
            }
            TKind::Math(f, a) => {
                let x = self.expr(a);
                let name = match f {
                    MathFn::Exp => "exp",
                    MathFn::Log => "log",
                    MathFn::Sqrt => "sqrt",
                    MathFn::Rsqrt => "inverseSqrt",
                    MathFn::Tanh => "tanh",
                    MathFn::Abs => "abs",
                    MathFn::Exp2 => "exp2",
                    MathFn::Log2 => "log2",
                    MathFn::Floor => "floor",
                    MathFn::Round => "round",
                    MathFn::Sin => "sin",
                    MathFn::Cos => "cos",
                    MathFn::Neg => return format!("(-{x})"),
                    MathFn::Erf => return format!("{}(tc_erf(f32({x})))", ety(e.ty)),
                };
                format!("{name}({x})")
            }
            TKind::Fma(a, b, c) => {
                let (x, y, z) = (self.expr(a), self.expr(b), self.expr(c));
                format!("fma({x}, {y}, {z})")
            }
            TKind::Select(c, a, b) => {
                let (c, x, y) = (self.expr(c), self.expr(a), self.expr(b));
                format!("select({y}, {x}, {c})")
            }
            TKind::Cast(a) => format!("{}({})", ety(e.ty), self.expr(a)),
            // A half in a word's low bits: unpacked to f32 (exact) and narrowed back.
            TKind::Bitcast(a) if e.ty == crate::lir::ETy::Num(crate::ir::DType::F16) => {
                format!("f16(unpack2x16float({}).x)", self.expr(a))
            }
            TKind::Bitcast(a) => format!("bitcast<{}>({})", ety(e.ty), self.expr(a)),
            TKind::ParamLane(p, idx, tests, lane) => {
                let args: Vec<String> = idx.iter().map(|i| self.expr(i)).collect();
                let f = if tests.iter().all(|t| !*t) { "ldvu" } else { "ldv" };
                let call = format!("{f}_{}({})", self.l.params[*p].named.ident, args.join(", "));
                let shared = !idx.iter().any(TExpr::reads_memory);
                self.run_lane_of(call, shared, *lane)
            }
            TKind::HalfBits(a) => format!("unpack2x16float({}).x", self.expr(a)),
            TKind::Tile(el) => self.tile_load(el),
            TKind::FragmentSlot(t) => {
                let slot =
                    if self.l.tiles[*t].row_statistic() { &self.row_slot } else { &self.slot };
                let slot = slot.clone().unwrap_or_else(|| "0u".into());
                format!("{}[{slot}]", self.fragment_array(*t))
            }
            TKind::Param(p, idx, tests) => {
                if let Some(lane) = self.run_lane
                    && let Some((_, _, v, xor)) =
                        self.run_reads.iter().find(|(q, ix, _, _)| q == p && ix == idx)
                {
                    return format!("{v}.{}", ["x", "y", "z", "w"][((lane ^ xor) % 4) as usize]);
                }
                let args: Vec<String> = idx.iter().map(|i| self.expr(i)).collect();
                format!("{}({})", self.accessor(false, *p, tests), args.join(", "))
            }
            TKind::WordLane(p, first, lane) => {
                let call =
                    format!("v_{}[({}) / 4u]", self.l.params[*p].named.ident, self.expr(first));
                self.run_lane_of(call, !first.reads_memory(), *lane)
            }
            TKind::Word(p, i, tested) => {
                let i = self.expr(i);
                self.accessors.insert(super::Accessor {
                    store: false,
                    param: *p,
                    tests: vec![*tested],
                    word: true,
                });
                let f = if *tested { "wd" } else { "wdu" };
                format!("{f}_{}({i})", self.l.params[*p].named.ident)
            }
        }
    }

    /// Lane `lane` of the vector `call` loads: one load per run, in a let before the let that
    /// first reads it, kept for the run's other lanes until the block ends where `shared` (its
    /// coordinates read no memory: [`TExpr::reads_memory`]).
    fn run_lane_of(&mut self, call: String, shared: bool, lane: u32) -> String {
        let v = match self.lane_loads.iter().find(|(c, _)| *c == call) {
            Some((_, v)) => v.clone(),
            None => {
                let v = self.fresh("run");
                self.line(&format!("let {v} = {call};"));
                if shared {
                    self.lane_loads.push((call, v.clone()));
                }
                v
            }
        };
        format!("{v}.{}", ["x", "y", "z", "w"][lane as usize])
    }

    /// The array a fragment's elements are read and written through inside a parallel loop:
    /// its registers, or for matrix fragments the scratch tile each matrix visits in turn.
    pub(crate) fn fragment_array(&self, tile: TileIx) -> String {
        let t = &self.l.tiles[tile];
        match t.matrix().and_then(|m| m.scratch) {
            Some(s) => self.l.tiles[s].named.ident.clone(),
            None => t.named.ident.clone(),
        }
    }

    /// `(stage) * stored elements + ` for a staged slot, else nothing.
    pub(crate) fn stage_offset(&mut self, slot: &TileSlot) -> String {
        match &slot.stage {
            Some(s) => {
                let s = self.expr(s);
                format!("({s}) * {}u + ", self.l.tiles[slot.tile].stored_elements())
            }
            None => String::new(),
        }
    }

    /// Where element `lin` (row-major over the tile's shape, stages included) of `tile` lies in
    /// its array: `lin` itself, or with padded rows `(lin / row) * pitch + lin % row`.
    pub(crate) fn at(&self, tile: TileIx, lin: &str) -> String {
        let t = &self.l.tiles[tile];
        if t.row_pad == 0 {
            return lin.to_string();
        }
        let row = t.shape.last().copied().unwrap_or(1);
        format!("(({lin}) / {row}u) * {}u + ({lin}) % {row}u", t.row_pitch())
    }

    /// The linear index of `el`, and the in-bounds condition when its bounds are checked.
    pub(crate) fn tile_index(&mut self, el: &TileElem) -> (String, Option<String>) {
        let shape = self.l.tiles[el.tile].shape.clone();
        let mut lin = String::new();
        let mut conds = Vec::new();
        for (i, e) in el.index.iter().enumerate() {
            let x = self.expr(e);
            conds.push(format!("{x} < {}u", shape[i]));
            // The last axis steps by the row pitch (the row plus its padding).
            let step =
                if i + 1 == shape.len() { self.l.tiles[el.tile].row_pitch() } else { shape[i] };
            lin = if i == 0 { x } else { format!("({lin}) * {step}u + {x}") };
        }
        if let Some(s) = &el.stage {
            let s = self.expr(s);
            lin = format!("({s}) * {}u + {lin}", self.l.tiles[el.tile].stored_elements());
        }
        (lin, (el.bounds == Bounds::Checked).then(|| conds.join(" && ")))
    }

    fn tile_load(&mut self, el: &TileElem) -> String {
        let t = &self.l.tiles[el.tile];
        let (name, dtype, total) =
            (t.named.ident.clone(), t.dtype, t.stored_elements() * t.stages as u64);
        match self.tile_index(el) {
            (lin, None) => format!("{name}[{lin}]"),
            // The clamp keeps the read inside the array; the select gives zero outside the tile.
            (lin, Some(cond)) => {
                format!("select({}(0), {name}[min({lin}, {}u)], {cond})", ty(dtype), total - 1)
            }
        }
    }
}

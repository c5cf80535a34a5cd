//! Reductions (serial per output, one subgroup per output, split over subgroups, or from a
//! fragment's registers) and inclusive scans.

use super::Printer;
use super::names::{frag_col, frag_row0, literal, ty};
use crate::ir::{DType, ReduceOp};
use crate::lir::{
    Dist, ETy, Reduce, ReduceLines, ReducePath, ReduceStrategy, RegisterReduction, TileIx, final_op,
};

/// The identity of `op` on `d`.
fn identity(op: ReduceOp, d: DType) -> String {
    literal(op.identity(d), ETy::Num(d))
}

/// The subgroup builtin that reduces partial results of `op`.
fn subgroup_fn(op: ReduceOp) -> &'static str {
    match final_op(op) {
        ReduceOp::Max => "subgroupMax",
        ReduceOp::Min => "subgroupMin",
        _ => "subgroupAdd",
    }
}

/// `acc` combined with `v`.
fn combine(op: ReduceOp, acc: &str, v: &str) -> String {
    match op {
        ReduceOp::Sum => format!("{acc} + {v}"),
        ReduceOp::AbsSum => format!("{acc} + abs({v})"),
        ReduceOp::SqSum => format!("{acc} + {v} * {v}"),
        ReduceOp::Max => format!("max({acc}, {v})"),
        ReduceOp::Min => format!("min({acc}, {v})"),
        ReduceOp::Argmax | ReduceOp::Argmin => unreachable!("index reductions track a pair"),
    }
}

impl Printer<'_> {
    /// Linear index into `shape` with `axis` at `r` and the other axes at `kept`.
    fn line_index(shape: &[u32], axis: usize, r: &str, kept: &[String]) -> String {
        let mut lin = String::new();
        let mut q = kept.iter();
        for (i, dim) in shape.iter().enumerate() {
            let c = if i == axis { r.to_string() } else { q.next().cloned().unwrap_or_default() };
            lin = if i == 0 { c } else { format!("({lin}) * {dim}u + {c}") };
        }
        lin
    }

    pub(crate) fn reduce(&mut self, r: &Reduce) {
        match r.path() {
            ReducePath::Lines => self.reduce_lines(r),
            ReducePath::Split(partials) => self.reduce_split(r, partials),
            ReducePath::Registers(g) => self.reduce_registers(r, &g),
            ReducePath::RegisterArgs(g, args) => self.reduce_registers_arg(r, &g, args),
            ReducePath::Lanes(lanes, unroll) => self.reduce_lanes(r, lanes, unroll),
            ReducePath::WorkgroupRows => {
                unreachable!("workgroup-scope matrices are made for the native back end only")
            }
        }
    }

    /// Serial (one thread per output) or subgroup (one subgroup per output) line reductions.
    fn reduce_lines(&mut self, r: &Reduce) {
        let Reduce { op, ref src, dst, axis, clear, dist, strategy } = *r;
        let so = self.stage_offset(src);
        let (s, d) = (&self.l.tiles[src.tile], &self.l.tiles[dst]);
        let (sn, dn, sd) = (s.named.ident.clone(), d.named.ident.clone(), s.dtype);
        let ReduceLines { shape, outputs: outs, len, out_shape } = r.lines(&self.l.tiles);
        let o = self.fresh("o");
        match strategy {
            ReduceStrategy::Serial => self.open_elements(&o, outs, dist),
            _ => self.open(&format!("for (var {o} = sg_id; {o} < {outs}u; {o} += sg_count)")),
        }
        let kept = if out_shape.is_empty() { Vec::new() } else { self.coords(&o, &out_shape, "q") };
        let r = self.fresh("r");
        let at = format!("{sn}[{so}{}]", Self::line_index(&shape, axis, &r, &kept));
        if op.is_arg() {
            let cmp = if op == ReduceOp::Argmax { ">" } else { "<" };
            let first = format!("{sn}[{so}{}]", Self::line_index(&shape, axis, "0u", &kept));
            self.line(&format!("var best = {first};"));
            self.line("var arg = 0u;");
            self.open(&format!("for (var {r} = 1u; {r} < {len}u; {r}++)"));
            self.line(&format!("let x = {at};"));
            self.open(&format!("if (x {cmp} best)"));
            self.line("best = x;");
            self.line(&format!("arg = {r};"));
            self.close();
            self.close();
            self.line(&format!("{dn}[{o}] = arg;"));
            self.close();
            return;
        }
        self.line(&format!("var acc = {};", identity(op, sd)));
        let (start, step) = match strategy {
            ReduceStrategy::Serial => ("0u", "1u"),
            _ => ("sg_lane", "sg_size"),
        };
        self.open(&format!("for (var {r} = {start}; {r} < {len}u; {r} += {step})"));
        self.line(&format!("acc = {};", combine(op, "acc", &at)));
        self.close();
        let fin = final_op(op);
        let result =
            if clear { "acc".to_string() } else { combine(fin, &format!("{dn}[{o}]"), "acc") };
        match strategy {
            ReduceStrategy::Serial => self.line(&format!("{dn}[{o}] = {result};")),
            _ => {
                let f = subgroup_fn(op);
                self.line(&format!("acc = {f}(acc);"));
                self.open("if (sg_lane == 0u)");
                self.line(&format!("{dn}[{o}] = {result};"));
                self.close();
            }
        }
        self.close();
    }

    /// `g = subgroups / outputs` subgroups per output (at least one): each reduces a strided
    /// share of the line, lane 0 writes the subgroup's partial to `partials[o * g + part]`, and
    /// after a barrier one thread per output combines its `g` partials.
    fn reduce_split(&mut self, r: &Reduce, partials: TileIx) {
        let Reduce { op, ref src, dst, axis, clear, .. } = *r;
        let so = self.stage_offset(src);
        let (s, d) = (&self.l.tiles[src.tile], &self.l.tiles[dst]);
        let (sn, dn, sd) = (s.named.ident.clone(), d.named.ident.clone(), s.dtype);
        let pn = self.l.tiles[partials].named.ident.clone();
        let ReduceLines { shape, outputs: outs, len, out_shape } = r.lines(&self.l.tiles);
        let fin = final_op(op);
        let g = self.fresh("g");
        self.open("");
        self.line(&format!("let {g} = max(sg_count / {outs}u, 1u);"));
        let o = self.fresh("o");
        self.open(&format!(
            "for (var {o} = sg_id / {g}; {o} < {outs}u; {o} += max(sg_count / {g}, 1u))"
        ));
        let kept = if out_shape.is_empty() { Vec::new() } else { self.coords(&o, &out_shape, "q") };
        let r = self.fresh("r");
        let at = format!("{sn}[{so}{}]", Self::line_index(&shape, axis, &r, &kept));
        self.line(&format!("var acc = {};", identity(op, sd)));
        self.open(&format!(
            "for (var {r} = (sg_id % {g}) * sg_size + sg_lane; {r} < {len}u; {r} += {g} * sg_size)"
        ));
        self.line(&format!("acc = {};", combine(op, "acc", &at)));
        self.close();
        let f = subgroup_fn(op);
        self.line(&format!("acc = {f}(acc);"));
        self.open("if (sg_lane == 0u)");
        self.line(&format!("{pn}[{o} * {g} + sg_id % {g}] = acc;"));
        self.close();
        self.close();
        self.line("workgroupBarrier();");
        let e = self.fresh("o");
        self.open_elements(&e, outs, Dist::Threads);
        self.line(&format!("var acc = {};", identity(fin, sd)));
        self.open(&format!("for (var p = 0u; p < {g}; p++)"));
        self.line(&format!("acc = {};", combine(fin, "acc", &format!("{pn}[{e} * {g} + p]"))));
        self.close();
        let result =
            if clear { "acc".to_string() } else { combine(fin, &format!("{dn}[{e}]"), "acc") };
        self.line(&format!("{dn}[{e}] = {result};"));
        self.close();
        self.close();
    }

    /// Each thread folds its register slots row by row; the per-thread results meet in
    /// `partials` (subgroup-reduced first when every thread holds every row), and after one
    /// barrier each row's results are combined into `dst`.
    fn reduce_registers(&mut self, r: &Reduce, g: &RegisterReduction) {
        let (op, frag, dst, clear) = (r.op, r.src.tile, r.dst, r.clear);
        let RegisterReduction { partials, lanes, subgroup_first, unrolled: unroll, .. } = *g;
        let b = self.l.tiles[frag].blocks().expect("register reductions follow SIMT blocks");
        let (fname, sd) = (self.l.tiles[frag].named.ident.clone(), self.l.tiles[frag].dtype);
        let pn = self.l.tiles[partials].named.ident.clone();
        let slots = self.l.tiles[partials].shape[1];
        let dn = self.l.tiles[dst].named.ident.clone();
        let fin = final_op(op);
        let sub = subgroup_fn(fin);
        self.open("");
        let acc = self.fresh("p");
        let (rows, sj) = self.register_rows(b.tm, unroll);
        for r in &rows {
            self.open("");
            self.fold_row(op, (&acc, sd), &fname, (r, b.tn), (unroll, &sj));
            if subgroup_first {
                self.line(&format!("{acc} = {sub}({acc});"));
                self.line(&format!(
                    "if (sg_lane == 0u) {{ {pn}[({r}) * {slots}u + sg_id] = {acc}; }}"
                ));
            } else {
                let row = format!("{} + {r}", frag_row0(&b));
                self.line(&format!("{pn}[({row}) * {lanes}u + tid % {lanes}u] = {acc};"));
            }
            self.close();
        }
        if !unroll {
            self.close();
        }
        self.line("workgroupBarrier();");
        if let Some(finish) = g.final_combine(r) {
            self.reduce(&finish);
        } else {
            let o = self.fresh("o");
            self.open_elements(&o, b.rows as u64, Dist::Threads);
            self.line(&format!("var acc = {};", identity(fin, sd)));
            self.open("for (var p = 0u; p < sg_count; p++)");
            self.line(&format!(
                "acc = {};",
                combine(fin, "acc", &format!("{pn}[{o} * {slots}u + p]"))
            ));
            self.close();
            let result =
                if clear { "acc".to_string() } else { combine(fin, &format!("{dn}[{o}]"), "acc") };
            self.line(&format!("{dn}[{o}] = {result};"));
            self.close();
        }
        self.close();
    }

    /// Each thread folds its register slots row by row, then `log2(lanes)` exchanges with the
    /// lanes `1, 2, .. lanes / 2` apart leave every lane of a row with its result, which goes
    /// into the thread's slot of the row statistic `dst`.
    fn reduce_lanes(&mut self, r: &Reduce, lanes: u32, unroll: bool) {
        let (op, frag, dst, clear) = (r.op, r.src.tile, r.dst, r.clear);
        let b = self.l.tiles[frag].blocks().expect("lane reductions follow SIMT blocks");
        let (fname, sd) = (self.l.tiles[frag].named.ident.clone(), self.l.tiles[frag].dtype);
        let dn = self.l.tiles[dst].named.ident.clone();
        let fin = final_op(op);
        self.open("");
        let acc = self.fresh("p");
        let (rows, sj) = self.register_rows(b.tm, unroll);
        for r in &rows {
            self.open("");
            self.fold_row(op, (&acc, sd), &fname, (r, b.tn), (unroll, &sj));
            let mut mask = lanes / 2;
            while mask > 0 {
                let other = format!("subgroupShuffleXor({acc}, {mask}u)");
                self.line(&format!("{acc} = {};", combine(fin, &acc, &other)));
                mask /= 2;
            }
            let result =
                if clear { acc.clone() } else { combine(fin, &format!("{dn}[{r}]"), &acc) };
            self.line(&format!("{dn}[{r}] = {result};"));
            self.close();
        }
        if !unroll {
            self.close();
        }
        self.close();
    }

    /// Argmax / argmin from registers: each thread scans its slots in column order keeping the
    /// first best (value, column); the pairs meet in `partials` / `args` (one per subgroup
    /// after a subgroup max/min and a min over the columns holding it, or one per thread); after
    /// one barrier one thread per row picks the best value, the smallest column among ties.
    fn reduce_registers_arg(&mut self, r: &Reduce, g: &RegisterReduction, args: TileIx) {
        let (op, frag, dst) = (r.op, r.src.tile, r.dst);
        let RegisterReduction { partials, lanes, subgroup_first, unrolled: unroll, .. } = *g;
        let b = self.l.tiles[frag].blocks().expect("register reductions follow SIMT blocks");
        let fname = self.l.tiles[frag].named.ident.clone();
        let (pn, an) =
            (self.l.tiles[partials].named.ident.clone(), self.l.tiles[args].named.ident.clone());
        let slots = self.l.tiles[partials].shape[1];
        let dn = self.l.tiles[dst].named.ident.clone();
        let (cmp, sub) =
            if op == ReduceOp::Argmax { (">", "subgroupMax") } else { ("<", "subgroupMin") };
        let col0 = super::names::frag_col0(&b);
        self.open("");
        let (best, arg) = (self.fresh("best"), self.fresh("arg"));
        let (rows, sj) = self.register_rows(b.tm, unroll);
        for r in &rows {
            self.open("");
            self.line(&format!("var {best} = {fname}[({r}) * {}u];", b.tn));
            self.line(&format!("var {arg} = {col0};"));
            // Columns rise with the slot: a strict comparison keeps the first best.
            let scan = |j: &str| {
                format!(
                    "if ({fname}[({r}) * {tn}u + {j}] {cmp} {best}) {{ {best} = {fname}[({r}) * {tn}u + {j}]; {arg} = {}; }}",
                    frag_col(&b, &col0, j),
                    tn = b.tn
                )
            };
            if unroll {
                for j in 1..b.tn {
                    self.line(&scan(&format!("{j}u")));
                }
            } else {
                self.open(&format!("for (var {sj} = 1u; {sj} < {}u; {sj}++)", b.tn));
                self.line(&scan(&sj));
                self.close();
            }
            if subgroup_first {
                self.line(&format!("let m = {sub}({best});"));
                self.line(&format!(
                    "let a = subgroupMin(select(0xffffffffu, {arg}, {best} == m));"
                ));
                self.open("if (sg_lane == 0u)");
                self.line(&format!("{pn}[({r}) * {slots}u + sg_id] = m;"));
                self.line(&format!("{an}[({r}) * {slots}u + sg_id] = a;"));
                self.close();
            } else {
                let at = format!("({} + {r}) * {lanes}u + tid % {lanes}u", frag_row0(&b));
                self.line(&format!("{pn}[{at}] = {best};"));
                self.line(&format!("{an}[{at}] = {arg};"));
            }
            self.close();
        }
        if !unroll {
            self.close();
        }
        self.line("workgroupBarrier();");
        let o = self.fresh("o");
        self.open_elements(&o, b.rows as u64, Dist::Threads);
        let count = if subgroup_first { "sg_count".to_string() } else { format!("{lanes}u") };
        self.line(&format!("var bv = {pn}[{o} * {slots}u];"));
        self.line(&format!("var bi = {an}[{o} * {slots}u];"));
        self.open(&format!("for (var p = 1u; p < {count}; p++)"));
        self.line(&format!("let v = {pn}[{o} * {slots}u + p];"));
        self.line(&format!("let i = {an}[{o} * {slots}u + p];"));
        self.open(&format!("if (v {cmp} bv || (v == bv && i < bi))"));
        self.line("bv = v;");
        self.line("bi = i;");
        self.close();
        self.close();
        self.line(&format!("{dn}[{o}] = bi;"));
        self.close();
        self.close();
    }

    pub(crate) fn cumsum(&mut self, src: TileIx, dst: TileIx, axis: usize, dist: Dist) {
        let (s, d) = (&self.l.tiles[src], &self.l.tiles[dst]);
        let (sn, dn, sd) = (s.named.ident.clone(), d.named.ident.clone(), s.dtype);
        let shape = s.shape.clone();
        let len = shape[axis];
        let mut line_shape = shape.clone();
        line_shape.remove(axis);
        let lines: u64 = line_shape.iter().map(|&x| x as u64).product();
        let o = self.fresh("o");
        self.open_elements(&o, lines, dist);
        let kept =
            if line_shape.is_empty() { Vec::new() } else { self.coords(&o, &line_shape, "q") };
        self.line(&format!("var acc = {}(0);", ty(sd)));
        let r = self.fresh("r");
        self.open(&format!("for (var {r} = 0u; {r} < {len}u; {r}++)"));
        let lin = Self::line_index(&shape, axis, &r, &kept);
        self.line(&format!("acc = acc + {sn}[{lin}];"));
        self.line(&format!("{dn}[{lin}] = acc;"));
        self.close();
        self.close();
    }

    /// The rows of a thread's register block a register reduction walks: constants when
    /// `unroll`, else one loop variable (its loop opened here, closed by the caller with the
    /// row's block). Also returns a fresh name for the column loop.
    /// `var acc` declared and folded by `op` over register row `r`'s `tn` slots of fragment
    /// `fname` (each constant when `unroll`, else in a loop over `sj`): the thread's own part
    /// of the row's reduction.
    fn fold_row(
        &mut self,
        op: ReduceOp,
        (acc, sd): (&str, DType),
        fname: &str,
        (r, tn): (&str, u32),
        (unroll, sj): (bool, &str),
    ) {
        self.line(&format!("var {acc} = {};", identity(op, sd)));
        if unroll {
            for j in 0..tn {
                let v = format!("{fname}[{r} * {tn}u + {j}u]");
                self.line(&format!("{acc} = {};", combine(op, acc, &v)));
            }
        } else {
            self.open(&format!("for (var {sj} = 0u; {sj} < {tn}u; {sj}++)"));
            let v = format!("{fname}[{r} * {tn}u + {sj}]");
            self.line(&format!("{acc} = {};", combine(op, acc, &v)));
            self.close();
        }
    }

    fn register_rows(&mut self, tm: u32, unroll: bool) -> (Vec<String>, String) {
        let (si, sj) = (self.fresh("si"), self.fresh("sj"));
        let rows =
            if unroll { (0..tm).map(|i| format!("{i}u")).collect() } else { vec![si.clone()] };
        if !unroll {
            self.open(&format!("for (var {si} = 0u; {si} < {tm}u; {si}++)"));
        }
        (rows, sj)
    }
}

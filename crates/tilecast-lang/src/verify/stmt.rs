//! Statement rules: copies, gemm, reductions, scans, parallel bodies, loops and conditionals.

use super::Verifier;
use crate::Result;
use crate::ir::{DType, Expr, ReduceOp, Region, Scope, Stmt, Target};
use crate::types::{Ty, is_float};

/// Tiles and parameters a parallel body reads, with the index of each read.
fn reads<'a>(e: &'a Expr, out: &mut Vec<(Target, &'a [Expr])>) {
    match e {
        Expr::LoadTile(t, idx) => out.push((Target::Tile(*t), idx)),
        Expr::LoadParam(p, idx) => out.push((Target::Param(*p), idx)),
        Expr::LoadWord(p, i) => out.push((Target::Param(*p), std::slice::from_ref(&**i))),
        _ => {}
    }
    for c in e.children() {
        reads(c, out);
    }
}

/// Every store and atomic of a parallel body (through its conditionals), with the
/// expressions it evaluates.
fn body_accesses<'a>(
    body: &'a [Stmt],
    writes: &mut Vec<(Target, &'a [Expr])>,
    exprs: &mut Vec<&'a Expr>,
) {
    for s in body {
        match s {
            Stmt::Store { target, index, value } => {
                writes.push((*target, index));
                exprs.extend(index.iter().chain([value]));
            }
            Stmt::AtomicAdd { param, index, value } => {
                writes.push((Target::Param(*param), index));
                exprs.extend(index.iter().chain([value]));
            }
            Stmt::If { cond, then, otherwise } => {
                exprs.push(cond);
                body_accesses(then, writes, exprs);
                body_accesses(otherwise, writes, exprs);
            }
            Stmt::Let { value, .. } => exprs.push(value),
            _ => {}
        }
    }
}

/// Every let read in `e`.
fn collect_locals(e: &Expr, out: &mut Vec<crate::ir::LetId>) {
    if let Expr::Local(id) = e {
        out.push(*id);
    }
    for c in e.children() {
        collect_locals(c, out);
    }
}

/// The first let read anywhere in `e`.
fn first_local(e: &Expr) -> Option<crate::ir::LetId> {
    match e {
        Expr::Local(id) => Some(*id),
        _ => e.children().into_iter().find_map(first_local),
    }
}

impl Verifier<'_> {
    fn let_name(&self, id: crate::ir::LetId) -> String {
        crate::ir::visit::let_def(self.k, id).map_or(format!("#{}", id.0), |(n, _)| n.into())
    }

    /// Every let a parallel body reads is defined before, in the same body or a branch around
    /// the read (a let inside a branch ends with it), as in the WGSL it becomes.
    fn let_scopes(&self, body: &[Stmt], defined: &mut Vec<crate::ir::LetId>) -> Result<()> {
        for s in body {
            let mut used = Vec::new();
            for e in crate::ir::visit::stmt_exprs(s) {
                collect_locals(e, &mut used);
            }
            if let Some(id) = used.into_iter().find(|id| !defined.contains(id)) {
                return Err(self.err(
                    format!("let {}", self.let_name(id)),
                    "is read before its definition or outside the branch that defines it",
                ));
            }
            match s {
                Stmt::Let { id, .. } => defined.push(*id),
                Stmt::If { then, otherwise, .. } => {
                    self.let_scopes(then, &mut defined.clone())?;
                    self.let_scopes(otherwise, &mut defined.clone())?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Checks each statement of `body`; an error is placed at the innermost statement that
    /// broke a rule.
    pub(crate) fn stmts(&self, body: &[Stmt], in_parallel: bool) -> Result<()> {
        body.iter().try_for_each(|s| {
            self.stmt(s, in_parallel).map_err(|e| match crate::ir::visit::position(self.k, s) {
                Some(i) => e.at(crate::Site::Stmt(i)),
                None => e,
            })
        })
    }

    fn target_name(&self, t: Target) -> (String, DType, usize) {
        match t {
            Target::Tile(t) => {
                let x = &self.k.tiles[t.0];
                (x.name.clone(), x.dtype, x.shape.len())
            }
            Target::Param(p) => {
                let x = &self.k.params[p.0];
                (x.name.clone(), x.dtype, x.shape.len())
            }
        }
    }

    fn stmt(&self, s: &Stmt, in_parallel: bool) -> Result<()> {
        let k = self.k;
        if in_parallel
            && !matches!(
                s,
                Stmt::Store { .. } | Stmt::AtomicAdd { .. } | Stmt::If { .. } | Stmt::Let { .. }
            )
        {
            return Err(self.err(
                "parallel",
                "its body may only name values (let), store elements, add atomically and branch \
                 (if)",
            ));
        }
        if !in_parallel {
            for e in crate::ir::visit::stmt_exprs(s) {
                if let Some(id) = first_local(e) {
                    return Err(self.err(
                        format!("let {}", self.let_name(id)),
                        "is used outside the parallel body that defines it",
                    ));
                }
            }
        }
        match s {
            Stmt::Let { name, value, .. } => {
                let op = format!("let {name}");
                if !in_parallel {
                    return Err(self.err(op, "belongs inside a parallel body"));
                }
                crate::types::type_of(k, value).map_err(|m| self.err(op, m)).map(|_| ())
            }
            Stmt::Copy { src, dst, .. } => self.copy(src, dst),
            Stmt::Fill { tile, value } => {
                let t = &k.tiles[tile.0];
                let op = format!("fill {}", t.name);
                self.uniform(&op, value)?;
                self.value(&op, value, t.dtype)
            }
            Stmt::Gemm { a, b, c, trans_a, trans_b } => self.gemm(a, b, c.0, *trans_a, *trans_b),
            Stmt::Reduce { op, src, src_stage, dst, axis, clear } => {
                self.reduce(*op, src.0, src_stage.as_ref(), dst.0, *axis, *clear)
            }
            Stmt::Cumsum { src, dst, axis } => {
                let (s_, d) = (&k.tiles[src.0], &k.tiles[dst.0]);
                let op = format!("cumsum {} -> {}", s_.name, d.name);
                if s_.scope == Scope::Fragment || d.scope == Scope::Fragment {
                    return Err(self.err(
                        op,
                        "works on shared or local tiles; copy the fragment to shared first",
                    ));
                }
                if s_.scope != d.scope {
                    return Err(
                        self.err(op, "source and destination must both be shared or both be local")
                    );
                }
                if *axis >= s_.shape.len() {
                    return Err(self.err(
                        op,
                        format!("axis {axis} is out of range for rank {}", s_.shape.len()),
                    ));
                }
                if s_.shape != d.shape || s_.dtype != d.dtype {
                    return Err(self.err(
                        op,
                        format!(
                            "{} is {}{:?} but {} is {}{:?}; they must match",
                            s_.name, s_.dtype, s_.shape, d.name, d.dtype, d.shape
                        ),
                    ));
                }
                Ok(())
            }
            Stmt::Parallel { extents, vars, body } => self.parallel(extents, vars, body),
            Stmt::Store { target, index, value } => {
                let (name, dtype, rank) = self.target_name(*target);
                let op = format!("store {name}");
                self.writable(&op, *target)?;
                match target {
                    Target::Tile(t) => self.tile_indices(&op, t.0, index)?,
                    Target::Param(_) => self.indices(&op, &name, rank, index)?,
                }
                self.value(&op, value, dtype)
            }
            Stmt::AtomicAdd { param, index, value } => {
                let (name, dtype, rank) = self.target_name(Target::Param(*param));
                let op = format!("atomic_add {name}");
                if !in_parallel {
                    return Err(self.err(op, "belongs inside a parallel body"));
                }
                if !matches!(dtype, DType::I32 | DType::U32) {
                    return Err(self.err(
                        op,
                        format!("{name} is {dtype}; atomic adds work on i32 and u32 parameters"),
                    ));
                }
                self.writable(&op, Target::Param(*param))?;
                self.indices(&op, &name, rank, index)?;
                self.value(&op, value, dtype)
            }
            Stmt::For { extent, body, .. } => {
                self.uniform_or_table("for", extent)?;
                self.index("for", "the trip count", extent)?;
                self.stmts(body, false)
            }
            Stmt::Pipelined { extent, stages, body, .. } => {
                let op = "pipelined";
                // Name the loop that takes such a trip count.
                if self.uniform_or_table(op, extent).is_ok() && self.uniform(op, extent).is_err() {
                    return Err(self.err(
                        op,
                        "the trip count is read from memory; a pipelined loop's trip count is \
                         uniform (symbols, scalars, block and loop indices). serial takes one \
                         read from an element of a u32 or i32 parameter at uniform coordinates",
                    ));
                }
                self.uniform(op, extent)?;
                self.index(op, "the trip count", extent)?;
                if *stages == 0 || *stages > 8 {
                    return Err(self.err(op, format!("num_stages {stages} must be 1..=8")));
                }
                let mut computing = false;
                for s in body {
                    let loads = matches!(s, Stmt::Copy { src: Region::Global { .. }, dst: Region::Tile { tile, .. }, .. } if k.tiles[tile.0].scope == Scope::Shared);
                    if loads && computing {
                        return Err(self.err(op, "copies into shared tiles must come before the compute in a pipelined body"));
                    }
                    computing |= !loads;
                }
                self.stmts(body, false)
            }
            Stmt::If { cond, then, otherwise } => {
                if !in_parallel {
                    self.uniform("if", cond)?;
                }
                if self.expr("if", cond)? != Ty::Bool {
                    return Err(self.err("if", "condition must be a comparison"));
                }
                self.stmts(then, in_parallel)?;
                self.stmts(otherwise, in_parallel)
            }
            Stmt::Barrier => Ok(()),
        }
    }

    fn parallel(&self, extents: &[u32], vars: &[crate::ir::Var], body: &[Stmt]) -> Result<()> {
        let k = self.k;
        let op = format!("parallel over {extents:?}");
        if extents.is_empty() || extents.contains(&0) || vars.len() != extents.len() {
            return Err(self.err(op, "extents must be non-empty and non-zero"));
        }
        if extents.iter().map(|&e| e as u64).product::<u64>() > 1 << 24 {
            return Err(self.err(op, "covers more than 2^24 elements; loop over tiles instead"));
        }
        self.stmts(body, true)?;
        self.let_scopes(body, &mut Vec::new())?;
        let (mut writes, mut exprs) = (Vec::new(), Vec::new());
        body_accesses(body, &mut writes, &mut exprs);
        let local = |t: &Target| matches!(t, Target::Tile(x) if k.tiles[x.0].scope == Scope::Local);
        if writes.iter().any(|(t, _)| local(t)) && writes.iter().any(|(t, _)| !local(t)) {
            return Err(self.err(
                op,
                "stores local tiles and shared/fragment/global memory in one loop; split it",
            ));
        }
        let mut read = Vec::new();
        for e in &exprs {
            reads(e, &mut read);
        }
        // A row statistic: a 1-D fragment read at the row index of a 2-D loop.
        let row_stat = |t: &Target, idx: &[Expr]| {
            matches!(t, Target::Tile(x) if k.tiles[x.0].scope == Scope::Fragment
                && k.tiles[x.0].shape.len() == 1
                && extents.len() == 2
                && k.tiles[x.0].shape[0] == extents[0]
                && idx == [Expr::Var(vars[0])])
        };
        let reads = read.iter().map(|x| (x, true));
        for ((t, idx), is_read) in reads.chain(writes.iter().map(|x| (x, false))) {
            if is_read && row_stat(t, idx) {
                continue;
            }
            if let Target::Tile(t) = t {
                let tile = &k.tiles[t.0];
                if tile.scope == Scope::Fragment && tile.shape != extents {
                    return Err(self.err(op, format!(
                        "touches fragment {} of shape {:?}; a parallel loop over a fragment must cover exactly its shape (or read a [rows] statistic at the row index)",
                        tile.name, tile.shape
                    )));
                }
            }
        }
        let frags: Vec<_> = read
            .iter()
            .chain(&writes)
            .filter_map(|(t, _)| match t {
                Target::Tile(t) if k.tiles[t.0].scope == Scope::Fragment => Some(t.0),
                _ => None,
            })
            .collect();
        if let Some(f) = frags.first()
            && writes.iter().any(|(t, _)| local(t))
        {
            return Err(self.err(
                op,
                format!("reads fragment {} while storing local tiles; split it", k.tiles[*f].name),
            ));
        }
        // Threads run in any order: reading an element another thread may be writing is a race.
        for (w, widx) in &writes {
            if local(w) {
                continue;
            }
            for (r, ridx) in &read {
                if r == w && ridx != widx {
                    let name = self.target_name(*w).0;
                    return Err(self.err(op, format!(
                        "writes {name}[{}] and reads {name}[{}]: threads run in any order, so the read races with other threads' writes; write to another tile",
                        list(k, widx), list(k, ridx)
                    )));
                }
            }
        }
        // Fragment elements live in the registers of the thread that owns them (a row
        // statistic's in every thread holding part of the row).
        for (t, idx) in read.iter().chain(&writes) {
            if read.iter().any(|(r, ri)| r == t && ri == idx) && row_stat(t, idx) {
                continue;
            }
            if let Target::Tile(x) = t
                && k.tiles[x.0].scope == Scope::Fragment
            {
                let own = idx.len() == vars.len()
                    && idx.iter().zip(vars).all(|(e, v)| *e == Expr::Var(*v));
                if !own {
                    return Err(self.err(op, format!("touches fragment {} at [{}]; a parallel loop may only touch a fragment at its own index (the thread that owns the element computes it)", k.tiles[x.0].name, list(k, idx))));
                }
            }
        }
        Ok(())
    }

    fn copy(&self, src: &Region, dst: &Region) -> Result<()> {
        let k = self.k;
        let op = format!("copy {} -> {}", self.region_name(src), self.region_name(dst));
        for r in [src, dst] {
            if let Region::Tile { stage: Some(s), .. } = r {
                self.index(&op, "the stage", s)?;
            }
        }
        match (src, dst) {
            (Region::Global { .. }, Region::Global { .. }) => {
                Err(self.err(op, "global to global copies need a tile in between"))
            }
            (Region::Global { param, origin, axes }, Region::Tile { tile, .. })
            | (Region::Tile { tile, .. }, Region::Global { param, origin, axes }) => {
                let p = &k.params[param.0];
                let t = &k.tiles[tile.0];
                if origin.len() != p.shape.len() {
                    return Err(self.err(
                        op,
                        format!(
                            "window origin has {} coordinates; {} has rank {}",
                            origin.len(),
                            p.name,
                            p.shape.len()
                        ),
                    ));
                }
                self.window_axes(&op, &p.name, p.shape.len(), &t.shape, axes.as_deref())?;
                for (d, o) in origin.iter().enumerate() {
                    self.window_origin(&op, o)?;
                    self.index(&op, &format!("origin coordinate {d}"), o)?;
                }
                if let Region::Global { param, .. } = dst {
                    self.writable(&op, Target::Param(*param))?;
                }
                Ok(())
            }
            (Region::Tile { tile: a, .. }, Region::Tile { tile: b, .. }) => {
                let (a, b) = (&k.tiles[a.0], &k.tiles[b.0]);
                if a.shape != b.shape {
                    return Err(
                        self.err(op, format!("shapes differ: {:?} vs {:?}", a.shape, b.shape))
                    );
                }
                if a.scope == Scope::Local || b.scope == Scope::Local {
                    return Err(
                        self.err(op, "local tiles are per thread; fill them or use parallel")
                    );
                }
                Ok(())
            }
        }
    }

    fn gemm(&self, a: &Region, b: &Region, c: usize, ta: bool, tb: bool) -> Result<()> {
        let k = self.k;
        let op = format!(
            "gemm {} x {} -> {}",
            self.region_name(a),
            self.region_name(b),
            k.tiles[c].name
        );
        let tile = |r: &Region| match r {
            Region::Tile { tile, .. } => Ok(&k.tiles[tile.0]),
            Region::Global { .. } => Err(self.err(
                op.clone(),
                "operands must be shared tiles; copy the global window into shared first",
            )),
        };
        let (ta_, tb_) = (tile(a)?, tile(b)?);
        let tc = &k.tiles[c];
        for (t, r) in [(ta_, a), (tb_, b)] {
            let staged = matches!(r, Region::Tile { stage: Some(_), .. });
            let operand = t.scope == Scope::Shared || (t.scope == Scope::Fragment && !staged);
            if !operand || t.shape.len() != 2 {
                return Err(self.err(
                    op,
                    format!(
                        "{} must be a 2-D shared tile or fragment (it is {:?} {:?}){}",
                        t.name,
                        t.scope,
                        t.shape,
                        if t.scope == Scope::Fragment && t.shape.len() == 1 {
                            "; a [rows] fragment read at the row index of a parallel loop is a \
                             row statistic, one value per row held in registers, which is read \
                             element by element, never as a gemm operand"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            if matches!(r, Region::Tile { tile, .. } if tile.0 == c) {
                return Err(
                    self.err(op, format!("{} cannot be both operand and accumulator", t.name))
                );
            }
        }
        if tc.scope != Scope::Fragment || tc.shape.len() != 2 {
            return Err(self.err(op, format!("accumulator {} must be a 2-D fragment", tc.name)));
        }
        let (m, ka) = if ta { (ta_.shape[1], ta_.shape[0]) } else { (ta_.shape[0], ta_.shape[1]) };
        let (kb, n) = if tb { (tb_.shape[1], tb_.shape[0]) } else { (tb_.shape[0], tb_.shape[1]) };
        if ka != kb {
            return Err(self.err(
                op,
                format!(
                    "inner dimensions differ: {} gives K = {ka}, {} gives K = {kb}",
                    ta_.name, tb_.name
                ),
            ));
        }
        if [m, n] != [tc.shape[0], tc.shape[1]] {
            return Err(
                self.err(op, format!("product is [{m}, {n}] but {} is {:?}", tc.name, tc.shape))
            );
        }
        // Mixed inputs (f32 x f16) are fine; the accumulator must hold the wider of the two.
        let wide = if ta_.dtype == DType::F32 || tb_.dtype == DType::F32 {
            DType::F32
        } else {
            DType::F16
        };
        if !is_float(ta_.dtype)
            || !is_float(tb_.dtype)
            || !is_float(tc.dtype)
            || (tc.dtype == DType::F16 && wide == DType::F32)
        {
            let inputs = if ta_.dtype == tb_.dtype {
                ta_.dtype.to_string()
            } else {
                format!("{} x {}", ta_.dtype, tb_.dtype)
            };
            return Err(
                self.err(op, format!("{inputs} inputs cannot accumulate into {}", tc.dtype))
            );
        }
        for r in [a, b] {
            if let Region::Tile { stage: Some(s), .. } = r {
                self.index(&op, "the stage", s)?;
            }
        }
        Ok(())
    }

    fn reduce(
        &self,
        rop: ReduceOp,
        src: usize,
        stage: Option<&Expr>,
        dst: usize,
        axis: usize,
        clear: bool,
    ) -> Result<()> {
        let k = self.k;
        let (s_, d) = (&k.tiles[src], &k.tiles[dst]);
        let op = format!("reduce_{} {} -> {}", format!("{rop:?}").to_lowercase(), s_.name, d.name);
        if let Some(s) = stage {
            self.index(&op, "the stage", s)?;
        }
        if axis >= s_.shape.len() {
            return Err(
                self.err(op, format!("axis {axis} is out of range for rank {}", s_.shape.len()))
            );
        }
        let mut want = s_.shape.clone();
        want.remove(axis);
        if want.is_empty() {
            want.push(1);
        }
        if d.shape != want {
            return Err(self.err(
                op,
                format!(
                    "reducing {:?} along axis {axis} gives {want:?}, but {} is {:?}",
                    s_.shape, d.name, d.shape
                ),
            ));
        }
        if (s_.scope == Scope::Local) != (d.scope == Scope::Local) {
            return Err(self.err(op, "source and destination must both be local, or neither"));
        }
        if rop.is_arg() {
            if d.dtype != DType::U32 {
                return Err(self.err(
                    op,
                    format!("{} holds indices, so it must be u32, not {}", d.name, d.dtype),
                ));
            }
            if !clear {
                return Err(
                    self.err(op, "an index reduction cannot accumulate into earlier results")
                );
            }
        } else if s_.dtype != d.dtype {
            // A widening reduction: f16 (or bf16) values accumulated in f32.
            let widens = matches!(s_.dtype, DType::F16 | DType::BF16) && d.dtype == DType::F32;
            if !widens {
                return Err(self.err(
                    op,
                    format!(
                        "types differ: {} vs {} (a reduction may only widen f16 or bf16 to f32)",
                        s_.dtype, d.dtype
                    ),
                ));
            }
            if s_.stages > 1 {
                return Err(self.err(
                    op,
                    format!("widens the staged tile {}; copy the stage to a tile first", s_.name),
                ));
            }
        }
        Ok(())
    }
}

fn list(k: &crate::ir::Kernel, es: &[Expr]) -> String {
    es.iter().map(|e| k.expr_text(e)).collect::<Vec<_>>().join(", ")
}

//! Walkers over the IR: every expression of a statement, every statement of a body.

use super::{Expr, Kernel, Region, Stmt};

/// The expressions a statement holds directly (not those of nested statements).
pub fn stmt_exprs(s: &Stmt) -> Vec<&Expr> {
    fn region(r: &Region) -> Vec<&Expr> {
        match r {
            Region::Global { origin, .. } => origin.iter().collect(),
            Region::Tile { stage, .. } => stage.iter().collect(),
        }
    }
    match s {
        Stmt::Copy { src, dst, .. } => region(src).into_iter().chain(region(dst)).collect(),
        Stmt::Fill { value, .. } => vec![value],
        Stmt::Gemm { a, b, .. } => region(a).into_iter().chain(region(b)).collect(),
        Stmt::Reduce { src_stage, .. } => src_stage.iter().collect(),
        Stmt::Store { index, value, .. } | Stmt::AtomicAdd { index, value, .. } => {
            index.iter().chain([value]).collect()
        }
        Stmt::Let { value, .. } => vec![value],
        Stmt::For { extent, .. } | Stmt::Pipelined { extent, .. } => vec![extent],
        Stmt::If { cond, .. } => vec![cond],
        Stmt::Cumsum { .. } | Stmt::Parallel { .. } | Stmt::Barrier => Vec::new(),
    }
}

/// The statements nested directly in `s`.
pub fn stmt_bodies(s: &Stmt) -> Vec<&[Stmt]> {
    match s {
        Stmt::Parallel { body, .. } | Stmt::For { body, .. } | Stmt::Pipelined { body, .. } => {
            vec![body]
        }
        Stmt::If { then, otherwise, .. } => vec![then, otherwise],
        _ => Vec::new(),
    }
}

/// The position of statement `s` (by address: a statement of `k`'s body) in a pre-order walk
/// of the body: a statement, then those nested in it (see [`stmt_bodies`]), then the next.
pub fn position(k: &Kernel, s: &Stmt) -> Option<usize> {
    fn walk(body: &[Stmt], s: &Stmt, next: &mut usize) -> Option<usize> {
        for x in body {
            if std::ptr::eq(x, s) {
                return Some(*next);
            }
            *next += 1;
            for b in stmt_bodies(x) {
                if let Some(i) = walk(b, s, next) {
                    return Some(i);
                }
            }
        }
        None
    }
    walk(&k.body, s, &mut 0)
}

/// Statements in `body`, nested ones included.
pub fn count_stmts(body: &[Stmt]) -> usize {
    body.iter().map(|s| 1 + stmt_bodies(s).into_iter().map(count_stmts).sum::<usize>()).sum()
}

/// Calls `f` on every expression and sub-expression in `body`, nested statements included.
pub fn each_expr(body: &[Stmt], f: &mut impl FnMut(&Expr)) {
    fn expr(e: &Expr, f: &mut impl FnMut(&Expr)) {
        f(e);
        for c in e.children() {
            expr(c, f);
        }
    }
    for s in body {
        for e in stmt_exprs(s) {
            expr(e, f);
        }
        for b in stmt_bodies(s) {
            each_expr(b, f);
        }
    }
}

/// The name and value of `k`'s let `id`, wherever in the body it stands.
pub fn let_def(k: &Kernel, id: super::LetId) -> Option<(&str, &Expr)> {
    fn find(body: &[Stmt], id: super::LetId) -> Option<(&str, &Expr)> {
        body.iter().find_map(|s| match s {
            Stmt::Let { id: x, name, value } if *x == id => Some((name.as_str(), value)),
            _ => stmt_bodies(s).into_iter().find_map(|b| find(b, id)),
        })
    }
    find(&k.body, id)
}

/// Calls `f` on every statement in `body`, nested ones included, outer first.
pub fn each_stmt(body: &[Stmt], f: &mut impl FnMut(&Stmt)) {
    for s in body {
        f(s);
        for b in stmt_bodies(s) {
            each_stmt(b, f);
        }
    }
}

fn push_symbols(e: &Expr, out: &mut Vec<String>) {
    if let Expr::Sym(s) = e
        && !out.contains(s)
    {
        out.push(s.clone());
    }
    for c in e.children() {
        push_symbols(c, out);
    }
}

/// Every shape symbol `k` uses, in order of first appearance: parameter shapes, grid, `u32`
/// scalar arguments, then the body.
pub fn symbols(k: &Kernel) -> Vec<String> {
    let mut out = Vec::new();
    for p in &k.params {
        p.shape.iter().for_each(|d| push_symbols(d, &mut out));
    }
    k.grid.iter().for_each(|g| push_symbols(g, &mut out));
    for s in &k.scalars {
        if s.dtype == super::DType::U32 && !out.contains(&s.name) {
            out.push(s.name.clone());
        }
    }
    each_expr(&k.body, &mut |e| {
        if let Expr::Sym(s) = e
            && !out.contains(s)
        {
            out.push(s.clone());
        }
    });
    out
}

/// An id above every variable's in `k` (for variables a pass adds).
pub fn next_var_id(k: &Kernel) -> u32 {
    let mut top = 2; // the block indices
    each_expr(&k.body, &mut |e| {
        if let Expr::Var(v) = e {
            top = top.max(v.id);
        }
    });
    each_stmt(&k.body, &mut |s| match s {
        Stmt::Parallel { vars, .. } => vars.iter().for_each(|v| top = top.max(v.id)),
        Stmt::For { var, .. } | Stmt::Pipelined { var, .. } => top = top.max(var.id),
        _ => {}
    });
    top + 1
}

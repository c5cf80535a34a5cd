//! Uniform bounds guards: a parallel loop whose parameter accesses test only coordinates that
//! are the same for every thread (a row chosen by the threadgroup index, a token's batch
//! index; the per-thread ones proven inside) gets a twin without any test, taken when one test
//! before the loop shows them all true. Loops that would keep some per-thread test are left
//! alone: the twin then costs code without removing the tests that cost time.
//!
//! The twin pays where proofs alone do not: with rope's per-thread coordinates already proven
//! inside (`typing::param_tests`), it took f16 rope on an H200 from 64% to 79% of copy
//! bandwidth.

use crate::ir::{BinOp, VarKind};
use crate::lir::{Dist, ETy, ElemRef, Lowered, Op, ParamInfo, ParamIx, TExpr, TKind};

/// Adds the guarded twins (see the module docs).
pub fn hoist_uniform_tests(l: &mut Lowered) {
    hoist(&mut l.body, &l.params);
}

fn hoist(ops: &mut [Op], params: &[ParamInfo]) {
    for op in ops.iter_mut() {
        match op {
            // Matrix epilogues are left alone: their twin slowed a batched gemm (by 30% on an
            // H200).
            Op::Parallel { body, dist, .. } if !matches!(dist, Dist::Matrix(_)) => {
                let mut conds = Vec::new();
                let mut all_uniform = true;
                for o in body.iter() {
                    all_uniform &= uniform_tests(o, params, &mut conds);
                }
                if !all_uniform {
                    continue;
                }
                let Some(cond) = conds.into_iter().reduce(|a, b| TExpr {
                    ty: ETy::Bool,
                    kind: TKind::Bin(BinOp::And, Box::new(a), Box::new(b)),
                }) else {
                    continue;
                };
                let mut fast = op.clone();
                if let Op::Parallel { body, .. } = &mut fast {
                    body.iter_mut().for_each(drop_uniform_tests);
                }
                let slow = std::mem::replace(op, Op::Barrier);
                *op = Op::If { cond, then: vec![fast], otherwise: vec![slow] };
            }
            Op::For { body, .. } => hoist(body, params),
            Op::If { then, otherwise, .. } => {
                hoist(then, params);
                hoist(otherwise, params);
            }
            _ => {}
        }
    }
}

/// Whether `e` has one value across the threadgroup: built from constants, shape symbols,
/// scalar arguments, threadgroup indices and serial loop counters.
fn uniform(e: &TExpr) -> bool {
    match &e.kind {
        TKind::Lit(_) | TKind::Sym(_) | TKind::Scalar(_) => true,
        // Lets live in parallel bodies, whose values differ per element.
        TKind::Local(..) => false,
        TKind::Var(v) => matches!(v.kind, VarKind::Block(_) | VarKind::Loop),
        TKind::Bin(_, a, b) => uniform(a) && uniform(b),
        TKind::Math(_, a) | TKind::Cast(a) | TKind::Bitcast(a) | TKind::HalfBits(a) => uniform(a),
        TKind::Select(c, a, b) | TKind::Fma(c, a, b) => uniform(c) && uniform(a) && uniform(b),
        TKind::Tile(_)
        | TKind::FragmentSlot(_)
        | TKind::Param(..)
        | TKind::ParamLane(..)
        | TKind::Word(..)
        | TKind::WordLane(..) => false,
    }
}

/// `idx < dim` for each tested axis of each parameter access in `op` whose coordinate is
/// uniform, each test once; `false` when some tested coordinate is not uniform.
fn uniform_tests(op: &Op, params: &[ParamInfo], out: &mut Vec<TExpr>) -> bool {
    let mut all = true;
    let mut add = |p: ParamIx, idx: &[TExpr], tests: &[bool]| {
        for (d, (i, t)) in idx.iter().zip(tests).enumerate() {
            if *t && !uniform(i) {
                all = false;
            }
            if *t && uniform(i) {
                let test = TExpr {
                    ty: ETy::Bool,
                    kind: TKind::Bin(
                        BinOp::Lt,
                        Box::new(i.clone()),
                        Box::new(params[p].shape[d].clone()),
                    ),
                };
                if !out.contains(&test) {
                    out.push(test);
                }
            }
        }
    };
    each_access(op, &mut add);
    all
}

/// Calls `f(param, index, tests)` on every parameter element `op` reads or writes.
fn each_access(op: &Op, f: &mut impl FnMut(ParamIx, &[TExpr], &[bool])) {
    match op {
        Op::Store { target, value } => {
            if let ElemRef::Param(p, idx, tests) = target {
                f(*p, idx, tests);
                idx.iter().for_each(|e| expr_accesses(e, f));
            }
            if let ElemRef::Tile(el) = target {
                el.index.iter().for_each(|e| expr_accesses(e, f));
            }
            expr_accesses(value, f);
        }
        Op::If { cond, then, otherwise } => {
            expr_accesses(cond, f);
            then.iter().chain(otherwise).for_each(|o| each_access(o, f));
        }
        Op::For { extent, body, .. } => {
            expr_accesses(extent, f);
            body.iter().for_each(|o| each_access(o, f));
        }
        Op::Parallel { body, .. } => body.iter().for_each(|o| each_access(o, f)),
        Op::Let { value, .. } => expr_accesses(value, f),
        _ => {}
    }
}

fn expr_accesses(e: &TExpr, f: &mut impl FnMut(ParamIx, &[TExpr], &[bool])) {
    if let TKind::Param(p, idx, tests) = &e.kind {
        f(*p, idx, tests);
    }
    e.children().into_iter().for_each(|c| expr_accesses(c, f));
}

/// Clears the tests of uniform coordinates in `op` (the guard before the loop made them).
fn drop_uniform_tests(op: &mut Op) {
    match op {
        Op::Store { target, value } => {
            if let ElemRef::Param(_, idx, tests) = target {
                clear(idx, tests);
                idx.iter_mut().for_each(drop_in_expr);
            }
            if let ElemRef::Tile(el) = target {
                el.index.iter_mut().for_each(drop_in_expr);
            }
            drop_in_expr(value);
        }
        Op::If { cond, then, otherwise } => {
            drop_in_expr(cond);
            then.iter_mut().chain(otherwise.iter_mut()).for_each(drop_uniform_tests);
        }
        Op::For { extent, body, .. } => {
            drop_in_expr(extent);
            body.iter_mut().for_each(drop_uniform_tests);
        }
        Op::Parallel { body, .. } => body.iter_mut().for_each(drop_uniform_tests),
        Op::Let { value, .. } => drop_in_expr(value),
        _ => {}
    }
}

fn clear(idx: &[TExpr], tests: &mut [bool]) {
    for (i, t) in idx.iter().zip(tests.iter_mut()) {
        if uniform(i) {
            *t = false;
        }
    }
}

fn drop_in_expr(e: &mut TExpr) {
    if let TKind::Param(_, idx, tests) = &mut e.kind {
        clear(idx, tests);
    }
    e.children_mut().into_iter().for_each(drop_in_expr);
}

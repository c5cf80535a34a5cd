//! Range analysis, in one place: the largest value a u32 index expression can take and whether
//! it is a multiple of a width, whatever the launch. The typing pass turns these into bounds
//! proofs (`Bounds::Proven` element reads, window copies with no masked path); nothing else
//! proves an index in bounds.

use crate::fold::u32_value;
use crate::ir::{BinOp, Expr, Var, VarKind};

/// What the analysis knows about the variables in scope at an expression.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scope<'a> {
    /// Threads per threadgroup (thread indices lie below it).
    pub threads: u32,
    /// The kernel's grid (block indices lie below it where it is constant).
    pub grid: &'a [Expr],
    /// Parallel variables in scope with their extents.
    pub parallel: &'a [(Var, u32)],
    /// Serial loop counters in scope whose extent is a constant, with that extent.
    pub loops: &'a [(Var, u32)],
}

/// The largest value `e` can take in `scope`, where the analysis knows one (no step may wrap
/// past u32): from constants, parallel extents, the thread count, constant loop trip counts
/// and a constant grid (the launch runs the kernel's own grid).
pub(crate) fn max_value(e: &Expr, scope: &Scope) -> Option<u64> {
    let fits = |v: u64| (v <= u32::MAX as u64).then_some(v);
    let max = |x: &Expr| max_value(x, scope);
    let last_below = |vars: &[(Var, u32)], v: &Var| {
        vars.iter().rev().find(|(x, _)| x == v).map(|(_, ext)| (*ext as u64).saturating_sub(1))
    };
    if let Some(v) = u32_value(e) {
        return Some(v);
    }
    match e {
        Expr::Var(v) => match v.kind {
            VarKind::Parallel => last_below(scope.parallel, v),
            VarKind::Thread => Some((scope.threads as u64).saturating_sub(1)),
            VarKind::Loop => last_below(scope.loops, v),
            // The launch runs the kernel's own grid (the launch description's).
            VarKind::Block(d) => {
                scope.grid.get(d as usize).and_then(u32_value).map(|g| g.saturating_sub(1))
            }
        },
        Expr::Bin(op, a, b) => match op {
            BinOp::Add => fits(max(a)? + max(b)?),
            BinOp::Mul => fits(max(a)?.checked_mul(max(b)?)?),
            BinOp::Div => {
                let d = u32_value(b).filter(|d| *d > 0)?;
                Some(max(a)? / d)
            }
            BinOp::Rem => match u32_value(b).filter(|d| *d > 0) {
                Some(d) => Some(max(a).map_or(d - 1, |m| m.min(d - 1))),
                None => max(a),
            },
            BinOp::Shr => Some(max(a)? >> u32_value(b).filter(|s| *s < 32)?),
            // min(a, b) is at most whichever bound is known.
            BinOp::Min => match (max(a), max(b)) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            },
            // a ^ m sets no bit above the highest of max(a) and m.
            BinOp::BitXor | BinOp::BitOr => {
                let all = |v: u64| if v == 0 { 0 } else { u64::MAX >> v.leading_zeros() };
                Some(all(max(a)?) | all(max(b)?))
            }
            _ => None,
        },
        Expr::Select(_, a, b) => Some(max(a)?.max(max(b)?)),
        _ => None,
    }
}

/// `e` is a multiple of `w` whatever the launch (constants, and products and sums of them).
pub(crate) fn multiple_of(e: &Expr, w: u64) -> bool {
    match e {
        Expr::Int(n) => *n % w as i64 == 0,
        Expr::Bin(BinOp::Mul, a, b) => multiple_of(a, w) || multiple_of(b, w),
        Expr::Bin(BinOp::Add, a, b) => multiple_of(a, w) && multiple_of(b, w),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }
    fn var(id: u32, kind: VarKind) -> Var {
        Var { id, kind }
    }

    #[test]
    fn parallel_extents_and_threads_bound_an_index() {
        let (i, j) = (var(0, VarKind::Parallel), var(1, VarKind::Parallel));
        let parallel = [(i, 64), (j, 4)];
        let scope = Scope { threads: 256, grid: &[], parallel: &parallel, loops: &[] };
        // i * 4 + j over 64 x 4 lies below 256.
        let e = bin(BinOp::Add, bin(BinOp::Mul, Expr::Var(i), Expr::Int(4)), Expr::Var(j));
        assert_eq!(max_value(&e, &scope), Some(255));
        let t = Expr::Var(var(2, VarKind::Thread));
        assert_eq!(max_value(&bin(BinOp::Div, t.clone(), Expr::Int(32)), &scope), Some(7));
        assert_eq!(
            max_value(&bin(BinOp::Rem, Expr::Sym("N".into()), Expr::Int(8)), &scope),
            Some(7)
        );
        assert_eq!(max_value(&bin(BinOp::BitXor, t, Expr::Int(1)), &scope), Some(255));
        assert_eq!(max_value(&Expr::Sym("N".into()), &scope), None, "a symbol has no bound");
    }

    #[test]
    fn loop_trip_counts_and_a_constant_grid_bound_an_index() {
        let l = var(0, VarKind::Loop);
        let b = var(1, VarKind::Block(0));
        let grid = [Expr::Int(16)];
        let loops = [(l, 8)];
        let mut scope = Scope { threads: 32, grid: &grid, parallel: &[], loops: &loops };
        let e = bin(BinOp::Add, bin(BinOp::Mul, Expr::Var(b), Expr::Int(8)), Expr::Var(l));
        assert_eq!(max_value(&e, &scope), Some(15 * 8 + 7));
        // A counter of a loop whose trip count is not a constant bounds nothing.
        let other = Expr::Var(var(2, VarKind::Loop));
        assert_eq!(max_value(&bin(BinOp::Add, Expr::Var(b), other), &scope), None);
        // A grid given by a symbol bounds nothing.
        let grid = [Expr::Sym("G".into())];
        scope.grid = &grid;
        assert_eq!(max_value(&e, &scope), None);
    }

    #[test]
    fn a_bound_that_would_wrap_is_unknown() {
        let scope = Scope { threads: 1, grid: &[], parallel: &[], loops: &[] };
        let big = bin(BinOp::Mul, Expr::Int(1 << 20), Expr::Int(1 << 12));
        assert_eq!(max_value(&big, &scope), None);
        assert_eq!(
            max_value(&bin(BinOp::Add, Expr::Int(u32::MAX as i64), Expr::Int(1)), &scope),
            None
        );
    }

    #[test]
    fn multiples_follow_products_and_sums() {
        let n = Expr::Sym("N".into());
        let e = bin(BinOp::Add, bin(BinOp::Mul, n.clone(), Expr::Int(8)), Expr::Int(4));
        assert!(multiple_of(&e, 4));
        assert!(!multiple_of(&e, 8));
        assert!(!multiple_of(&n, 2));
    }
}

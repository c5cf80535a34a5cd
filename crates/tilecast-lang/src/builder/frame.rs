//! The builder's open blocks: a frame per block, with its statements and their locations
//! (see `blocks.rs`, which opens and closes them).

use crate::ir::{Expr, Stmt, Var};

/// What closes a frame into a statement of its parent.
pub(super) enum Open {
    /// The kernel body.
    Body,
    Serial {
        var: Var,
        extent: Expr,
    },
    Pipelined {
        var: Var,
        extent: Expr,
        stages: u32,
    },
    Parallel {
        vars: Vec<Var>,
        extents: Vec<u32>,
    },
    Then {
        cond: Expr,
    },
    Else {
        cond: Expr,
        then: Vec<Stmt>,
        then_locs: Vec<Option<String>>,
    },
}

/// One open block.
pub(super) struct Frame {
    pub(super) open: Open,
    /// Where the statement the block closes into was written.
    pub(super) loc: Option<String>,
    pub(super) stmts: Vec<Stmt>,
    /// The location of every statement in `stmts`, nested ones included, in pre-order.
    pub(super) locs: Vec<Option<String>>,
    /// The last statement is an `if` closed without an else branch, which may open one.
    pub(super) else_may_follow: bool,
}

impl Frame {
    pub(super) fn body() -> Frame {
        Frame {
            open: Open::Body,
            loc: None,
            stmts: Vec::new(),
            locs: Vec::new(),
            else_may_follow: false,
        }
    }
}

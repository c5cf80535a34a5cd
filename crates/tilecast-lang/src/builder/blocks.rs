//! Control flow and source locations for the builder.
//!
//! A block (a loop body, a parallel body, a branch) is a frame on the builder's stack: its
//! statements, and the source location of each statement in pre-order. Rust code opens and
//! closes blocks through closures (`k.serial(n, |k, i| ..)`); front ends that cannot pass
//! closures (Python's `with` statements) call the `open_*` methods and [`Kernel::close`].
//! The locations are what a front end set with [`Kernel::set_location`] when each statement
//! was written; [`Kernel::build_located`] returns them in the order of [`crate::Site::Stmt`],
//! so a verifier error maps back to the line that wrote the statement.

use super::Kernel;
use super::frame::{Frame, Open};
use crate::ir::{Expr, Stmt, Var, VarKind, visit};
use crate::{Error, Result};

impl Kernel {
    /// Tags the statements written from now on with `location` (a front end's `file:line`),
    /// or with none.
    pub fn set_location(&self, location: Option<&str>) {
        self.state.borrow_mut().location = location.map(str::to_string);
    }

    pub(super) fn push(&self, s: Stmt) {
        let mut st = self.state.borrow_mut();
        let loc = st.location.clone();
        let frame = st.frames.last_mut().expect("the body frame is never closed");
        frame.stmts.push(s);
        frame.locs.push(loc);
        frame.else_may_follow = false;
    }

    fn open(&self, open: Open) {
        let mut st = self.state.borrow_mut();
        let loc = st.location.clone();
        st.frames.last_mut().expect("the body frame is never closed").else_may_follow = false;
        st.frames.push(Frame {
            open,
            loc,
            stmts: Vec::new(),
            locs: Vec::new(),
            else_may_follow: false,
        });
    }

    fn new_var(&self, kind: VarKind) -> Var {
        let mut st = self.state.borrow_mut();
        st.next_var += 1;
        Var { id: st.next_var, kind }
    }

    /// Blocks open now (0 at the kernel body).
    pub fn open_blocks(&self) -> usize {
        self.state.borrow().frames.len() - 1
    }

    /// Opens the body of a serial loop over `0..extent` and returns its index; [`close`](Self::close)
    /// ends it. The closure form is [`serial`](Self::serial).
    pub fn open_serial(&self, extent: impl Into<Expr>) -> Expr {
        let var = self.new_var(VarKind::Loop);
        self.open(Open::Serial { var, extent: extent.into() });
        Expr::Var(var)
    }

    /// Opens the body of a software-pipelined loop ([`pipelined`](Self::pipelined)).
    pub fn open_pipelined(&self, extent: impl Into<Expr>, stages: u32) -> Expr {
        let var = self.new_var(VarKind::Loop);
        self.open(Open::Pipelined { var, extent: extent.into(), stages });
        Expr::Var(var)
    }

    /// Opens an elementwise body over `extents` ([`parallel`](Self::parallel)) and returns the
    /// index of one element.
    pub fn open_parallel(&self, extents: &[u32]) -> Vec<Expr> {
        let vars: Vec<Var> = extents.iter().map(|_| self.new_var(VarKind::Parallel)).collect();
        let exprs = vars.iter().map(|v| Expr::Var(*v)).collect();
        self.open(Open::Parallel { vars, extents: extents.to_vec() });
        exprs
    }

    /// Opens the branch run when `cond` holds ([`if_`](Self::if_)).
    pub fn open_if(&self, cond: Expr) {
        self.open(Open::Then { cond });
    }

    /// Opens the branch run when the condition of the `if` just closed does not hold: the
    /// last statement of the current block must be an `if` without an else branch.
    pub fn open_else(&self) -> Result<()> {
        let mut st = self.state.borrow_mut();
        let name = st.kernel.name.clone();
        let frame = st.frames.last_mut().expect("the body frame is never closed");
        if !frame.else_may_follow {
            let message = match frame.stmts.last() {
                Some(Stmt::If { .. }) => "the if block before it has an else branch already",
                _ => "must follow an if block directly, in the same block",
            };
            return Err(Error::Verify {
                kernel: name,
                op: "else".into(),
                message: message.into(),
                at: None,
            });
        }
        frame.else_may_follow = false;
        let Some(Stmt::If { cond, then, .. }) = frame.stmts.pop() else {
            unreachable!("matched above")
        };
        let nested = visit::count_stmts(&then);
        // The tail of the block's locations is the if's, then its branch's.
        let then_locs = frame.locs.split_off(frame.locs.len() - nested);
        let loc = frame.locs.pop().flatten();
        st.frames.push(Frame {
            open: Open::Else { cond, then, then_locs },
            loc,
            stmts: Vec::new(),
            locs: Vec::new(),
            else_may_follow: false,
        });
        Ok(())
    }

    /// Closes the innermost open block into its statement.
    pub fn close(&self) -> Result<()> {
        let mut st = self.state.borrow_mut();
        if st.frames.len() < 2 {
            return Err(Error::Verify {
                kernel: st.kernel.name.clone(),
                op: "block".into(),
                message: "no block is open to close".into(),
                at: None,
            });
        }
        let Frame { open, loc, stmts: body, locs: body_locs, .. } =
            st.frames.pop().expect("checked above");
        let mut locs = vec![loc];
        let else_may_follow = matches!(open, Open::Then { .. });
        let stmt = match open {
            Open::Body => unreachable!("the body frame is the first and is never popped here"),
            Open::Serial { var, extent } => Stmt::For { var, extent, body },
            Open::Pipelined { var, extent, stages } => {
                Stmt::Pipelined { var, extent, stages, body }
            }
            Open::Parallel { vars, extents } => Stmt::Parallel { extents, vars, body },
            Open::Then { cond } => Stmt::If { cond, then: body, otherwise: Vec::new() },
            Open::Else { cond, then, then_locs } => {
                locs.extend(then_locs);
                Stmt::If { cond, then, otherwise: body }
            }
        };
        locs.extend(body_locs);
        let parent = st.frames.last_mut().expect("checked above");
        parent.stmts.push(stmt);
        parent.locs.extend(locs);
        parent.else_may_follow = else_may_follow;
        Ok(())
    }

    /// Closes a block opened by one of the closure forms below.
    fn close_own(&self) {
        self.close().expect("the closure forms open the block they close");
    }

    /// Elementwise work over `extents`; `f` gets the index of one element and stores results.
    pub fn parallel<const N: usize>(&self, extents: [u32; N], f: impl FnOnce(&Kernel, [Expr; N])) {
        let vars = self.open_parallel(&extents);
        f(self, std::array::from_fn(|i| vars[i].clone()));
        self.close_own();
    }

    /// [`parallel`](Self::parallel) with a rank known only at run time.
    pub fn parallel_dyn(&self, extents: &[u32], f: impl FnOnce(&Kernel, &[Expr])) {
        let vars = self.open_parallel(extents);
        f(self, &vars);
        self.close_own();
    }

    /// A serial loop over `0..extent`.
    pub fn serial(&self, extent: impl Into<Expr>, f: impl FnOnce(&Kernel, Expr)) {
        let i = self.open_serial(extent);
        f(self, i);
        self.close_own();
    }

    /// A software-pipelined loop over `0..extent` with `stages` buffers per shared tile it loads.
    pub fn pipelined(&self, extent: impl Into<Expr>, stages: u32, f: impl FnOnce(&Kernel, Expr)) {
        let i = self.open_pipelined(extent, stages);
        f(self, i);
        self.close_own();
    }

    /// Runs `then` when `cond` holds (a uniform condition).
    pub fn if_(&self, cond: Expr, then: impl FnOnce(&Kernel)) {
        self.open_if(cond);
        then(self);
        self.close_own();
    }

    /// Runs `then` when `cond` holds, `otherwise` when it does not (a uniform condition).
    pub fn if_else(&self, cond: Expr, then: impl FnOnce(&Kernel), otherwise: impl FnOnce(&Kernel)) {
        self.if_(cond, then);
        self.open_else().expect("an if without else was closed just above");
        otherwise(self);
        self.close_own();
    }

    /// Finishes the kernel as [`build`](Self::build) does, with the location set when each
    /// statement was written, in the order of [`crate::Site::Stmt`] positions.
    pub fn build_located(self) -> (crate::ir::Kernel, Vec<Option<String>>) {
        while self.open_blocks() > 0 {
            self.close_own();
        }
        let mut st = self.state.into_inner();
        let Frame { stmts, locs, .. } = st.frames.pop().expect("the body frame");
        st.kernel.body = stmts;
        st.kernel.symbols = visit::symbols(&st.kernel);
        (st.kernel, locs)
    }
}

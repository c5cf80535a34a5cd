//! The order back ends issue a block's ops in: loads the lowering chained together come as one
//! run.

use super::Op;
use super::load::WindowLoad;

/// The ops of `body` in the order back ends issue them: a run of loads the lowering chained with
/// [`CopyPlan::issue_with_next`](super::CopyPlan::issue_with_next) comes as one slice (the load that ends the chain included),
/// every other op as a slice of one.
pub fn issue_runs(body: &[Op]) -> impl Iterator<Item = &[Op]> {
    let mut rest = body;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = 0;
        while let Op::Load(WindowLoad { plan, .. }) = &rest[end] {
            if !plan.issue_with_next || end + 1 == rest.len() {
                break;
            }
            end += 1;
        }
        let (run, tail) = rest.split_at(end + 1);
        rest = tail;
        Some(run)
    })
}

//! What a lowered reduction's strategy implies for the back ends: which path prints it, the
//! line reduction that finishes a register reduction, the operator partials combine with, and
//! the name listings print.

use super::{Dist, Reduce, ReducePath, ReduceStrategy, RegisterReduction, TileInfo, TileSlot};
use crate::ir::ReduceOp;

/// The lines a reduction folds, as every path prints them.
pub struct ReduceLines {
    /// The source's shape.
    pub shape: Vec<u32>,
    /// Outputs: the destination's elements.
    pub outputs: u64,
    /// Elements along the reduced axis.
    pub len: u32,
    /// The outputs' shape: the source's without the reduced axis.
    pub out_shape: Vec<u32>,
}

impl Reduce {
    /// The lines this reduction folds, given the lowered kernel's tiles.
    pub fn lines(&self, tiles: &[TileInfo]) -> ReduceLines {
        let shape = tiles[self.src.tile].shape.clone();
        let mut out_shape = shape.clone();
        out_shape.remove(self.axis);
        ReduceLines { outputs: tiles[self.dst].elements(), len: shape[self.axis], out_shape, shape }
    }

    /// The path a back end prints this reduction along.
    pub fn path(&self) -> ReducePath {
        match self.strategy {
            ReduceStrategy::Serial | ReduceStrategy::Subgroup => ReducePath::Lines,
            ReduceStrategy::SplitSubgroups { partials } => ReducePath::Split(partials),
            ReduceStrategy::Registers(g) => match g.arg_partials {
                Some(args) => ReducePath::RegisterArgs(g, args),
                None => ReducePath::Registers(g),
            },
            ReduceStrategy::Lanes { lanes, unrolled } => ReducePath::Lanes(lanes, unrolled),
            ReduceStrategy::WorkgroupRows => ReducePath::WorkgroupRows,
        }
    }
}

impl RegisterReduction {
    /// The reduction of `partials` along its rows into `r.dst` that finishes the value
    /// reduction `r` after its barrier: by one subgroup per row when `combine_subgroup`, else
    /// serially. `None` when the subgroups combined first (`subgroup_first`): then one thread
    /// per row combines the subgroups' partials.
    pub fn final_combine(&self, r: &Reduce) -> Option<Reduce> {
        if self.subgroup_first {
            return None;
        }
        let strategy =
            if self.combine_subgroup { ReduceStrategy::Subgroup } else { ReduceStrategy::Serial };
        Some(Reduce {
            op: final_op(r.op),
            src: TileSlot { tile: self.partials, stage: None },
            dst: r.dst,
            axis: 1,
            clear: r.clear,
            dist: Dist::Threads,
            strategy,
        })
    }
}

/// The operator partial results of `op` combine with: a sum for the sums (partials are
/// already absolute values or squares).
pub fn final_op(op: ReduceOp) -> ReduceOp {
    if matches!(op, ReduceOp::AbsSum | ReduceOp::SqSum) { ReduceOp::Sum } else { op }
}

/// The name a reduction prints as in listings.
pub fn reduce_name(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "sum",
        ReduceOp::Max => "max",
        ReduceOp::Min => "min",
        ReduceOp::AbsSum => "abs_sum",
        ReduceOp::SqSum => "sq_sum",
        ReduceOp::Argmax => "argmax",
        ReduceOp::Argmin => "argmin",
    }
}

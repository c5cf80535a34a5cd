//! The native SPIR-V back end: prints a [`Lowered`] kernel into a SPIR-V module with rspirv,
//! for the Vulkan driver directly. It prints what the WGSL back end prints, from the same
//! decisions (layouts, plans, distributions, bounds checks, barriers); only spellings differ:
//! accessors become inline masked loads, loops carry their counters in phis, every `if` is a
//! structured selection. It prints every kernel of the library, matrix fragments, reductions
//! and packed and atomic parameters included; a kernel it cannot print (a copy plan's vector
//! width it has no spelling for, a copy of workgroup-scope matrices between tiles, float atomic
//! adds, a vector view of a packed parameter) is refused with the reason, as [`Unsupported`],
//! and runs through WGSL.
//! - `kinds`: the scalar kinds values compute in, and parameters' buffers;
//! - `module`: types, constants, the push-constant block, buffers, tiles, builtins;
//! - `expr`: typed expressions and parameter and tile element access;
//! - `places`: fragment coordinates, element loops, window coordinates;
//! - `copy`: fills, copies between tiles and global windows;
//! - `elementwise`: parallel loops and element stores;
//! - `reduce`, `reduce_registers`: reductions and scans;
//! - `gemm`, `matrix`, `tensor`: SIMT gemms, subgroup matrices, workgroup-scope matrices;
//! - `packed`: u8, i8, bf16 and fp8 parameters in u32 words.

mod copy;
mod elementwise;
mod expr;
mod functions;
mod gemm;
mod kinds;
mod matrix;
mod module;
mod packed;
mod places;
mod reduce;
mod reduce_registers;
mod tensor;
mod tile_copy;
mod views;
mod workgroup;

use std::collections::{HashMap, HashSet};

use rspirv::binary::{Assemble, Disassemble};
use rspirv::dr::Builder;
use rspirv::spirv::{
    LoopControl, MemorySemantics, Op, Scope, SelectionControl, StorageClass, Word,
};

use crate::ir::Var;
use crate::lir::{Lowered, Op as LOp, ParamIx, TExpr, TileIx, issue_runs};
use kinds::{Buffer, Kind};

/// Why the native back end cannot print a kernel (it then runs through WGSL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// SPIR-V 1.3 words for `l`.
pub fn write(l: &Lowered) -> Result<Vec<u32>, Unsupported> {
    let mut p = Printer::new(l);
    p.declare()?;
    p.ops(&l.body)?;
    p.b.ret().expect("inside the entry point's last block");
    p.b.end_function().expect("inside the entry point");
    p.workgroup_functions()?;
    Ok(p.b.module().assemble())
}

/// The disassembly of SPIR-V `words` (what `tilecast emit --target spirv` prints).
pub fn disassemble(words: &[u32]) -> String {
    match rspirv::dr::load_words(words) {
        Ok(m) => m.disassemble(),
        Err(e) => format!("; not a SPIR-V module: {e}"),
    }
}

/// A vector load of a run: parameter, coordinates of its first element (or word), masked.
pub(crate) type LaneLoad = (ParamIx, Vec<TExpr>, bool);

/// Printing state: the builder, the ids of everything declared, and where the body stands.
pub(crate) struct Printer<'a> {
    pub(crate) l: &'a Lowered,
    pub(crate) b: Builder,
    pub(crate) glsl_set: Word,
    /// The push-constant variable and its members' types.
    pub(crate) args: Option<(Word, Vec<Word>)>,
    pub(crate) buffers: Vec<Buffer>,
    /// Each parameter's `vec4` view, if any.
    pub(crate) views: Vec<Option<Word>>,
    /// Each tile's array variable and its storage class.
    pub(crate) tile_vars: Vec<Option<(Word, StorageClass)>>,
    /// Each matrix fragment's accumulator variables, one per matrix the subgroup owns.
    pub(crate) matrix_vars: HashMap<TileIx, Vec<Word>>,
    /// Interned scalar constants: (type, bits) -> id.
    pub(crate) constants: HashMap<(Word, u32), Word>,
    /// Interned types already decorated.
    pub(crate) decorated: HashSet<Word>,
    /// The label of the block being printed.
    pub(crate) block: Word,
    pub(crate) tid: Word,
    pub(crate) block_ids: [Word; 3],
    /// Subgroup lane, size, id and count (with [`crate::lir::Features::subgroups`]).
    pub(crate) subgroup: [Word; 4],
    /// Current values of loop and parallel variables.
    pub(crate) vars: HashMap<Var, Word>,
    /// Values of lets, by number.
    pub(crate) locals: HashMap<usize, Word>,
    /// Inside a loop over a fragment: the current register slot, and its row's slot in a row
    /// statistic.
    pub(crate) slot: Option<Word>,
    pub(crate) row_slot: Option<Word>,
    /// Over a row statistic: whether this thread stores a row's value to memory.
    pub(crate) owner: Option<Word>,
    /// Vector reads of the run being printed: parameter, coordinates, vector, column xor.
    pub(crate) run_reads: Vec<(ParamIx, Vec<TExpr>, Word, u32)>,
    pub(crate) run_lane: Option<u32>,
    /// Vector loads of runs made in the current block, for lets reading their lanes.
    pub(crate) lane_loads: Vec<(LaneLoad, Word)>,
    /// The parameter axes the window of the copy being printed spans.
    pub(crate) axes: Vec<usize>,
    /// The thread-index, threadgroup-index and subgroup builtin variables (loaded again in
    /// every function that reads them).
    pub(crate) inputs: (Word, Word, Vec<Word>),
    /// Functions workgroup-scope matrix operations call, printed after the entry point.
    pub(crate) workgroup: functions::WorkgroupFunctions,
    /// Inside a per-element function: the elements of the other matrices it reads.
    pub(crate) element_args: HashMap<TileIx, Word>,
    /// Inside a per-element function: the matrix tile and the local variable holding its
    /// element, which the body's element reads and writes go to.
    pub(crate) element_cell: Option<(TileIx, Word)>,
}

impl<'a> Printer<'a> {
    fn new(l: &'a Lowered) -> Self {
        Printer {
            l,
            b: Builder::new(),
            glsl_set: 0,
            args: None,
            buffers: Vec::new(),
            views: Vec::new(),
            tile_vars: vec![None; l.tiles.len()],
            decorated: HashSet::new(),
            constants: HashMap::new(),
            matrix_vars: HashMap::new(),
            block: 0,
            tid: 0,
            block_ids: [0; 3],
            subgroup: [0; 4],
            vars: HashMap::new(),
            locals: HashMap::new(),
            slot: None,
            row_slot: None,
            owner: None,
            run_reads: Vec::new(),
            run_lane: None,
            lane_loads: Vec::new(),
            axes: Vec::new(),
            inputs: (0, 0, Vec::new()),
            workgroup: Default::default(),
            element_args: HashMap::new(),
            element_cell: None,
        }
    }

    /// Starts block `label`.
    fn begin(&mut self, label: Word) {
        self.b.begin_block(Some(label)).expect("inside the entry point");
        self.block = label;
        self.lane_loads.clear();
    }

    /// `if (cond) { then }`.
    pub(crate) fn if_then(
        &mut self,
        cond: Word,
        then: impl FnOnce(&mut Self) -> Result<(), Unsupported>,
    ) -> Result<(), Unsupported> {
        let (t, merge) = (self.b.id(), self.b.id());
        self.b.selection_merge(merge, SelectionControl::NONE).expect("in a block");
        self.b.branch_conditional(cond, t, merge, []).expect("in a block");
        self.begin(t);
        then(self)?;
        self.b.branch(merge).expect("in a block");
        self.begin(merge);
        Ok(())
    }

    /// `if (cond) { then } else { otherwise }`.
    pub(crate) fn if_else(
        &mut self,
        cond: Word,
        then: impl FnOnce(&mut Self) -> Result<(), Unsupported>,
        otherwise: impl FnOnce(&mut Self) -> Result<(), Unsupported>,
    ) -> Result<(), Unsupported> {
        let (t, f, merge) = (self.b.id(), self.b.id(), self.b.id());
        self.b.selection_merge(merge, SelectionControl::NONE).expect("in a block");
        self.b.branch_conditional(cond, t, f, []).expect("in a block");
        self.begin(t);
        then(self)?;
        self.b.branch(merge).expect("in a block");
        self.begin(f);
        otherwise(self)?;
        self.b.branch(merge).expect("in a block");
        self.begin(merge);
        Ok(())
    }

    /// `for (i = start; i < end; i += step) { body(i) }` over u32, the counter in a phi.
    pub(crate) fn loop_range(
        &mut self,
        start: Word,
        end: Word,
        step: Word,
        body: impl FnOnce(&mut Self, Word) -> Result<(), Unsupported>,
    ) -> Result<(), Unsupported> {
        let u = self.ty(Kind::U32);
        let bool_t = self.ty(Kind::Bool);
        let (header, inner, cont, merge) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
        let (i, next) = (self.b.id(), self.b.id());
        let entry = self.block;
        self.b.branch(header).expect("in a block");
        self.begin(header);
        self.b.phi(u, Some(i), [(start, entry), (next, cont)]).expect("in a block");
        let c = self.inst(Op::ULessThan, bool_t, &[i, end]);
        self.b.loop_merge(merge, cont, LoopControl::NONE, []).expect("in a block");
        self.b.branch_conditional(c, inner, merge, []).expect("in a block");
        self.begin(inner);
        body(self, i)?;
        self.b.branch(cont).expect("in a block");
        self.begin(cont);
        self.b.i_add(u, Some(next), i, step).expect("in a block");
        self.b.branch(header).expect("in a block");
        self.begin(merge);
        Ok(())
    }

    /// A workgroup barrier that also orders threadgroup memory.
    pub(crate) fn barrier(&mut self) {
        let wg = self.u(Scope::Workgroup as u32);
        let sem =
            self.u((MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY).bits());
        self.b.control_barrier(wg, wg, sem).expect("in a block");
    }

    pub(crate) fn ops(&mut self, ops: &[LOp]) -> Result<(), Unsupported> {
        for run in issue_runs(ops) {
            // A run of loads the lowering grouped is printed together.
            match run {
                [op] => self.op(op)?,
                _ => self.load_group(run)?,
            }
        }
        Ok(())
    }

    fn op(&mut self, op: &LOp) -> Result<(), Unsupported> {
        match op {
            LOp::Barrier => {
                self.barrier();
                Ok(())
            }
            LOp::Fill { tile, value, dist } => self.fill(*tile, value, *dist),
            LOp::Load(w) => self.load(w),
            LOp::Save { src, param, origin, axes, plan } => {
                self.axes = axes.clone();
                self.save(src, *param, origin, plan)
            }
            LOp::CopyTiles { src, dst, dist } => self.copy_tiles(src, dst, *dist),
            LOp::Parallel { extents, vars, dist, unrolled, vector_reads, body } => {
                self.parallel(extents, vars, *dist, (*unrolled, vector_reads), body)
            }
            LOp::Store { target, value } => self.store(target, value),
            LOp::Let { id, value, .. } => {
                let v = self.expr(value)?;
                self.locals.insert(*id, v);
                Ok(())
            }
            LOp::For { var, extent, uniform_slot, body } => {
                let mut n = self.expr(extent)?;
                if let Some(s) = uniform_slot {
                    // Thread 0 writes the trip count; every thread reads it after a barrier,
                    // so the loop is uniform (its body may hold barriers).
                    let zero = self.u(0);
                    let bool_t = self.ty(Kind::Bool);
                    let first = self.inst(Op::IEqual, bool_t, &[self.tid, zero]);
                    let ptr = self.tile_ptr(*s, zero);
                    self.if_then(first, |p| {
                        p.b.store(ptr, n, None, []).expect("in a block");
                        Ok(())
                    })?;
                    self.barrier();
                    let u = self.ty(Kind::U32);
                    let ptr = self.tile_ptr(*s, zero);
                    n = self.inst(Op::Load, u, &[ptr]);
                    self.barrier();
                }
                let (zero, one) = (self.u(0), self.u(1));
                self.loop_range(zero, n, one, |p, i| {
                    p.vars.insert(*var, i);
                    p.ops(body)
                })
            }
            LOp::If { cond, then, otherwise } => {
                let c = self.expr(cond)?;
                if otherwise.is_empty() {
                    self.if_then(c, |p| p.ops(then))
                } else {
                    self.if_else(c, |p| p.ops(then), |p| p.ops(otherwise))
                }
            }
            LOp::Gemm { a, b, c, trans_a, trans_b, lowering } => {
                self.gemm(&self.l.gemm_operands(a, b, *c, (*trans_a, *trans_b)), lowering)
            }
            LOp::Reduce(r) => self.reduce(r),
            LOp::Cumsum { src, dst, axis, dist } => self.cumsum(*src, *dst, *axis, *dist),
            LOp::AtomicAdd { param, index, value } => self.atomic_add(*param, index, value),
            LOp::EpilogueSave { vars, body, src, param, origin, axes } => {
                self.axes = axes.clone();
                let org = origin.iter().map(|o| self.expr(o)).collect::<Result<Vec<_>, _>>()?;
                self.save_matrix(src.tile, *param, &org, Some((vars, body)))
            }
        }
    }
}

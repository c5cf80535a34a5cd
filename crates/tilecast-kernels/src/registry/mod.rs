//! The kernel registry's types: an [`Entry`] says, for one library kernel, how a problem runs
//! (its [`Plan`]: the family's decision and the launches made from it), what its arguments are,
//! how to check it (CPU reference and tolerance), which shapes the benchmark suite runs, and how
//! much work a launch does. The CLI's `bench` and `emit`, the tests and the Python package all
//! read the table of entries (`registry/entries.rs`); adding a kernel is adding one entry there.

use std::fmt;
use std::sync::Arc;

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Profile};

use crate::attention::AttentionConfig;
use crate::attention::decode::DecodeConfig;
use crate::error::{Error, Result};
use crate::gemm::config::{GemmConfig, GemmStrategy};
use crate::rows::RowPlan;

mod args;
pub(crate) mod entries;
mod options;

pub use args::{ArgSpec, Expected, Fixed, FixedValues, Role, Tolerance};
pub use options::Options;

/// One problem: the kernel's dimensions (in its grammar's order) and the element type.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Sizes, one per name in [`About::dims`].
    pub dims: Vec<usize>,
    /// Element type of the main inputs.
    pub dtype: DType,
    /// Tiles for the gemm family, where the caller chose them (else chosen for the device).
    pub gemm: Option<GemmConfig>,
    /// Options beyond the dimensions (the attention family's).
    pub options: Options,
}

impl Problem {
    /// A problem of these sizes and type, no options.
    pub fn new(dims: Vec<usize>, dtype: DType) -> Problem {
        Problem { dims, dtype, gemm: None, options: Options::default() }
    }

    /// The shape as written: dims joined by `x`, then the options (`,kv=8,causal`).
    pub fn shape_text(&self) -> String {
        let dims = self.dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x");
        format!("{dims}{}", self.options)
    }
}

/// Which roofline a kernel is measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Bytes moved: compared with the device's copy bandwidth.
    Memory,
    /// Arithmetic: compared with the device's measured FLOP rate.
    Compute,
}

/// The arguments of a problem, in parameter order.
pub type ArgsFn = dyn Fn(&Problem) -> Vec<ArgSpec> + Send + Sync;
/// Scalar arguments of a problem (name, value), in declaration order; converted to the type the
/// kernel declares.
pub type ScalarsFn = dyn Fn(&Problem) -> Vec<(&'static str, f64)> + Send + Sync;
/// Expected outputs from the inputs' values (as stored, widened to f32).
pub type ReferenceFn = dyn Fn(&Problem, &[Vec<f32>]) -> Vec<Expected> + Send + Sync;
/// Floating-point operations of one launch (0 for data movement).
pub type FlopsFn = dyn Fn(&Problem) -> f64 + Send + Sync;
/// Tolerance of the outputs.
pub type ToleranceFn = dyn Fn(&Problem) -> Tolerance + Send + Sync;
/// Constraints beyond the grammar (even head size, table length).
pub type CheckFn = dyn Fn(&Problem) -> std::result::Result<(), String> + Send + Sync;
/// Constraints on the scalar values of a launch (name, value), which a caller may give per
/// launch (rope's offset inside its tables).
pub type ScalarCheckFn =
    dyn Fn(&Problem, &[(&str, f64)]) -> std::result::Result<(), String> + Send + Sync;
/// What the shapes of a problem's inputs say beyond the dimensions they hold bare (the Python
/// path's problems): the options, and (index, size) of dimensions found only through them.
pub type InferFn = dyn Fn(&[Vec<usize>]) -> (Options, Vec<(usize, usize)>) + Send + Sync;
/// Checks of input values a kernel cannot make itself (a block table's page indices), given
/// the problem and its inputs in order; `Err` says what is wrong.
pub type ValidateFn =
    dyn Fn(&Problem, &[&tilecast_runtime::Buffer]) -> std::result::Result<(), String> + Send + Sync;
/// How a problem runs on a profile: the family's decision and the launches made from it.
pub type PlanFn = dyn Fn(&Problem, &Profile) -> Result<Plan> + Send + Sync;

/// Where one buffer of a launch comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The entry's argument at this index (of [`Entry::args`]).
    Arg(usize),
    /// The plan's scratch buffer at this index (of [`Plan::scratch`]).
    Scratch(usize),
}

/// One kernel launch of a plan: the tile program and its buffers, in parameter order.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The tile program.
    pub ir: Ir,
    /// One slot per buffer parameter, in order.
    pub bind: Vec<Slot>,
}

/// What a kernel family decided for one problem, where it had a choice to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The family has one way to run (its kernel's own constants fix the rest).
    Fixed,
    /// The gemm family's decision ([`crate::gemm::strategy::decide`]).
    Gemm(GemmStrategy),
    /// How the row families (softmax, the norms, row reductions) spread rows over
    /// threadgroups ([`crate::rows::RowOp::plan`], [`RowPlan::for_width`]).
    Rows(RowPlan),
    /// The prefill attention kernel's blocks ([`AttentionConfig::choose`]).
    Attention(AttentionConfig),
    /// Decode attention's blocks and sequence split ([`DecodeConfig::choose`]).
    Decode(DecodeConfig),
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Fixed => f.write_str("fixed"),
            Strategy::Gemm(g) => write!(f, "gemm {g}"),
            Strategy::Rows(r) => write!(f, "rows: {r}"),
            Strategy::Attention(a) => write!(f, "attention: {a}"),
            Strategy::Decode(d) => write!(f, "decode: {d}"),
        }
    }
}

/// How a problem runs: the family's [`Strategy`], then launches in order, each seeing the writes
/// of those before it, with scratch buffers between them (allocated by the caller, any initial
/// contents). Most problems are one launch over the entry's arguments; bf16 and fp8 gemms on f16
/// matrix units may first convert their operands (see [`crate::gemm::bf16_plan`]).
#[derive(Clone, Debug)]
pub struct Plan {
    /// What the family decided.
    pub strategy: Strategy,
    /// Scratch buffers: shape and type (the role is unused).
    pub scratch: Vec<ArgSpec>,
    /// Launches, in order; the last one writes the entry's outputs.
    pub launches: Vec<Launch>,
}

impl Plan {
    /// One launch of `ir` over the entry's arguments in order (one per parameter of `ir`),
    /// nothing decided.
    pub fn single(ir: Ir) -> Plan {
        let bind = (0..ir.params.len()).map(Slot::Arg).collect();
        Plan { strategy: Strategy::Fixed, scratch: Vec::new(), launches: vec![Launch { ir, bind }] }
    }

    /// The same launches, recording `strategy`.
    pub fn with_strategy(self, strategy: Strategy) -> Plan {
        Plan { strategy, ..self }
    }
}

/// What a library kernel is, apart from how it runs: the part of an [`Entry`] that is plain
/// data (read through the entry: `entry.name`, `entry.dims`).
#[derive(Clone, Debug)]
pub struct About {
    /// Name (`tilecast bench --kernel NAME`).
    pub name: &'static str,
    /// One line: what it computes.
    pub summary: &'static str,
    /// Dimension names, in the order a shape gives them (`["R", "C"]` for `RxC`).
    pub dims: &'static [&'static str],
    /// Input types it takes; the first is the default.
    pub dtypes: &'static [DType],
    /// Shapes of the quick suite (small enough for lavapipe).
    pub quick: &'static [&'static str],
    /// Shapes of the full suite (tensors of 256 MiB and more where memory-bound).
    pub full: &'static [&'static str],
    /// Roofline.
    pub bound: Bound,
}

/// One library kernel: its [`About`] description (its fields read through the entry) and how
/// it runs, is checked and is measured.
#[derive(Clone)]
pub struct Entry {
    about: About,
    pub(crate) args: Arc<ArgsFn>,
    pub(crate) scalars: Arc<ScalarsFn>,
    pub(crate) reference: Arc<ReferenceFn>,
    pub(crate) flops: Arc<FlopsFn>,
    pub(crate) tolerance: Arc<ToleranceFn>,
    pub(crate) check: Arc<CheckFn>,
    pub(crate) check_scalars: Arc<ScalarCheckFn>,
    pub(crate) plan: Arc<PlanFn>,
    /// Options it takes ([`Options::NAMES`]).
    pub(crate) options: &'static [&'static str],
    pub(crate) infer: Arc<InferFn>,
    pub(crate) validate: Arc<ValidateFn>,
}

impl std::ops::Deref for Entry {
    type Target = About;
    fn deref(&self) -> &About {
        &self.about
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry").field("name", &self.name).finish()
    }
}

impl Entry {
    /// An entry whose problems run as `plan` decides, with no scalars, no constraints beyond
    /// its grammar and no FLOPs (the `with_*` methods add them).
    pub(crate) fn planned(
        about: About,
        plan: impl Fn(&Problem, &Profile) -> Result<Plan> + Send + Sync + 'static,
        args: impl Fn(&Problem) -> Vec<ArgSpec> + Send + Sync + 'static,
        reference: impl Fn(&Problem, &[Vec<f32>]) -> Vec<Expected> + Send + Sync + 'static,
        tolerance: impl Fn(&Problem) -> Tolerance + Send + Sync + 'static,
    ) -> Entry {
        Entry {
            about,
            plan: Arc::new(plan),
            args: Arc::new(args),
            scalars: Arc::new(|_| Vec::new()),
            reference: Arc::new(reference),
            flops: Arc::new(|_| 0.0),
            tolerance: Arc::new(tolerance),
            check: Arc::new(|_| Ok(())),
            check_scalars: Arc::new(|_, _| Ok(())),
            options: &[],
            infer: Arc::new(|_| (Options::default(), Vec::new())),
            validate: Arc::new(|_, _| Ok(())),
        }
    }

    /// With a check of input values (see [`ValidateFn`]).
    pub(crate) fn with_validation(
        self,
        f: impl Fn(&Problem, &[&tilecast_runtime::Buffer]) -> std::result::Result<(), String>
        + Send
        + Sync
        + 'static,
    ) -> Entry {
        Entry { validate: Arc::new(f), ..self }
    }

    /// Checks the values of `inputs` (in input order) for `p` where the kernel cannot (a block
    /// table's pages inside the cache); callers holding inputs they did not make run it before
    /// a launch. It may read inputs back from the device, so it waits for work writing them.
    pub fn validate_inputs(&self, p: &Problem, inputs: &[&tilecast_runtime::Buffer]) -> Result<()> {
        (self.validate)(p, inputs)
            .map_err(|message| Error::Problem { kernel: self.name.into(), message })
    }

    /// With options (`names`, of [`Options::NAMES`]), and how to find them from the shapes of
    /// the inputs.
    pub(crate) fn with_options(
        self,
        names: &'static [&'static str],
        infer: impl Fn(&[Vec<usize>]) -> (Options, Vec<(usize, usize)>) + Send + Sync + 'static,
    ) -> Entry {
        Entry { options: names, infer: Arc::new(infer), ..self }
    }

    /// The options it takes (after the shape: `,kv=8,causal`).
    pub fn option_names(&self) -> &'static [&'static str] {
        self.options
    }

    /// With scalar arguments.
    pub(crate) fn with_scalars(
        self,
        f: impl Fn(&Problem) -> Vec<(&'static str, f64)> + Send + Sync + 'static,
    ) -> Entry {
        Entry { scalars: Arc::new(f), ..self }
    }

    /// With the FLOPs of a launch.
    pub(crate) fn with_flops(self, f: impl Fn(&Problem) -> f64 + Send + Sync + 'static) -> Entry {
        Entry { flops: Arc::new(f), ..self }
    }

    /// With constraints beyond the grammar.
    pub(crate) fn with_check(
        self,
        f: impl Fn(&Problem) -> std::result::Result<(), String> + Send + Sync + 'static,
    ) -> Entry {
        Entry { check: Arc::new(f), ..self }
    }

    /// With constraints on a launch's scalar values (see [`ScalarCheckFn`]).
    pub(crate) fn with_scalar_check(
        self,
        f: impl Fn(&Problem, &[(&str, f64)]) -> std::result::Result<(), String> + Send + Sync + 'static,
    ) -> Entry {
        Entry { check_scalars: Arc::new(f), ..self }
    }
}

impl Entry {
    /// The shape grammar: dims joined by `x`.
    pub fn grammar(&self) -> String {
        self.dims.join("x")
    }

    /// Parses `shape` (`"4x1001"`, with options after it: `"1x32x1x4096x128,kv=8"`) and
    /// checks `dtype` and the kernel's own constraints.
    pub fn problem(&self, shape: &str, dtype: DType) -> Result<Problem> {
        let bad = || Error::BadShape {
            kernel: self.name.into(),
            shape: shape.into(),
            grammar: self.grammar(),
        };
        let mut parts = shape.split(',');
        let dims_text = parts.next().unwrap_or_default();
        let mut options = Options::default();
        for opt in parts {
            let (name, value) = match opt.split_once('=') {
                Some((n, v)) => (n.trim(), Some(v.trim())),
                None => (opt.trim(), None),
            };
            let err = |message: String| Error::Problem { kernel: self.name.into(), message };
            // A format is written as a flag (`,q4_0`).
            let key = match crate::qlinear::WeightFormat::parse(name) {
                Some(_) if value.is_none() => "format",
                _ => name,
            };
            if !self.options.contains(&key) {
                return Err(err(if self.options.is_empty() {
                    format!("takes no options; got {name:?}")
                } else {
                    format!("has no option {name:?}; its options: {}", self.options.join(", "))
                }));
            }
            options.set(name, value).map_err(err)?;
        }
        let dims: Vec<usize> = dims_text
            .split(['x', 'X'])
            .map(|d| d.trim().parse::<usize>().map_err(|_| bad()))
            .collect::<Result<_>>()?;
        if dims.len() != self.dims.len() || dims.contains(&0) {
            return Err(bad());
        }
        self.problem_with_options(dims, dtype, options)
    }

    /// [`problem`](Self::problem) from sizes.
    pub fn problem_from_dims(&self, dims: Vec<usize>, dtype: DType) -> Result<Problem> {
        self.problem_with_options(dims, dtype, Options::default())
    }

    /// [`problem`](Self::problem) from sizes and options.
    pub fn problem_with_options(
        &self,
        dims: Vec<usize>,
        dtype: DType,
        options: Options,
    ) -> Result<Problem> {
        if !self.dtypes.contains(&dtype) {
            return Err(Error::UnsupportedDtype {
                kernel: self.name.into(),
                dtype,
                supported: self.dtypes.iter().map(|d| d.name()).collect::<Vec<_>>().join(", "),
            });
        }
        // Kernels index in 32-bit arithmetic: a larger dimension would be truncated.
        if let Some((name, &size)) =
            self.dims.iter().zip(&dims).find(|&(_, &d)| d as u64 > u32::MAX as u64)
        {
            return Err(Error::Problem {
                kernel: self.name.into(),
                message: format!(
                    "dimension {name} = {size} exceeds {} (kernels index with 32-bit integers)",
                    u32::MAX
                ),
            });
        }
        let p = Problem { dims, dtype, gemm: None, options };
        (self.check)(&p).map_err(|message| Error::Problem { kernel: self.name.into(), message })?;
        Ok(p)
    }

    /// The problem whose inputs have these shapes (in input order), for callers that hold
    /// tensors rather than a shape string (the Python package). Each dimension is found where it
    /// appears bare in an input's shape; the arguments are then checked against the shapes the
    /// problem implies, so a mismatch is an error naming the argument.
    pub fn problem_for_inputs(&self, shapes: &[Vec<usize>], dtype: DType) -> Result<Problem> {
        self.problem_for_inputs_with(shapes, dtype, Options::default())
    }

    /// [`problem_for_inputs`](Self::problem_for_inputs) with options the shapes cannot show
    /// (a quantized matrix's format and group size), given by the caller.
    pub fn problem_for_inputs_with(
        &self,
        shapes: &[Vec<usize>],
        dtype: DType,
        given: Options,
    ) -> Result<Problem> {
        let err = |message: String| Error::Problem { kernel: self.name.into(), message };
        // Distinct probe sizes show which input axis each dimension lands on.
        const PROBES: [usize; 6] = [1009, 1013, 1019, 1021, 1031, 1033];
        let (mut options, derived) = (self.infer)(shapes);
        options.format = given.format.or(options.format);
        options.group = given.group.or(options.group);
        let probe = Problem { options, ..Problem::new(PROBES[..self.dims.len()].to_vec(), dtype) };
        let inputs: Vec<ArgSpec> =
            self.args(&probe).into_iter().filter(|a| a.role == Role::Input).collect();
        if shapes.len() != inputs.len() {
            return Err(err(format!(
                "takes {} inputs ({}); got {}",
                inputs.len(),
                inputs.iter().map(|a| a.name).collect::<Vec<_>>().join(", "),
                shapes.len()
            )));
        }
        let mut dims = Vec::new();
        for (d, name) in self.dims.iter().enumerate() {
            let found = inputs.iter().zip(shapes).find_map(|(a, s)| {
                let axis = a.shape.iter().position(|&x| x == PROBES[d])?;
                (s.len() == a.shape.len()).then(|| s[axis])
            });
            let found = found.or_else(|| derived.iter().find(|x| x.0 == d).map(|x| x.1));
            dims.push(found.ok_or_else(|| {
                err(format!("cannot find dimension {name} in the inputs' shapes {shapes:?}"))
            })?);
        }
        let p = self.problem_with_options(dims, dtype, options)?;
        for (a, s) in self.args(&p).iter().filter(|a| a.role == Role::Input).zip(shapes) {
            if &a.shape != s {
                return Err(err(format!(
                    "input {} has shape {s:?}; for {} {} it must be {:?}",
                    a.name,
                    self.grammar(),
                    p.shape_text(),
                    a.shape
                )));
            }
        }
        Ok(p)
    }

    /// How `p` runs on `profile`: the family's decision and its launches. The one path from a
    /// problem to launches, for every caller.
    pub fn plan(&self, p: &Problem, profile: &Profile) -> Result<Plan> {
        (self.plan)(p, profile)
    }

    /// Buffer arguments in parameter order.
    pub fn args(&self, p: &Problem) -> Vec<ArgSpec> {
        (self.args)(p)
    }

    /// Scalar arguments in declaration order.
    pub fn scalars(&self, p: &Problem) -> Vec<(&'static str, f64)> {
        (self.scalars)(p)
    }

    /// Checks scalar `values` (by name) given to a launch of `p` where a value outside the
    /// kernel's range would give wrong results rather than fail (rope's offset past its
    /// tables). [`LoadedPlan::launch`](crate::harness::LoadedPlan::launch) runs it.
    pub fn check_scalars(&self, p: &Problem, values: &[(&str, f64)]) -> Result<()> {
        (self.check_scalars)(p, values)
            .map_err(|message| Error::Problem { kernel: self.name.into(), message })
    }

    /// Expected outputs for the given input values (one `Vec` per input, in order).
    pub fn reference(&self, p: &Problem, inputs: &[Vec<f32>]) -> Vec<Expected> {
        (self.reference)(p, inputs)
    }

    /// FLOPs of one launch.
    pub fn flops(&self, p: &Problem) -> f64 {
        (self.flops)(p)
    }

    /// Bytes one launch reads and writes (every argument once).
    pub fn bytes(&self, p: &Problem) -> u64 {
        self.args(p).iter().map(ArgSpec::bytes).sum()
    }

    /// Output tolerance.
    pub fn tolerance(&self, p: &Problem) -> Tolerance {
        (self.tolerance)(p)
    }
}

/// The plan function of an entry whose problems run as one launch of `kernel`'s program over
/// the arguments.
pub(crate) fn one_launch(
    kernel: impl Fn(&Problem, &Profile) -> Ir + Send + Sync + 'static,
) -> impl Fn(&Problem, &Profile) -> Result<Plan> + Send + Sync + 'static {
    move |p, profile| Ok(Plan::single(kernel(p, profile)))
}

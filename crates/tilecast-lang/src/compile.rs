//! The compiler driver: verify, pipeline, plan memory, emit WGSL, validate it with naga.

use crate::back::wgsl;
use crate::ir::{BinOp, DType, Expr, Kernel, MathFn, Scope};
use crate::passes::pipeline::pipeline;
use crate::verify::{verify, verify_shared_memory};
use crate::{Error, Profile, Result};

/// A buffer argument of a compiled kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamBinding {
    /// The parameter's name.
    pub name: String,
    /// `@binding` index (its position among the parameters).
    pub binding: u32,
    /// Element type.
    pub dtype: DType,
    /// Shape in terms of the symbols.
    pub shape: Vec<Expr>,
    /// Read-only in the kernel.
    pub read_only: bool,
}

/// What the runtime needs to run a kernel: WGSL plus the launch description.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The lowered IR (after pipelining).
    pub kernel: Kernel,
    /// WGSL source, validated by naga.
    pub wgsl: String,
    /// Entry point name.
    pub entry: String,
    /// Threads per threadgroup.
    pub threads: u32,
    /// Buffer arguments in binding order.
    pub params: Vec<ParamBinding>,
    /// Shape symbols, in immediate-argument order.
    pub symbols: Vec<String>,
    /// Extra `vec4` views of read-only parameters for vectorized copies: (binding, parameter
    /// index). The launcher binds the parameter's buffer there too.
    pub vector_views: Vec<(u32, usize)>,
    /// Threadgroup memory the kernel uses, bytes.
    pub shared_bytes: u64,
    /// Profile it was compiled for.
    pub profile: String,
}

/// Evaluates a uniform expression with symbol values bound (`symbols[i]` is `names[i]`).
pub fn eval(e: &Expr, names: &[String], symbols: &[u64]) -> Option<u64> {
    let ev = |x: &Expr| eval(x, names, symbols);
    Some(match e {
        Expr::Int(v) => u64::try_from(*v).ok()?,
        Expr::Sym(s) => *symbols.get(names.iter().position(|n| n == s)?)?,
        Expr::Bin(op, a, b) => {
            let (a, b) = (ev(a)?, ev(b)?);
            match op {
                BinOp::Add => a.checked_add(b)?,
                BinOp::Sub => a.checked_sub(b)?,
                BinOp::Mul => a.checked_mul(b)?,
                BinOp::Div => a.checked_div(b)?,
                BinOp::Rem => a.checked_rem(b)?,
                BinOp::Max => a.max(b),
                BinOp::Min => a.min(b),
                _ => return None,
            }
        }
        Expr::Math(MathFn::Abs, a) => ev(a)?,
        _ => return None,
    })
}

impl Compiled {
    /// Threadgroups per axis for these symbol values.
    pub fn grid(&self, symbols: &[u64]) -> Option<[u64; 3]> {
        let g = &self.kernel.grid;
        Some([
            eval(&g[0], &self.symbols, symbols)?,
            eval(&g[1], &self.symbols, symbols)?,
            eval(&g[2], &self.symbols, symbols)?,
        ])
    }
}

/// Validates WGSL with naga, as the compiler's own check.
pub fn validate_wgsl(name: &str, wgsl: &str) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let bug = |message: String| Error::Codegen {
        kernel: name.to_string(),
        message,
        wgsl: wgsl.to_string(),
    };
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| bug(e.emit_to_string(wgsl)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| bug(e.emit_to_string(wgsl)))?;
    Ok((module, info))
}

/// Compiles `kernel` for `profile`.
pub fn compile(kernel: &Kernel, profile: &Profile) -> Result<Compiled> {
    verify(kernel, profile)?;
    let mut k = kernel.clone();
    pipeline(&mut k)?;
    verify_shared_memory(&k, profile)?;
    let (wgsl, vector_views) = wgsl::emit(&k)?;
    validate_wgsl(&k.name, &wgsl)?;
    let params = k
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| ParamBinding {
            name: p.name.clone(),
            binding: i as u32,
            dtype: p.dtype,
            shape: p.shape.clone(),
            read_only: p.read_only,
        })
        .collect();
    let shared_bytes = k.tiles.iter().filter(|t| t.scope == Scope::Shared).map(|t| t.bytes()).sum();
    Ok(Compiled {
        entry: k.name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect(),
        threads: k.threads,
        params,
        symbols: k.symbols.clone(),
        shared_bytes,
        vector_views,
        profile: profile.name.clone(),
        wgsl,
        kernel: k,
    })
}

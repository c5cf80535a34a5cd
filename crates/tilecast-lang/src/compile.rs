//! The compiler driver: verify, rewrite, pipeline, plan memory, fence, lower, print WGSL, and
//! validate it with naga. The result is plain data the runtime executes without the IR.

use crate::back::wgsl;
use crate::fold::eval;
use crate::ir::{DType, Expr, Kernel, Scope};
use crate::lir::FragmentLayout;
use crate::passes::{
    barriers, fuse, group, guards, lower, padding, pipeline, rewrite, select, split,
    workgroup_matrices,
};
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

/// Where a symbol's value comes from at launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolSource {
    /// Dimension `dim` of buffer argument `param`.
    Shape {
        /// Buffer argument index.
        param: usize,
        /// Dimension.
        dim: usize,
    },
    /// Scalar argument `index` (a `u32`).
    Scalar {
        /// Scalar argument index.
        index: usize,
    },
}

/// A scalar argument of a compiled kernel, in launch order.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarArg {
    /// Its name.
    pub name: String,
    /// f32, i32 or u32.
    pub dtype: DType,
}

/// What the runtime needs to run a kernel: WGSL plus the launch description. Plain data: one
/// compiled kernel can be shared across threads and loaded into several libraries.
#[derive(Clone, Debug)]
pub struct Compiled {
    name: String,
    entry: String,
    wgsl: String,
    spirv: std::result::Result<Vec<u32>, String>,
    native_lowered: Option<String>,
    threads: u32,
    params: Vec<ParamBinding>,
    symbols: Vec<(String, SymbolSource)>,
    scalars: Vec<ScalarArg>,
    grid: [Expr; 3],
    vector_views: Vec<(u32, usize)>,
    shared_bytes: u64,
    profile: String,
    written: String,
    lowered: String,
    matrix_fragments: Vec<String>,
}

impl Compiled {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The WGSL entry point.
    pub fn entry(&self) -> &str {
        &self.entry
    }
    /// WGSL source, validated by naga.
    pub fn wgsl(&self) -> &str {
        &self.wgsl
    }
    /// The native SPIR-V module (SPIR-V 1.3 for Vulkan, from [`crate::back::spirv`]), or why
    /// the native back end cannot print this kernel yet (it then runs through WGSL).
    pub fn native_spirv(&self) -> std::result::Result<&[u32], &str> {
        match &self.spirv {
            Ok(words) => Ok(words),
            Err(why) => Err(why),
        }
    }
    /// Threads per threadgroup.
    pub fn threads(&self) -> u32 {
        self.threads
    }
    /// Buffer arguments in binding order.
    pub fn params(&self) -> &[ParamBinding] {
        &self.params
    }
    /// Shape symbols in immediate order, with where each value comes from.
    pub fn symbols(&self) -> &[(String, SymbolSource)] {
        &self.symbols
    }
    /// Scalar arguments in launch order (`u32` ones also set the symbol of their name).
    pub fn scalars(&self) -> &[ScalarArg] {
        &self.scalars
    }
    /// Extra `vec4` views of read-only parameters: (binding, parameter index). The launcher
    /// binds the parameter's buffer there too.
    pub fn vector_views(&self) -> &[(u32, usize)] {
        &self.vector_views
    }
    /// Threadgroup memory the kernel uses, bytes.
    pub fn shared_bytes(&self) -> u64 {
        self.shared_bytes
    }
    /// The profile it was compiled for.
    pub fn profile(&self) -> &str {
        &self.profile
    }
    /// The tile IR as written.
    pub fn ir_as_written(&self) -> &str {
        &self.written
    }
    /// The lowered form: every decision the passes made, per op.
    pub fn ir_lowered(&self) -> &str {
        &self.lowered
    }
    /// The native SPIR-V back end's lowered form where it differs from [`ir_lowered`]'s
    /// (a pass only that back end can print applied, e.g. workgroup-scope matrices).
    ///
    /// [`ir_lowered`]: Self::ir_lowered
    pub fn native_lowered(&self) -> Option<&str> {
        self.native_lowered.as_deref()
    }
    /// The fragments the compiler put on matrix units, by name (a `split` twin as `F_mma`).
    pub fn matrix_fragments(&self) -> &[String] {
        &self.matrix_fragments
    }

    /// Threadgroups per axis for these symbol values (in [`symbols`](Self::symbols) order).
    pub fn grid(&self, symbols: &[u64]) -> Option<[u64; 3]> {
        let names: Vec<String> = self.symbols.iter().map(|(n, _)| n.clone()).collect();
        let g = &self.grid;
        Some([
            eval(&g[0], &names, symbols)?,
            eval(&g[1], &names, symbols)?,
            eval(&g[2], &names, symbols)?,
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

/// The passes that decide tiles and layouts (with the `split` pass's matrix twins when
/// `twins`), checked against the profile's threadgroup memory.
fn prepare(
    kernel: &Kernel,
    profile: &Profile,
    twins: bool,
) -> Result<(Kernel, Vec<Option<select::Selected>>)> {
    let mut k = kernel.clone();
    if twins {
        split::matrix_accumulators(&mut k, profile);
    }
    rewrite::fragment_reductions(&mut k);
    pipeline::pipeline(&mut k)?;
    let selected = select::select(&mut k, profile).map_err(|(tile, message)| Error::Verify {
        kernel: k.name.clone(),
        op: format!("fragment {tile}"),
        message,
    })?;
    verify_shared_memory(&k, profile)?;
    Ok((k, selected))
}

/// Compiles `kernel` for `profile`.
pub fn compile(kernel: &Kernel, profile: &Profile) -> Result<Compiled> {
    verify(kernel, profile)?;
    // Matrix twins first; where their stages do not fit threadgroup memory, without them (the
    // products stay SIMT rather than the kernel failing).
    let (mut k, selected) = match prepare(kernel, profile, true) {
        Ok(done) => done,
        Err(_) => prepare(kernel, profile, false)?,
    };
    barriers::place_barriers(&mut k);
    let mut lowered = lower::lower(&k, profile, &selected)?;
    group::group_loads(&mut lowered);
    guards::hoist_uniform_tests(&mut lowered);
    padding::pad_shared_rows(&mut lowered, profile);
    fuse::fuse_epilogues(&mut lowered);
    let wgsl = wgsl::write(&lowered);
    validate_wgsl(&k.name, &wgsl)?;
    // The native back end may take what WGSL cannot say: its own lowering, shown in the IR
    // listing where it differs.
    let mut native = lowered.clone();
    let native_lowered =
        workgroup_matrices::workgroup_matrices(&mut native, profile).then(|| native.to_string());
    let spirv = crate::back::spirv::write(&native).map_err(|u| u.0);
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
        .collect::<Vec<_>>();
    let symbols = lowered
        .symbols
        .iter()
        .map(|s| {
            let by_scalar =
                k.scalars.iter().position(|x| x.name == s.name && x.dtype == DType::U32);
            let source = match by_scalar {
                Some(index) => SymbolSource::Scalar { index },
                None => {
                    let (param, dim) = k
                        .params
                        .iter()
                        .enumerate()
                        .find_map(|(pi, p)| {
                            p.shape
                                .iter()
                                .position(|d| matches!(d, Expr::Sym(x) if *x == s.name))
                                .map(|d| (pi, d))
                        })
                        .ok_or_else(|| Error::Verify {
                            kernel: k.name.clone(),
                            op: format!("symbol {}", s.name),
                            message: "no argument sets it".into(),
                        })?;
                    SymbolSource::Shape { param, dim }
                }
            };
            Ok((s.name.clone(), source))
        })
        .collect::<Result<Vec<_>>>()?;
    // The lowered tiles: the kernel's own plus the scratch the lowering added.
    let shared_bytes: u64 = lowered
        .tiles
        .iter()
        .filter(|t| t.scope == Scope::Shared)
        .map(|t| t.stored_elements() * t.stages as u64 * t.dtype.size() as u64)
        .sum();
    if shared_bytes > profile.max_shared_bytes as u64 {
        return Err(Error::Verify {
            kernel: k.name.clone(),
            op: "threadgroup memory".into(),
            message: format!(
                "tiles and reduction scratch need {shared_bytes} bytes of threadgroup memory; \
                 profile {} allows {}",
                profile.name, profile.max_shared_bytes
            ),
        });
    }
    Ok(Compiled {
        name: k.name.clone(),
        entry: lowered.entry.clone(),
        threads: k.threads,
        params,
        symbols,
        scalars: k
            .scalars
            .iter()
            .map(|s| ScalarArg { name: s.name.clone(), dtype: s.dtype })
            .collect(),
        grid: lowered.grid.clone(),
        vector_views: lowered.vector_views.clone(),
        shared_bytes,
        profile: profile.name.clone(),
        written: kernel.to_string(),
        lowered: lowered.to_string(),
        matrix_fragments: k
            .tiles
            .iter()
            .zip(&selected)
            .filter(|(_, s)| {
                matches!(s, Some(select::Selected { layout: FragmentLayout::Matrix(_), .. }))
            })
            .map(|(t, _)| t.name.clone())
            .collect(),
        wgsl,
        spirv,
        native_lowered,
    })
}

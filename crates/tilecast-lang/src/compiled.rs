//! The launch description of a compiled kernel: what the runtime needs to run it (WGSL and
//! native SPIR-V, bindings, where each shape symbol's value comes from, the grid), as plain
//! data with no IR in it.

use std::sync::{Arc, OnceLock};

use crate::back::wgsl::Validated;
use crate::fold::eval;
use crate::ir::{DType, Expr, Kernel, Scope};
use crate::lir::{FragmentLayout, Lowered};
use crate::passes::ir::select::Selected;
use crate::{Error, Profile, Result};

/// naga's check of a kernel's WGSL, made once, when something first needs it: its module, or
/// naga's message.
pub(crate) type NagaCheck = Arc<OnceLock<std::result::Result<Validated, String>>>;

/// What the back ends printed for one kernel.
pub(crate) struct Printed {
    /// WGSL.
    pub wgsl: String,
    /// naga's module of the WGSL and its validation info, which the MSL and naga SPIR-V
    /// listings are written from (parsing again would cost as much as the first time).
    pub naga: NagaCheck,
    /// The native SPIR-V module, or why the native back end cannot print the kernel.
    pub spirv: std::result::Result<Vec<u32>, String>,
    /// The native back end's lowered form where a pass only it can print changed it.
    pub native_lowered: Option<String>,
    /// Why the WGSL cannot run (its tiles overflow threadgroup memory), where only the native
    /// module can.
    pub native_only: Option<String>,
    /// Threadgroup memory the native module's tiles take.
    pub native_shared: u64,
}

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
    naga: NagaCheck,
    spirv: std::result::Result<Vec<u32>, String>,
    native_lowered: Option<String>,
    native_only: Option<String>,
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
    prefer_wgsl: Option<String>,
}

impl Compiled {
    /// The launch description of `k` (the kernel `written` after the IR passes) from its
    /// lowered form: bindings, where each symbol comes from, threadgroup memory, and the
    /// listings `tilecast emit` shows.
    pub(crate) fn describe(
        written: &Kernel,
        k: &Kernel,
        lowered: &Lowered,
        selected: &[Option<Selected>],
        profile: &Profile,
        printed: Printed,
    ) -> Result<Compiled> {
        let Printed { wgsl, naga, spirv, native_lowered, native_only, native_shared } = printed;
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
                                at: None,
                            })?;
                        SymbolSource::Shape { param, dim }
                    }
                };
                Ok((s.name.clone(), source))
            })
            .collect::<Result<Vec<_>>>()?;
        // The lowered tiles: the kernel's own plus the scratch the lowering added (the native
        // module's, where only it runs).
        let shared_bytes: u64 = match native_only {
            Some(_) => native_shared,
            None => lowered
                .tiles
                .iter()
                .filter(|t| t.scope == Scope::Shared)
                .map(|t| t.stored_elements() * t.stages as u64 * t.dtype.size() as u64)
                .sum(),
        };
        if shared_bytes > profile.max_shared_bytes as u64 {
            return Err(Error::Verify {
                kernel: k.name.clone(),
                op: "threadgroup memory".into(),
                message: format!(
                    "tiles and reduction scratch need {shared_bytes} bytes of threadgroup memory; \
                     profile {} allows {}",
                    profile.name, profile.max_shared_bytes
                ),
                at: None,
            });
        }
        Ok(Compiled {
            naga,
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
            vector_views: lowered.vector_views.iter().map(|&(b, p)| (b, p.0)).collect(),
            shared_bytes,
            profile: profile.name.clone(),
            written: written.to_string(),
            lowered: lowered.to_string(),
            matrix_fragments: k
                .tiles
                .iter()
                .zip(selected)
                .filter(|(_, s)| {
                    matches!(s, Some(Selected { layout: FragmentLayout::Matrix(_), .. }))
                })
                .map(|(t, _)| t.name.clone())
                .collect(),
            wgsl,
            spirv,
            native_lowered,
            native_only,
            prefer_wgsl: written.prefer_wgsl.clone(),
        })
    }

    /// Why only the native SPIR-V module can run this kernel (its WGSL, printed for the
    /// listing, needs more threadgroup memory than the profile allows), if so.
    pub fn native_only(&self) -> Option<&str> {
        self.native_only.as_deref()
    }
    /// Why the kernel runs as WGSL where native modules could run
    /// ([`crate::Kernel::prefer_wgsl`]), if its author said so.
    pub fn prefer_wgsl(&self) -> Option<&str> {
        self.prefer_wgsl.as_deref()
    }
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The WGSL entry point.
    pub fn entry(&self) -> &str {
        &self.entry
    }
    /// WGSL source ([`naga`](Self::naga) validates it).
    pub fn wgsl(&self) -> &str {
        &self.wgsl
    }
    /// naga's module of [`wgsl`](Self::wgsl) and its validation info, or the compiler-bug
    /// error naga's refusal is. The check runs on first use (loading the WGSL, the MSL and
    /// naga SPIR-V listings), so a kernel that runs as native SPIR-V never pays for it: naga's
    /// parse grows with the square of a function's expressions (a decode kernel of 256-wide
    /// heads over 8 query rows: 5 of its 6 s of compile time). [`crate::compile`] runs it
    /// itself where the WGSL is what runs: no native module, or a profile without
    /// [`native_spirv`](crate::Profile::native_spirv).
    pub fn naga(&self) -> Result<&Validated> {
        match self.naga.get_or_init(|| crate::back::wgsl::check(&self.wgsl)) {
            Ok(v) => Ok(v),
            Err(message) => {
                Err(crate::back::wgsl::codegen_error(&self.name, &self.wgsl, message.clone()))
            }
        }
    }

    /// Whether naga's check of the WGSL has run (tests of when it runs).
    #[cfg(test)]
    pub(crate) fn naga_checked(&self) -> bool {
        self.naga.get().is_some()
    }

    /// The same kernel with other WGSL, not yet checked (tests of naga's refusal).
    #[cfg(test)]
    pub(crate) fn with_wgsl(mut self, wgsl: String) -> Compiled {
        self.wgsl = wgsl;
        self.naga = NagaCheck::default();
        self
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

//! Running compiled kernels on the runtime: symbols are bound from the arguments' shapes and
//! scalar arguments, then the kernel is dispatched. This sits above the compiler (which needs no
//! GPU) and the runtime (which knows nothing of tiles), and is the only place the two meet. A
//! `TileKernel` can be shared across threads; each launch passes its own arguments. Launches
//! repeat (a decoder's step launches the same kernels over the same shapes every token), so the
//! checks and the grid of each set of shapes and scalars are kept ([`Checked`]): a repeat costs
//! a hash and the runtime's encoding.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;
use tilecast_runtime::{Buffer, KernelFunction, Scalar, ShaderLibrary, StorageMode, Stream};

use tilecast_lang::{Compiled, DType, Profile, SymbolSource, eval};

use crate::{Error, Result};

/// Set to `1` to load tile kernels with naga's runtime bounds checks (for debugging the
/// compiler's own masking).
pub const CHECKED_ENV: &str = "TILECAST_CHECKED_KERNELS";

/// Which code tile kernels run as on Vulkan: `wgsl` (the portable path) or `spirv` (the native
/// back end; an error for a kernel it cannot print yet). Unset (or `auto`): native where the
/// back end prints the kernel, the device takes native modules and the kernel does not prefer
/// WGSL (`Kernel::prefer_wgsl`), WGSL elsewhere.
/// `naga-spirv` is for comparisons: the WGSL, written as SPIR-V by naga and handed to the
/// driver the way native modules are, which tells the native back end's code apart from the
/// path it is loaded by.
pub const BACKEND_CODE_ENV: &str = "TILECAST_BACKEND_CODE";

/// The code a loaded kernel runs as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodePath {
    /// WGSL, compiled by wgpu (through naga) for the device.
    Wgsl,
    /// The native back end's SPIR-V, handed to the Vulkan driver as it is.
    NativeSpirv,
    /// The WGSL, written as SPIR-V by naga here and handed to the driver as native modules
    /// are (Vulkan with passthrough shaders).
    NagaSpirv,
}

impl CodePath {
    /// `wgsl`, `spirv` or `naga-spirv`, as [`BACKEND_CODE_ENV`] names them.
    pub fn name(self) -> &'static str {
        match self {
            CodePath::Wgsl => "wgsl",
            CodePath::NativeSpirv => "spirv",
            CodePath::NagaSpirv => "naga-spirv",
        }
    }

    /// The path for `compiled` on `library`'s device, as [`BACKEND_CODE_ENV`] asks.
    pub fn choose(library: &ShaderLibrary, compiled: &Compiled) -> Result<CodePath> {
        let device_takes = library.device().capabilities().features.native_spirv;
        let env = std::env::var(BACKEND_CODE_ENV);
        if let Some(why) = compiled.native_only() {
            // Its WGSL cannot run: the native module or nothing.
            return match env.as_deref() {
                Err(_) | Ok("") | Ok("auto") | Ok("spirv") if device_takes => {
                    Ok(CodePath::NativeSpirv)
                }
                _ => Err(Error::Launch {
                    kernel: compiled.name().to_string(),
                    message: format!(
                        "only its native SPIR-V module can run ({why}), and this device or \
                         {BACKEND_CODE_ENV} does not take it"
                    ),
                }),
            };
        }
        match env.as_deref() {
            Err(_) | Ok("") | Ok("auto") => Ok(match compiled.native_spirv() {
                Ok(_) if device_takes && compiled.prefer_wgsl().is_none() => CodePath::NativeSpirv,
                _ => CodePath::Wgsl,
            }),
            Ok("wgsl") => Ok(CodePath::Wgsl),
            // Where it cannot run, `TileKernel::load` says why.
            Ok("spirv") => Ok(CodePath::NativeSpirv),
            Ok("naga-spirv") => Ok(CodePath::NagaSpirv),
            Ok(other) => Err(Error::Launch {
                kernel: compiled.name().to_string(),
                message: format!(
                    "{BACKEND_CODE_ENV}={other:?}: expected wgsl, spirv, naga-spirv or auto"
                ),
            }),
        }
    }
}

/// How a kernel is loaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadAs {
    /// As [`BACKEND_CODE_ENV`] and [`CHECKED_ENV`] say ([`TileKernel::load`]).
    #[default]
    Auto,
    /// WGSL with naga's runtime bounds checks ([`TileKernel::load_checked`]).
    Checked,
    /// This code, whatever the environment says (an error where it cannot run).
    Code(CodePath),
}

impl LoadAs {
    /// Whether kernels loaded this way run as WGSL whatever the device takes: checked
    /// modules, or WGSL forced (by the caller or [`BACKEND_CODE_ENV`]), as itself or as
    /// naga's SPIR-V of it.
    pub fn forces_wgsl(self) -> bool {
        match self {
            LoadAs::Checked | LoadAs::Code(CodePath::Wgsl | CodePath::NagaSpirv) => true,
            LoadAs::Code(CodePath::NativeSpirv) => false,
            LoadAs::Auto => {
                std::env::var(CHECKED_ENV).is_ok_and(|v| v == "1")
                    || std::env::var(BACKEND_CODE_ENV)
                        .is_ok_and(|v| v == "wgsl" || v == "naga-spirv")
            }
        }
    }
}

/// The profile kernels for `device` are planned on, when loaded `how`: the device's own, but
/// without workgroup-scope matrices where the kernels will run as WGSL. Only the native back
/// end prints those matrices, and a kernel planned for them runs in WGSL as a slower twin (a
/// bf16 gemm's is SIMT), so WGSL runs get the kernels planned for WGSL.
pub fn plan_profile(device: &tilecast_runtime::Device, how: LoadAs) -> Profile {
    let mut profile = Profile::from_capabilities(device.capabilities());
    if how.forces_wgsl() {
        profile.workgroup_matrix = None;
    }
    profile
}

/// A compiled kernel loaded into a shader library, ready to launch.
#[derive(Clone)]
pub struct TileKernel {
    compiled: Compiled,
    code: CodePath,
    function: KernelFunction,
    /// One per `vec4` view, bound where the view's buffer is smaller than one vector (its vector
    /// path is never taken then, but the binding must be valid). One each: a view written
    /// through and a view read from may not share a buffer in one dispatch.
    placeholders: Vec<Buffer>,
    /// Where each of the function's bindings takes its buffer from, in binding order.
    sources: Vec<BindSource>,
    /// Launches already checked, shared by clones.
    checked: Arc<Mutex<Checked>>,
}

/// Where a binding's buffer comes from at a launch.
#[derive(Clone, Copy, Debug)]
enum BindSource {
    /// Argument `i` (parameter `i` binds at `@binding(i)`).
    Arg(usize),
    /// The `vec4` view of argument `param`, or placeholder `placeholder` where that argument is
    /// smaller than one vector.
    Vector { param: usize, placeholder: usize },
}

/// Launches checked so far: by the arguments' dtypes and shapes and the scalar values, the
/// grid and the function's scalars (symbols first) that `bind_symbols` and the grid gave.
#[derive(Default)]
struct Checked {
    map: FxHashMap<Box<[u64]>, CheckedLaunch>,
    /// Where a lookup's key is built, so that a hit allocates nothing.
    key: Vec<u64>,
}

struct CheckedLaunch {
    grid: [u32; 3],
    scalars: Vec<Scalar>,
}

/// Checked launches kept per kernel before the map is emptied and refilled: one per set of
/// shapes a caller launches it with (a model's layers share theirs).
const CHECKED_CAP: usize = 64;

/// Appends `args`' dtypes and shapes, then `scalars`, to `key`: a code no two different
/// argument lists share (each shape carries its rank; the separator is no dtype or extent).
fn launch_key(key: &mut Vec<u64>, args: &[&Buffer], scalars: &[Scalar]) {
    key.clear();
    for b in args {
        key.push(b.dtype() as u64);
        key.push(b.shape().len() as u64);
        key.extend(b.shape().iter().map(|&d| d as u64));
    }
    key.push(u64::MAX);
    for s in scalars {
        key.push(match *s {
            Scalar::U32(v) => v as u64,
            Scalar::I32(v) => (1 << 32) | v as u32 as u64,
            Scalar::F32(v) => (2 << 32) | v.to_bits() as u64,
            Scalar::F16(v) => (3 << 32) | v.to_bits() as u64,
        });
    }
}

impl std::fmt::Debug for TileKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TileKernel").field("name", &self.compiled.name()).finish()
    }
}

fn dtype_of(s: &Scalar) -> DType {
    match s {
        Scalar::U32(_) => DType::U32,
        Scalar::I32(_) => DType::I32,
        Scalar::F32(_) => DType::F32,
        Scalar::F16(_) => DType::F16,
    }
}

impl TileKernel {
    /// Loads `compiled` into `library` (once per source) as a trusted module: without naga's
    /// runtime bounds checks, which the compiler's own masking makes redundant. Set
    /// `TILECAST_CHECKED_KERNELS=1` to load with the checks (see [`load_checked`](Self::load_checked)).
    pub fn load(library: &ShaderLibrary, compiled: &Compiled) -> Result<TileKernel> {
        if std::env::var(CHECKED_ENV).is_ok_and(|v| v == "1") {
            return Self::load_checked(library, compiled);
        }
        let code = CodePath::choose(library, compiled)?;
        Self::load_code(library, compiled, code)
    }

    /// Loads `compiled` as `how` says.
    pub fn load_as(
        library: &ShaderLibrary,
        compiled: &Compiled,
        how: LoadAs,
    ) -> Result<TileKernel> {
        match how {
            LoadAs::Auto => Self::load(library, compiled),
            LoadAs::Checked => Self::load_checked(library, compiled),
            LoadAs::Code(code) => Self::load_code(library, compiled, code),
        }
    }

    /// Loads `compiled` as `code`: an error naming why where the device takes no native
    /// modules or the back end does not print the kernel.
    fn load_code(
        library: &ShaderLibrary,
        compiled: &Compiled,
        code: CodePath,
    ) -> Result<TileKernel> {
        if code != CodePath::Wgsl && !library.device().capabilities().features.native_spirv {
            return Err(Error::Launch {
                kernel: compiled.name().to_string(),
                message: format!(
                    "device {:?} takes no SPIR-V modules as they are (Vulkan with passthrough shaders only), so no {} code",
                    library.device().name(),
                    code.name()
                ),
            });
        }
        // Every memory access the tile compiler emits is in bounds for every launch that
        // `launch_with` accepts:
        // - global elements go through `ld_`/`st_`/`add_` accessors (inlined as the same
        //   tests in native SPIR-V) that test each coordinate against the parameter's shape,
        //   and `bind_symbols` checks that each buffer has exactly that shape (dtype
        //   included), so a linear index below the product of the dimensions lies inside the
        //   buffer; `vec4` views are read only when the row length and the last coordinate
        //   are multiples of 4, so a whole vector lies inside the row;
        // - threadgroup, fragment and per-thread arrays are indexed by loops bounded by the
        //   tile's size, by fragment slots below the register block, by stages `x % stages`,
        //   or, for user-written coordinates, either proven below the dimension by the typing
        //   pass (`Bounds::Proven`) or clamped and masked (`Bounds::Checked`).
        let module = match code {
            CodePath::NativeSpirv => {
                let words = compiled.native_spirv().map_err(|why| Error::Launch {
                    kernel: compiled.name().to_string(),
                    message: format!("the native back end does not print it yet: {why}"),
                })?;
                // SAFETY: the argument above; the tests run every native module through
                // SPIRV-Tools' validator.
                unsafe { library.load_spirv(compiled.name(), words)? }
            }
            // SAFETY: the argument above.
            CodePath::Wgsl => unsafe {
                library.load_trusted_parsed(
                    compiled.name(),
                    compiled.wgsl(),
                    &compiled.naga()?.0,
                )?
            },
            // SAFETY: the argument above; and the WGSL keeps every cooperative-matrix operation
            // and barrier in workgroup-uniform control flow (wgpu's own path validates it with
            // that rule), which is stronger than the subgroup uniformity this loader asks.
            CodePath::NagaSpirv => unsafe {
                library.load_subgroup_roles(compiled.name(), compiled.wgsl())?
            },
        };
        Self::with_module(library, compiled, module, code)
    }

    /// Loads `compiled` with naga's runtime bounds checks on every access.
    pub fn load_checked(library: &ShaderLibrary, compiled: &Compiled) -> Result<TileKernel> {
        let module = library.load(compiled.name(), compiled.wgsl())?;
        Self::with_module(library, compiled, module, CodePath::Wgsl)
    }

    fn with_module(
        library: &ShaderLibrary,
        compiled: &Compiled,
        module: tilecast_runtime::ShaderModule,
        code: CodePath,
    ) -> Result<TileKernel> {
        let function = module.kernel(compiled.entry())?;
        let placeholders = compiled
            .vector_views()
            .iter()
            .map(|_| library.device().alloc_in(StorageMode::Private, DType::U32, &[4]))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        // A parameter read only through its vector view leaves its own binding unused, and
        // the shader's reflection without it.
        let params = compiled.params().len();
        let views = compiled.vector_views();
        let sources = function
            .bindings()
            .iter()
            .map(|b| match views.iter().position(|&(binding, _)| binding == b.binding) {
                Some(placeholder) => {
                    Ok(BindSource::Vector { param: views[placeholder].1, placeholder })
                }
                None if (b.binding as usize) < params => Ok(BindSource::Arg(b.binding as usize)),
                None => Err(Error::Launch {
                    kernel: compiled.name().to_string(),
                    message: format!(
                        "the shader binds @binding({}) ({}), which is no parameter or vector view",
                        b.binding, b.name
                    ),
                }),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(TileKernel {
            compiled: compiled.clone(),
            code,
            function,
            placeholders,
            sources,
            checked: Arc::default(),
        })
    }

    /// The code this kernel runs as.
    pub fn code(&self) -> CodePath {
        self.code
    }

    /// The launch description.
    pub fn compiled(&self) -> &Compiled {
        &self.compiled
    }

    fn err(&self, message: String) -> Error {
        Error::Launch { kernel: self.compiled.name().to_string(), message }
    }

    /// Symbol values (in [`Compiled::symbols`] order) implied by `args`' shapes and `scalars`,
    /// checked for consistency.
    pub fn bind_symbols(&self, args: &[&Buffer], scalars: &[Scalar]) -> Result<Vec<u64>> {
        let c = &self.compiled;
        if args.len() != c.params().len() {
            return Err(self.err(format!(
                "takes {} buffers ({}); got {}",
                c.params().len(),
                c.params().iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
                args.len()
            )));
        }
        if scalars.len() != c.scalars().len() {
            return Err(self.err(format!(
                "takes {} scalar arguments ({}); got {}",
                c.scalars().len(),
                c.scalars()
                    .iter()
                    .map(|s| format!("{}: {}", s.name, s.dtype))
                    .collect::<Vec<_>>()
                    .join(", "),
                scalars.len()
            )));
        }
        for (s, v) in c.scalars().iter().zip(scalars) {
            if dtype_of(v) != s.dtype {
                return Err(self.err(format!("scalar {} is {}; got {v:?}", s.name, s.dtype)));
            }
        }
        for (p, b) in c.params().iter().zip(args) {
            if b.dtype() != p.dtype {
                return Err(self.err(format!(
                    "{} is {}; got a {} buffer",
                    p.name,
                    p.dtype,
                    b.dtype()
                )));
            }
            if b.shape().len() != p.shape.len() {
                return Err(self.err(format!(
                    "{} has rank {}; got shape {:?}",
                    p.name,
                    p.shape.len(),
                    b.shape()
                )));
            }
        }
        let values: Vec<u64> = c
            .symbols()
            .iter()
            .map(|(_, src)| match *src {
                SymbolSource::Shape { param, dim } => args[param].shape()[dim] as u64,
                SymbolSource::Scalar { index } => match scalars[index] {
                    Scalar::U32(v) => v as u64,
                    _ => 0,
                },
            })
            .collect();
        let names: Vec<String> = c.symbols().iter().map(|(n, _)| n.clone()).collect();
        for (p, b) in c.params().iter().zip(args) {
            for (d, (dim, &got)) in p.shape.iter().zip(b.shape()).enumerate() {
                match eval(dim, &names, &values) {
                    Some(v) if v == got as u64 => {}
                    Some(v) => {
                        let set_by = match dim {
                            tilecast_lang::Expr::Sym(s) => c
                                .symbols()
                                .iter()
                                .find(|(n, _)| n == s)
                                .map(|(_, src)| match *src {
                                    SymbolSource::Shape { param, dim } => {
                                        format!(
                                            " ({s} = {v} from {} dimension {dim})",
                                            c.params()[param].name
                                        )
                                    }
                                    SymbolSource::Scalar { .. } => {
                                        format!(" ({s} = {v} from the scalar argument)")
                                    }
                                })
                                .unwrap_or_default(),
                            _ => String::new(),
                        };
                        return Err(self.err(format!(
                            "{} dimension {d} must be {v}{set_by}; got {got}",
                            p.name
                        )));
                    }
                    None => {
                        return Err(
                            self.err(format!("{} dimension {d} cannot be evaluated", p.name))
                        );
                    }
                }
            }
        }
        if let Some(v) = values.iter().find(|v| **v > u32::MAX as u64) {
            return Err(self.err(format!("dimension {v} exceeds u32 index math")));
        }
        Ok(values)
    }

    /// Encodes one launch over `args` (buffers in parameter order) into `stream`, for kernels
    /// without scalar arguments.
    pub fn launch(&self, stream: &mut Stream, args: &[&Buffer]) -> Result<()> {
        self.launch_with(stream, args, &[])
    }

    /// Encodes one launch over `args` and `scalars` (in declaration order) into `stream`.
    pub fn launch_with(
        &self,
        stream: &mut Stream,
        args: &[&Buffer],
        scalars: &[Scalar],
    ) -> Result<()> {
        let mut guard = self.checked.lock().unwrap_or_else(|p| p.into_inner());
        let checked = &mut *guard;
        launch_key(&mut checked.key, args, scalars);
        if !checked.map.contains_key(checked.key.as_slice()) {
            let launch = self.check(args, scalars)?;
            if checked.map.len() >= CHECKED_CAP {
                checked.map.clear();
            }
            checked.map.insert(checked.key.as_slice().into(), launch);
        }
        let launch = &checked.map[checked.key.as_slice()];
        // The key holds every argument's shape, so `args` has one per parameter here.
        let buffers: Vec<&Buffer> = self
            .sources
            .iter()
            .map(|src| match *src {
                BindSource::Arg(i) => args[i],
                BindSource::Vector { param, placeholder } => {
                    let b = args[param];
                    // A view's element: four elements, or four words of a u8/i8 parameter.
                    let element = match b.dtype().size() {
                        1 => 16,
                        s => 4 * s as u64,
                    };
                    if b.byte_len() < element { &self.placeholders[placeholder] } else { b }
                }
            })
            .collect();
        Ok(self.function.dispatch_threadgroups_with(
            stream,
            &buffers,
            &launch.scalars,
            launch.grid,
        )?)
    }

    /// Checks a launch over `args` and `scalars` and evaluates its grid and the function's
    /// scalar arguments: the symbols (as u32), then the non-u32 scalars.
    fn check(&self, args: &[&Buffer], scalars: &[Scalar]) -> Result<CheckedLaunch> {
        let symbols = self.bind_symbols(args, scalars)?;
        let grid = self.compiled.grid(&symbols).ok_or_else(|| {
            self.err("grid cannot be evaluated for these shapes (a subtraction below zero or a division by zero)".into())
        })?;
        if let Some(g) = grid.iter().find(|g| **g > u32::MAX as u64) {
            return Err(self.err(format!("grid of {g} threadgroups along one axis exceeds u32")));
        }
        let mut values: Vec<Scalar> = symbols.iter().map(|&v| Scalar::U32(v as u32)).collect();
        values.extend(
            self.compiled
                .scalars()
                .iter()
                .zip(scalars)
                .filter(|(s, _)| s.dtype != DType::U32)
                .map(|(_, &v)| v),
        );
        Ok(CheckedLaunch { grid: grid.map(|g| g as u32), scalars: values })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_and_forced_wgsl_loads_plan_without_workgroup_matrices() {
        assert!(LoadAs::Checked.forces_wgsl());
        assert!(LoadAs::Code(CodePath::Wgsl).forces_wgsl());
        assert!(!LoadAs::Code(CodePath::NativeSpirv).forces_wgsl());
    }
}

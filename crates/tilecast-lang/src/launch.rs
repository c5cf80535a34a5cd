//! Running compiled kernels on the runtime: symbols are bound from the arguments' shapes.

use tilecast_runtime::{Buffer, KernelFunction, ShaderLibrary, Stream};

use crate::compile::eval;
use crate::ir::Expr;
use crate::{Compiled, Error, Result};

/// A compiled kernel loaded into a shader library, ready to launch.
#[derive(Clone)]
pub struct TileKernel {
    compiled: Compiled,
    function: KernelFunction,
    /// Bound to `vec4` views whose buffer is smaller than one vector (their vector path is
    /// never taken then, but the binding must be valid).
    placeholder: Option<Buffer>,
}

impl TileKernel {
    /// Loads `compiled` into `library` (once per source) and creates its pipeline.
    pub fn load(library: &ShaderLibrary, compiled: &Compiled) -> Result<TileKernel> {
        let module = library.load(&compiled.kernel.name, &compiled.wgsl)?;
        let function = module.kernel(&compiled.entry)?;
        Ok(TileKernel { compiled: compiled.clone(), function, placeholder: None })
    }

    /// The launch description.
    pub fn compiled(&self) -> &Compiled {
        &self.compiled
    }

    fn err(&self, message: String) -> Error {
        Error::Launch { kernel: self.compiled.kernel.name.clone(), message }
    }

    /// Symbol values implied by `args`' shapes, checked for consistency.
    pub fn bind_symbols(&self, args: &[&Buffer]) -> Result<Vec<u64>> {
        let c = &self.compiled;
        if args.len() != c.params.len() {
            return Err(self.err(format!(
                "takes {} buffers ({}); got {}",
                c.params.len(),
                c.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
                args.len()
            )));
        }
        let mut values: Vec<Option<(u64, String)>> = vec![None; c.symbols.len()];
        for (p, b) in c.params.iter().zip(args) {
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
            for (d, (dim, &got)) in p.shape.iter().zip(b.shape()).enumerate() {
                if let Expr::Sym(s) = dim {
                    let Some(i) = c.symbols.iter().position(|n| n == s) else {
                        return Err(self.err(format!(
                            "{} uses symbol {s}, which the kernel's symbol list lacks",
                            p.name
                        )));
                    };
                    match &values[i] {
                        Some((v, by)) if *v != got as u64 => {
                            return Err(self.err(format!(
                                "{} dimension {d} is {s} = {got}, but {by} set {s} = {v}",
                                p.name
                            )));
                        }
                        Some(_) => {}
                        None => values[i] = Some((got as u64, p.name.clone())),
                    }
                }
            }
        }
        let values: Vec<u64> = values.into_iter().map(|v| v.map_or(0, |(v, _)| v)).collect();
        for (p, b) in c.params.iter().zip(args) {
            for (d, (dim, &got)) in p.shape.iter().zip(b.shape()).enumerate() {
                match eval(dim, &c.symbols, &values) {
                    Some(v) if v == got as u64 => {}
                    Some(v) => {
                        return Err(
                            self.err(format!("{} dimension {d} must be {v}; got {got}", p.name))
                        );
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

    /// Encodes one launch over `args` (in parameter order) into `stream`.
    pub fn launch(&mut self, stream: &mut Stream, args: &[&Buffer]) -> Result<()> {
        let symbols = self.bind_symbols(args)?;
        for (i, b) in args.iter().enumerate() {
            self.function.set_buffer(i as u32, b)?;
        }
        for &(binding, p) in &self.compiled.vector_views {
            let b = args[p];
            let vector = 4 * b.dtype().size() as u64;
            if b.byte_len() >= vector {
                self.function.set_buffer(binding, b)?;
            } else {
                if self.placeholder.is_none() {
                    self.placeholder = Some(b.device().alloc_in(
                        tilecast_runtime::StorageMode::Private,
                        tilecast_runtime::DType::U32,
                        &[4],
                    )?);
                }
                let ph = self.placeholder.clone().expect("made above");
                self.function.set_buffer(binding, &ph)?;
            }
        }
        for (i, v) in symbols.iter().enumerate() {
            self.function.set_scalar(i, *v as u32)?;
        }
        let grid = self
            .compiled
            .grid(&symbols)
            .ok_or_else(|| self.err("grid cannot be evaluated".into()))?;
        let grid = grid.map(|g| g.min(u32::MAX as u64) as u32);
        let result = self.function.dispatch_threadgroups(stream, grid);
        // The stream keeps what it encoded alive; this kernel must not keep the arguments too.
        self.function.clear_buffers();
        Ok(result?)
    }
}

//! What a kernel's WGSL asks of its caller, read from naga's IR: buffer bindings, the scalar
//! arguments (one `var<immediate>` struct or scalar), the threadgroup size and shared memory.

use naga::{AddressSpace, ScalarKind, TypeInner};

use crate::{Error, Result};

/// How a buffer binding is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingKind {
    /// `var<storage, read>`.
    StorageRead,
    /// `var<storage, read_write>`.
    StorageReadWrite,
    /// `var<uniform>`.
    Uniform,
}

/// One buffer argument: `@group(0) @binding(binding) var<...> name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingInfo {
    /// The `@binding` index the caller binds by.
    pub binding: u32,
    /// The variable's name in the source.
    pub name: String,
    /// How it is declared.
    pub kind: BindingKind,
    /// The fewest bytes a bound buffer may cover: the size of the variable's type, counting a
    /// runtime-sized array as one element (what wgpu checks when the command buffer is
    /// finished).
    pub min_size: u64,
}

/// Type of one scalar argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarType {
    /// `u32`
    U32,
    /// `i32`
    I32,
    /// `f32`
    F32,
    /// `f16`
    F16,
}

/// One scalar argument: a member of the kernel's `var<immediate>` struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalarInfo {
    /// Member name.
    pub name: String,
    /// Byte offset in the immediate block.
    pub offset: u32,
    /// Its type.
    pub ty: ScalarType,
}

/// The calling convention of one compute entry point.
#[derive(Clone, Debug)]
pub(crate) struct EntryReflection {
    pub workgroup_size: [u32; 3],
    pub size_from_overrides: bool,
    pub bindings: Vec<BindingInfo>,
    pub scalars: Vec<ScalarInfo>,
    /// Bytes of the immediate block, rounded up to 4.
    pub immediate_size: u32,
    /// (name, bytes) of each workgroup variable the entry uses.
    pub workgroup_vars: Vec<(String, u64)>,
}

fn scalar_type(kind: ScalarKind, width: u8) -> Option<ScalarType> {
    match (kind, width) {
        (ScalarKind::Uint, 4) => Some(ScalarType::U32),
        (ScalarKind::Sint, 4) => Some(ScalarType::I32),
        (ScalarKind::Float, 4) => Some(ScalarType::F32),
        (ScalarKind::Float, 2) => Some(ScalarType::F16),
        _ => None,
    }
}

pub(crate) fn reflect(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    entry: &str,
) -> Result<EntryReflection> {
    let kernel_err = |reason: String| Error::Kernel { kernel: entry.to_string(), reason };
    let (index, ep) = module
        .entry_points
        .iter()
        .enumerate()
        .find(|(_, ep)| ep.name == entry && ep.stage == naga::ShaderStage::Compute)
        .ok_or_else(|| {
            let names: Vec<_> = module
                .entry_points
                .iter()
                .filter(|e| e.stage == naga::ShaderStage::Compute)
                .map(|e| e.name.as_str())
                .collect();
            kernel_err(format!("no compute entry point of that name; the source has {names:?}"))
        })?;
    let uses = info.get_entry_point(index);
    let gctx = module.to_ctx();
    let mut r = EntryReflection {
        workgroup_size: ep.workgroup_size,
        size_from_overrides: ep.workgroup_size_overrides.is_some(),
        bindings: Vec::new(),
        scalars: Vec::new(),
        immediate_size: 0,
        workgroup_vars: Vec::new(),
    };
    for (handle, var) in module.global_variables.iter() {
        if uses[handle].is_empty() {
            continue;
        }
        let name = var.name.clone().unwrap_or_default();
        let kind = match var.space {
            AddressSpace::Storage { access } => {
                Some(if access.contains(naga::StorageAccess::STORE) {
                    BindingKind::StorageReadWrite
                } else {
                    BindingKind::StorageRead
                })
            }
            AddressSpace::Uniform => Some(BindingKind::Uniform),
            AddressSpace::Immediate => {
                r.immediate_size = module.types[var.ty].inner.size(gctx).div_ceil(4) * 4;
                r.scalars = immediate_scalars(module, var.ty, &name).map_err(kernel_err)?;
                None
            }
            AddressSpace::WorkGroup => {
                r.workgroup_vars.push((name.clone(), module.types[var.ty].inner.size(gctx) as u64));
                None
            }
            _ => None,
        };
        if let Some(kind) = kind {
            let rb = var
                .binding
                .as_ref()
                .ok_or_else(|| kernel_err(format!("{name} has no @binding")))?;
            if rb.group != 0 {
                return Err(kernel_err(format!(
                    "{name} is in @group({}); tilecast kernels bind everything in @group(0)",
                    rb.group
                )));
            }
            let min_size = module.types[var.ty].inner.size(gctx) as u64;
            r.bindings.push(BindingInfo { binding: rb.binding, name, kind, min_size });
        }
    }
    r.bindings.sort_by_key(|b| b.binding);
    Ok(r)
}

fn immediate_scalars(
    module: &naga::Module,
    ty: naga::Handle<naga::Type>,
    var_name: &str,
) -> std::result::Result<Vec<ScalarInfo>, String> {
    let not_scalar = |what: &str| {
        format!("immediate {what} must be u32, i32, f32 or f16 (scalars are passed as immediates)")
    };
    match &module.types[ty].inner {
        TypeInner::Scalar(s) => {
            let ty = scalar_type(s.kind, s.width).ok_or_else(|| not_scalar(var_name))?;
            Ok(vec![ScalarInfo { name: var_name.to_string(), offset: 0, ty }])
        }
        TypeInner::Struct { members, .. } => members
            .iter()
            .map(|m| {
                let name = m.name.clone().unwrap_or_default();
                match &module.types[m.ty].inner {
                    TypeInner::Scalar(s) => scalar_type(s.kind, s.width)
                        .map(|ty| ScalarInfo { name: name.clone(), offset: m.offset, ty })
                        .ok_or_else(|| not_scalar(&format!("{var_name}.{name}"))),
                    _ => Err(not_scalar(&format!("{var_name}.{name}"))),
                }
            })
            .collect(),
        _ => Err(not_scalar(var_name)),
    }
}

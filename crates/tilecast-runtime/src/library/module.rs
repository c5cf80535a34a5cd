//! Creating one module: WGSL parsed (or taken parsed), validated with naga for the device and
//! handed to wgpu; or native SPIR-V reflected and handed to the driver. Errors carry the line
//! of the source they point at.

use super::{BindingInfo, Interface, LoadMode, ModuleEntry, ShaderLibrary, create_passthrough};
use crate::spirv::{
    dense_binding_map, reflect_spirv, renumber_bindings, used_bindings, write_spirv,
};
use std::sync::Arc;

use crate::{Device, Error, Result};

fn naga_capabilities(device: &Device) -> naga::valid::Capabilities {
    use naga::valid::Capabilities as C;
    let f = &device.capabilities().features;
    let mut caps = C::all();
    for (has, cap) in [
        (f.shader_f16, C::SHADER_FLOAT16),
        (f.subgroups, C::SUBGROUP | C::SUBGROUP_BARRIER),
        (f.cooperative_matrix, C::COOPERATIVE_MATRIX),
        (device.wgpu_device().features().contains(wgpu::Features::IMMEDIATES), C::IMMEDIATES),
        (device.wgpu_device().features().contains(wgpu::Features::SHADER_INT64), C::SHADER_INT64),
    ] {
        caps.set(cap, has);
    }
    caps
}

pub(super) fn compile_error(
    label: &str,
    src: &str,
    loc: Option<naga::SourceLocation>,
    message: String,
) -> Error {
    let line = loc.map(|l| l.line_number).filter(|&n| n > 0);
    let column = loc.map(|l| l.line_position).filter(|_| line.is_some());
    let source_line = line.and_then(|n| src.lines().nth(n as usize - 1)).map(str::to_string);
    Error::ShaderCompile { label: label.to_string(), line, column, message, source_line }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(inner) = cur {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        cur = inner.source();
    }
    s
}

/// naga's SPIR-V of `module` with `bindings` (a layout's, sorted) numbered by their rank, as
/// wgpu numbers a layout's bindings; the module's other bindings come after them.
fn dense_spirv(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    bindings: &[BindingInfo],
) -> std::result::Result<Vec<u32>, String> {
    let numbers: Vec<u32> = bindings.iter().map(|b| b.binding).collect();
    let declared: Vec<u32> = module
        .global_variables
        .iter()
        .filter_map(|(_, v)| v.binding.as_ref().map(|b| b.binding))
        .collect();
    write_spirv(module, info, dense_binding_map(&numbers, &declared))
}

impl ModuleEntry {
    /// True when direct recording can make its pipelines' twins: native SPIR-V, or WGSL whose
    /// accesses its loader vouched for (naga translates it with no bounds checks, as wgpu does
    /// for trusted modules).
    pub(crate) fn has_direct_words(&self) -> bool {
        self.spirv.is_some() || (self.trusted && matches!(self.interface, Interface::Naga { .. }))
    }

    /// The SPIR-V a direct twin of an entry point whose layout lists `bindings` is made from,
    /// its bindings numbered by their rank in that layout as wgpu numbers them.
    pub(crate) fn direct_words(&self, bindings: &[BindingInfo]) -> Result<Vec<u32>> {
        if let Some(words) = &self.spirv {
            return Ok(words.to_vec());
        }
        let fail = |message: String| compile_error(&self.label, "", None, message);
        match &self.interface {
            Interface::Naga { module, info, .. } if self.trusted => {
                dense_spirv(module, info, bindings).map_err(fail)
            }
            _ => Err(fail("no SPIR-V for direct recording".into())),
        }
    }
}

impl ShaderLibrary {
    pub(super) fn compile_spirv(&self, label: &str, words: &[u32]) -> Result<ModuleEntry> {
        let device = &self.inner.device;
        let fail = |message: String| compile_error(label, "", None, message);
        if !device.capabilities().features.native_spirv {
            return Err(fail(format!(
                "native SPIR-V modules need passthrough shaders on Vulkan; device {:?} ({:?}) has none",
                device.name(),
                device.capabilities().backend
            )));
        }
        let interface = reflect_spirv(words).map_err(fail)?;
        if interface.entries.is_empty() {
            return Err(fail("the module has no GLCompute entry point".into()));
        }
        // Every entry point lists the module's bindings (all it declares).
        let numbers: Vec<u32> = interface.entries[0].1.bindings.iter().map(|b| b.binding).collect();
        let renumbered = renumber_bindings(words, &numbers).map_err(fail)?;
        let entries = interface.entries.iter().map(|(name, r)| (name.clone(), r.workgroup_size));
        // SAFETY: the caller of `load_spirv` promised a module valid for this device whose
        // accesses are in bounds.
        let spirv: Arc<[u32]> = renumbered.as_slice().into();
        let module = unsafe { create_passthrough(device, label, entries, renumbered) }
            .map_err(|e| fail(e.to_string()))?;
        let bytes: &[u8] = bytemuck::cast_slice(words);
        let mut entry = ModuleEntry::new(
            label,
            bytes,
            LoadMode::NativeSpirv,
            Interface::Spirv(interface),
            module,
        );
        entry.spirv = Some(spirv);
        Ok(entry)
    }

    /// Parses (unless `parsed` is its parse), validates and creates one module.
    pub(super) fn compile(
        &self,
        label: &str,
        wgsl: &str,
        mode: LoadMode,
        parsed: Option<&naga::Module>,
    ) -> Result<ModuleEntry> {
        let device = &self.inner.device;
        let naga = match parsed {
            Some(m) => m.clone(),
            None => naga::front::wgsl::parse_str(wgsl).map_err(|e| {
                compile_error(label, wgsl, e.location(wgsl), e.message().to_string())
            })?,
        };
        let mut flags = naga::valid::ValidationFlags::all();
        if mode == LoadMode::SubgroupRoles {
            if !device.capabilities().features.subgroup_roles {
                return Err(compile_error(
                    label,
                    wgsl,
                    None,
                    format!(
                        "kernels with subgroup roles need SPIR-V passthrough on Vulkan; device {:?} ({:?}) has none",
                        device.name(),
                        device.capabilities().backend
                    ),
                ));
            }
            // The SPIR-V is final: override constants would have no say in it.
            if !naga.overrides.is_empty() {
                let names: Vec<_> =
                    naga.overrides.iter().filter_map(|(_, o)| o.name.clone()).collect();
                return Err(compile_error(
                    label,
                    wgsl,
                    None,
                    format!(
                        "declares override constants {names:?}; a module loaded with subgroup roles can take none"
                    ),
                ));
            }
            flags.remove(naga::valid::ValidationFlags::CONTROL_FLOW_UNIFORMITY);
        }
        let info = naga::valid::Validator::new(flags, naga_capabilities(device))
            .validate(&naga)
            .map_err(|e| compile_error(label, wgsl, e.location(wgsl), error_chain(e.as_inner())))?;
        let trusted = mode != LoadMode::Checked;
        let mut bound_by_all = None;
        let module = match mode {
            LoadMode::SubgroupRoles => {
                let bound = used_bindings(&naga, &info)?;
                let spirv = dense_spirv(&naga, &info, &bound)
                    .map_err(|e| compile_error(label, wgsl, None, e))?;
                bound_by_all = Some(bound);
                let entries = naga.entry_points.iter().map(|e| (e.name.clone(), e.workgroup_size));
                // SAFETY: the SPIR-V is naga's translation of a module naga validated (all but
                // workgroup uniformity, which the caller of `load_subgroup_roles` replaced by
                // subgroup uniformity, the rule SPIR-V states).
                unsafe { create_passthrough(device, label, entries, spirv) }
            }
            _ => {
                // The module parsed above, not the text: wgpu would parse it again, and naga's
                // front end takes time quadratic in a function's expressions.
                let desc = wgpu::ShaderModuleDescriptor {
                    label: Some(label),
                    source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(naga.clone())),
                };
                device.scoped(&format!("creating shader module {label:?}"), None, || {
                    if trusted {
                        // SAFETY: the caller of `load_trusted` promised every access is in bounds.
                        unsafe {
                            device.wgpu_device().create_shader_module_trusted(
                                desc,
                                wgpu::ShaderRuntimeChecks::unchecked(),
                            )
                        }
                    } else {
                        device.wgpu_device().create_shader_module(desc)
                    }
                })
            }
        }
        .map_err(|e| compile_error(label, wgsl, None, e.to_string()))?;
        let interface =
            Interface::Naga { module: Box::new(naga), info: Box::new(info), bound: bound_by_all };
        Ok(ModuleEntry::new(label, wgsl.as_bytes(), mode, interface, module))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_compile_error_without_a_location_says_so() {
        let e = super::compile_error("k", "fn f() {}", None, "device refused it".into());
        let msg = e.to_string();
        assert!(!msg.contains("line 0") && !msg.ends_with('\n'), "{msg:?}");
        assert!(msg.contains("\"k\"") && msg.contains("device refused it"), "{msg}");
    }
}

//! What the Vulkan driver made of a WGSL kernel: registers, spills, shared memory, as the
//! driver reports them through `VK_KHR_pipeline_executable_properties`. A tool for telling why
//! one kernel variant is slower than another (occupancy is decided by these numbers), on the
//! machine that runs them; wgpu does not expose the extension, so this talks to Vulkan itself.
//!
//! Usage: `vk_stats [--subgroup-roles] FILE.wgsl...`
//! Each file's WGSL is validated and written as SPIR-V by naga (as
//! `ShaderLibrary::load_subgroup_roles` does: no bounds checks; `--subgroup-roles` drops the
//! workgroup-uniformity rule), and every compute entry point becomes a pipeline whose statistics
//! are printed, one `file entry name = value` line each.

use std::ffi::CStr;

use ash::vk;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn spirv(path: &str, relaxed: bool) -> Res<(naga::Module, Vec<u32>)> {
    let src = std::fs::read_to_string(path)?;
    let module = naga::front::wgsl::parse_str(&src).map_err(|e| e.emit_to_string(&src))?;
    let mut flags = naga::valid::ValidationFlags::all();
    if relaxed {
        flags.remove(naga::valid::ValidationFlags::CONTROL_FLOW_UNIFORMITY);
    }
    let info = naga::valid::Validator::new(flags, naga::valid::Capabilities::all())
        .validate(&module)
        .map_err(|e| e.emit_to_string(&src))?;
    let words = tilecast_runtime::passthrough_spirv(&module, &info)?;
    Ok((module, words))
}

fn main() -> Res<()> {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    let relaxed = paths.first().map(String::as_str) == Some("--subgroup-roles");
    if relaxed {
        paths.remove(0);
    }
    if paths.is_empty() {
        return Err("usage: vk_stats [--subgroup-roles] FILE.wgsl...".into());
    }
    // SAFETY: loading the system's Vulkan loader; every handle below is created from it and
    // destroyed before it is dropped.
    let entry = unsafe { ash::Entry::load()? };
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    // SAFETY: a plain instance with no layers or extensions.
    let instance = unsafe {
        entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None)?
    };
    let result = run(&instance, &paths, relaxed);
    // SAFETY: nothing created from the instance outlives `run`.
    unsafe { instance.destroy_instance(None) };
    result
}

fn run(instance: &ash::Instance, paths: &[String], relaxed: bool) -> Res<()> {
    // SAFETY: queries on a live instance.
    let physical = unsafe { instance.enumerate_physical_devices()? }
        .into_iter()
        .max_by_key(|&p| {
            // SAFETY: as above.
            let t = unsafe { instance.get_physical_device_properties(p) }.device_type;
            (t == vk::PhysicalDeviceType::DISCRETE_GPU) as u8
        })
        .ok_or("no Vulkan device")?;
    // SAFETY: as above.
    let props = unsafe { instance.get_physical_device_properties(physical) };
    let name = props.device_name_as_c_str().unwrap_or(c"?").to_string_lossy().into_owned();
    // SAFETY: as above.
    let available: Vec<String> =
        unsafe { instance.enumerate_device_extension_properties(physical)? }
            .iter()
            .map(|e| e.extension_name_as_c_str().unwrap_or(c"").to_string_lossy().into_owned())
            .collect();
    let want: [&CStr; 2] =
        [ash::khr::pipeline_executable_properties::NAME, ash::khr::cooperative_matrix::NAME];
    let extensions: Vec<*const i8> = want
        .iter()
        .filter(|n| available.iter().any(|a| a.as_bytes() == n.to_bytes()))
        .map(|n| n.as_ptr())
        .collect();
    let has_stats = available.iter().any(|a| a.as_bytes() == want[0].to_bytes());
    let has_coop = available.iter().any(|a| a.as_bytes() == want[1].to_bytes());
    // Enable every feature the device has in these structures (f16, 16-bit storage, the memory
    // model and cooperative matrices are what tilecast's kernels use).
    let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut exec = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
    let mut coop = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
    let mut features = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut v11)
        .push_next(&mut v12)
        .push_next(&mut v13);
    if has_stats {
        features = features.push_next(&mut exec);
    }
    if has_coop {
        features = features.push_next(&mut coop);
    }
    // SAFETY: the chain above holds only structures this query fills.
    unsafe { instance.get_physical_device_features2(physical, &mut features) };
    let priorities = [1.0f32];
    let queue =
        [vk::DeviceQueueCreateInfo::default().queue_family_index(0).queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queue)
        .enabled_extension_names(&extensions)
        .push_next(&mut features);
    // SAFETY: enabling exactly what the device reported.
    let device = unsafe { instance.create_device(physical, &info, None)? };
    // Without the extension (lavapipe) the pipelines are still built, which checks the SPIR-V.
    let stats =
        has_stats.then(|| ash::khr::pipeline_executable_properties::Device::new(instance, &device));
    let mut result = Ok(());
    for path in paths {
        if let Err(e) = report(&device, stats.as_ref(), &name, path, relaxed) {
            println!("{path}: FAILED {e}");
            result = Err(format!("{path} failed").into());
        }
    }
    // SAFETY: every pipeline, layout and module was destroyed in `report`.
    unsafe { device.destroy_device(None) };
    result
}

fn report(
    device: &ash::Device,
    stats: Option<&ash::khr::pipeline_executable_properties::Device>,
    gpu: &str,
    path: &str,
    relaxed: bool,
) -> Res<()> {
    let (module, words) = spirv(path, relaxed)?;
    // One storage buffer per binding of group 0, and the largest push-constant block Vulkan
    // guarantees (the kernels' `var<immediate>` fits in it).
    let bindings: Vec<vk::DescriptorSetLayoutBinding> = module
        .global_variables
        .iter()
        .filter_map(|(_, v)| v.binding.as_ref())
        .map(|b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b.binding)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    // SAFETY: plain object creation on a live device; each object is destroyed below.
    unsafe {
        let set = device.create_descriptor_set_layout(
            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
            None,
        )?;
        let ranges =
            [vk::PushConstantRange::default().stage_flags(vk::ShaderStageFlags::COMPUTE).size(128)];
        let sets = [set];
        let layout = device.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&sets)
                .push_constant_ranges(&ranges),
            None,
        )?;
        let shader = device
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)?;
        for ep in module.entry_points.iter().filter(|e| e.stage == naga::ShaderStage::Compute) {
            let entry_name = std::ffi::CString::new(ep.name.clone())?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(shader)
                .name(&entry_name);
            let flags = if stats.is_some() {
                vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
            } else {
                vk::PipelineCreateFlags::empty()
            };
            let create =
                [vk::ComputePipelineCreateInfo::default().flags(flags).stage(stage).layout(layout)];
            let pipeline = device
                .create_compute_pipelines(vk::PipelineCache::null(), &create, None)
                .map_err(|(_, e)| e)?[0];
            let Some(stats) = stats else {
                println!("{path} [{gpu}] {}: built; the driver reports no statistics", ep.name);
                device.destroy_pipeline(pipeline, None);
                continue;
            };
            let executables = stats.get_pipeline_executable_properties(
                &vk::PipelineInfoKHR::default().pipeline(pipeline),
            )?;
            for (i, ex) in executables.iter().enumerate() {
                let ex_name = ex.name_as_c_str().unwrap_or(c"?").to_string_lossy().into_owned();
                let list = stats.get_pipeline_executable_statistics(
                    &vk::PipelineExecutableInfoKHR::default()
                        .pipeline(pipeline)
                        .executable_index(i as u32),
                )?;
                let values: Vec<String> = list
                    .iter()
                    .map(|s| {
                        let n = s.name_as_c_str().unwrap_or(c"?").to_string_lossy().into_owned();
                        let v = match s.format {
                            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                                s.value.b32.to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                                s.value.i64.to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::UINT64 => {
                                s.value.u64.to_string()
                            }
                            _ => format!("{:.3}", s.value.f64),
                        };
                        format!("{n} = {v}")
                    })
                    .collect();
                println!("{path} [{gpu}] {}/{ex_name}: {}", ep.name, values.join("; "));
            }
            device.destroy_pipeline(pipeline, None);
        }
        device.destroy_shader_module(shader, None);
        device.destroy_pipeline_layout(layout, None);
        device.destroy_descriptor_set_layout(set, None);
    }
    Ok(())
}

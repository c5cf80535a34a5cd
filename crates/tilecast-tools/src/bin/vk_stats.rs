//! What the Vulkan driver made of a WGSL kernel: registers, spills, shared memory, as the
//! driver reports them through `VK_KHR_pipeline_executable_properties`. A tool for telling why
//! one kernel variant is slower than another (occupancy is decided by these numbers), on the
//! machine that runs them; wgpu does not expose the extension, so this talks to Vulkan itself.
//!
//! Usage: `vk_stats [--subgroup-roles] [--ir] FILE.wgsl|FILE.spv...`
//! Each file's WGSL is validated and written as SPIR-V by naga (as
//! `ShaderLibrary::load_subgroup_roles` does: no bounds checks; `--subgroup-roles` drops the
//! workgroup-uniformity rule), and every compute entry point becomes a pipeline whose statistics
//! are printed, one `file entry name = value` line each. A `.spv` file is SPIR-V as it is
//! (glslang's output, a hand-written kernel): its storage bindings and entry points are read
//! from its decorations. The device is opened with the matrix extensions the runtime enables
//! (workgroup-scope matrices, bf16), so native modules that use them build. `--ir` also prints
//! the driver's internal representations of each pipeline, where it gives any.

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

/// A SPIR-V module from a `.spv` file (little-endian words, as glslang writes them): its
/// words, the binding numbers it decorates and its GLCompute entry points' names.
fn spirv_file(path: &str) -> Res<(Vec<u32>, Vec<String>, Vec<u32>)> {
    let bytes = std::fs::read(path)?;
    if bytes.len() % 4 != 0 || bytes.len() < 20 {
        return Err(format!("{path}: {} bytes is no SPIR-V module", bytes.len()).into());
    }
    let words: Vec<u32> =
        bytes.chunks(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    if words[0] != 0x0723_0203 {
        return Err(format!("{path}: not SPIR-V (magic {:#010x})", words[0]).into());
    }
    let (mut bindings, mut entries, mut at) = (Vec::new(), Vec::new(), 5);
    while at < words.len() {
        let (count, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        if count == 0 || at + count > words.len() {
            return Err(format!("{path}: malformed instruction at word {at}").into());
        }
        let operands = &words[at + 1..at + count];
        match op {
            // OpEntryPoint GLCompute %id "name"
            15 if operands.first() == Some(&5) => {
                let name: Vec<u8> = operands[2..]
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .take_while(|&b| b != 0)
                    .collect();
                entries.push(String::from_utf8_lossy(&name).into_owned());
            }
            // OpDecorate %id Binding n
            71 if operands.get(1) == Some(&33) => bindings.push(operands[2]),
            _ => {}
        }
        at += count;
    }
    Ok((bindings, entries, words))
}

fn main() -> Res<()> {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    let mut flag = |name: &str| {
        let on = paths.iter().any(|p| p == name);
        paths.retain(|p| p != name);
        on
    };
    let opts = Options { relaxed: flag("--subgroup-roles"), ir: flag("--ir") };
    if paths.is_empty() {
        return Err("usage: vk_stats [--subgroup-roles] [--ir] FILE.wgsl|FILE.spv...".into());
    }
    // SAFETY: loading the system's Vulkan loader; every handle below is created from it and
    // destroyed before it is dropped.
    let entry = unsafe { ash::Entry::load()? };
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    // SAFETY: a plain instance with no layers or extensions.
    let instance = unsafe {
        entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None)?
    };
    let result = run(&instance, &paths, opts);
    // SAFETY: nothing created from the instance outlives `run`.
    unsafe { instance.destroy_instance(None) };
    result
}

/// What to do with each file.
#[derive(Clone, Copy)]
struct Options {
    /// WGSL validated without the workgroup-uniformity rule (`--subgroup-roles`).
    relaxed: bool,
    /// Print the driver's internal representations (`--ir`).
    ir: bool,
}

fn run(instance: &ash::Instance, paths: &[String], opts: Options) -> Res<()> {
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
    // SAFETY: a live instance and one of its physical devices.
    let matrix = unsafe { tilecast_runtime::MatrixExtensions::query(instance, physical) };
    let extensions: Vec<*const i8> = want
        .iter()
        .filter(|n| available.iter().any(|a| a.as_bytes() == n.to_bytes()))
        .chain(matrix.names())
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
    features.p_next = matrix.chain(features.p_next).cast_mut();
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
        if let Err(e) = report(&device, stats.as_ref(), &name, path, opts) {
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
    opts: Options,
) -> Res<()> {
    let (numbers, entries, words) = if path.ends_with(".spv") {
        spirv_file(path)?
    } else {
        let (module, words) = spirv(path, opts.relaxed)?;
        let numbers = module
            .global_variables
            .iter()
            .filter_map(|(_, v)| v.binding.as_ref())
            .map(|b| b.binding);
        let entries = module.entry_points.iter().filter(|e| e.stage == naga::ShaderStage::Compute);
        (numbers.collect(), entries.map(|e| e.name.clone()).collect(), words)
    };
    // One storage buffer per binding of group 0, and the largest push-constant block Vulkan
    // guarantees (the kernels' `var<immediate>` fits in it).
    let bindings: Vec<vk::DescriptorSetLayoutBinding> = numbers
        .iter()
        .map(|&b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
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
        for ep_name in &entries {
            let entry_name = std::ffi::CString::new(ep_name.clone())?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(shader)
                .name(&entry_name);
            let flags = match (stats.is_some(), opts.ir) {
                (false, _) => vk::PipelineCreateFlags::empty(),
                (true, false) => vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR,
                (true, true) => {
                    vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
                        | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR
                }
            };
            let create =
                [vk::ComputePipelineCreateInfo::default().flags(flags).stage(stage).layout(layout)];
            let pipeline = device
                .create_compute_pipelines(vk::PipelineCache::null(), &create, None)
                .map_err(|(_, e)| e)?[0];
            let Some(stats) = stats else {
                println!("{path} [{gpu}] {ep_name}: built; the driver reports no statistics");
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
                println!("{path} [{gpu}] {ep_name}/{ex_name}: {}", values.join("; "));
                if opts.ir {
                    internal_representations(stats, pipeline, i as u32, path, ep_name)?;
                }
            }
            device.destroy_pipeline(pipeline, None);
        }
        device.destroy_shader_module(shader, None);
        device.destroy_pipeline_layout(layout, None);
        device.destroy_descriptor_set_layout(set, None);
    }
    Ok(())
}

/// Prints the driver's internal representations of executable `index` of `pipeline` (text
/// ones whole, binary ones by size), or says there are none.
///
/// # Safety
/// `pipeline` must be live and built with `CAPTURE_INTERNAL_REPRESENTATIONS_KHR`.
unsafe fn internal_representations(
    stats: &ash::khr::pipeline_executable_properties::Device,
    pipeline: vk::Pipeline,
    index: u32,
    path: &str,
    entry: &str,
) -> Res<()> {
    let info = vk::PipelineExecutableInfoKHR::default().pipeline(pipeline).executable_index(index);
    // SAFETY: the caller's promise; this first call reads the names and sizes only.
    let mut reps = unsafe { stats.get_pipeline_executable_internal_representations(&info)? };
    if reps.is_empty() {
        println!("{path} {entry}: the driver gives no internal representation");
        return Ok(());
    }
    let mut data: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
    for (r, d) in reps.iter_mut().zip(&mut data) {
        r.p_data = d.as_mut_ptr().cast();
    }
    let mut count = reps.len() as u32;
    // SAFETY: as above; each structure points at a buffer of the size the driver asked for.
    let fill = stats.fp().get_pipeline_executable_internal_representations_khr;
    unsafe { fill(stats.device(), &info, &mut count, reps.as_mut_ptr()) }.result()?;
    for (r, d) in reps.iter().zip(&data).take(count as usize) {
        let name = r.name_as_c_str().unwrap_or(c"?").to_string_lossy().into_owned();
        if r.is_text == vk::TRUE {
            let text = String::from_utf8_lossy(d);
            println!("{path} {entry} [{name}]:\n{}", text.trim_end_matches('\0'));
        } else {
            println!("{path} {entry} [{name}]: {} bytes of binary", d.len());
        }
    }
    Ok(())
}

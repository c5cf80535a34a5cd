//! Target profiles: the limits and matrix units the compiler plans for, chosen by name (no GPU
//! needed) or read from a live device.

use tilecast_core::Capabilities;

use crate::{Error, Result};

/// A native matrix-unit shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixShape {
    /// M, N, K.
    pub mnk: [u32; 3],
    /// Input element type.
    pub input: &'static str,
    /// Accumulator element type.
    pub accumulator: &'static str,
}

/// What the compiler may assume about its target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Profile name.
    pub name: String,
    /// Threadgroup memory per threadgroup, bytes.
    pub max_shared_bytes: u32,
    /// Threads per threadgroup.
    pub max_threads: u32,
    /// SIMD width (subgroup / simdgroup / warp), the largest the device may use.
    pub simd_width: u32,
    /// The smallest subgroup size the device may use (equal to `simd_width` where it is fixed).
    pub simd_width_min: u32,
    /// Native matrix shapes (empty: SIMT only).
    pub matrix: Vec<MatrixShape>,
    /// f16 arithmetic in shaders.
    pub f16: bool,
    /// Subgroup operations (reductions across a SIMD group).
    pub subgroups: bool,
    /// The device runs native SPIR-V modules (Vulkan with passthrough), so a kernel's WGSL runs
    /// only where the native back end cannot print it or the caller asks: naga's check of the
    /// WGSL then waits for its first use ([`crate::Compiled::naga`]).
    pub native_spirv: bool,
    /// Workgroup-scope matrices with tensor-addressed loads (`VK_NV_cooperative_matrix2`),
    /// which only the native SPIR-V back end prints: the gemm tile they take.
    pub workgroup_matrix: Option<WorkgroupMatrix>,
}

/// A gemm tile on workgroup-scope matrices: the whole threadgroup owns one `m x n` f32
/// accumulator and multiplies `m x k` by `k x n` f16 (or bf16) operands loaded straight from
/// global memory each K step. The default tile, 128x256x32 over 256 threads, was the fastest
/// measured on an H100 (f16 4096^3: 0.51 ms, against 0.67 for the subgroup-matrix kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkgroupMatrix {
    /// The tile: rows, columns, K step.
    pub tile: [u32; 3],
    /// Threads per threadgroup.
    pub threads: u32,
    /// bf16 operands too (`VK_KHR_shader_bfloat16`), not only f16.
    pub bf16: bool,
    /// The granularity of matrix dimensions: row statistics are held in matrices this many
    /// columns wide (a row's value in every column), the narrowest the driver takes.
    pub granule: u32,
}

impl WorkgroupMatrix {
    /// The tile NVIDIA's drivers run fastest (see the type's doc).
    pub const NVIDIA: WorkgroupMatrix =
        WorkgroupMatrix { tile: [128, 256, 32], threads: 256, bf16: true, granule: 16 };
}

impl Profile {
    /// Profile names known without a device.
    pub const NAMES: [&'static str; 3] = ["vulkan-nvidia", "vulkan-lavapipe", "metal-apple7"];

    /// A profile by name.
    pub fn named(name: &str) -> Result<Profile> {
        let m = |m, n, k, input, accumulator| MatrixShape { mnk: [m, n, k], input, accumulator };
        Ok(match name {
            "vulkan-nvidia" => Profile {
                name: name.into(),
                max_shared_bytes: 49152,
                max_threads: 1024,
                simd_width: 32,
                simd_width_min: 32,
                matrix: vec![m(16, 16, 16, "f16", "f16"), m(16, 16, 16, "f16", "f32")],
                f16: true,
                subgroups: true,
                native_spirv: true,
                workgroup_matrix: Some(WorkgroupMatrix::NVIDIA),
            },
            "vulkan-lavapipe" => Profile {
                name: name.into(),
                max_shared_bytes: 32768,
                max_threads: 1024,
                simd_width: 8,
                simd_width_min: 8,
                matrix: Vec::new(),
                f16: true,
                subgroups: true,
                native_spirv: true,
                workgroup_matrix: None,
            },
            "metal-apple7" => Profile {
                name: name.into(),
                max_shared_bytes: 32768,
                max_threads: 1024,
                simd_width: 32,
                simd_width_min: 32,
                matrix: vec![
                    m(8, 8, 8, "f32", "f32"),
                    m(8, 8, 8, "f16", "f16"),
                    m(8, 8, 8, "f16", "f32"),
                ],
                f16: true,
                subgroups: true,
                native_spirv: false,
                workgroup_matrix: None,
            },
            other => return Err(Error::UnknownProfile(other.to_string())),
        })
    }

    /// The profile of a live device.
    pub fn from_capabilities(c: &Capabilities) -> Profile {
        let enabled = |ext: &str| c.enabled_matrix_extensions.iter().any(|e| e == ext);
        Profile {
            name: format!("{}-{}", c.backend, c.name),
            max_shared_bytes: c.limits.max_shared_memory_bytes,
            max_threads: c.limits.max_threads_per_threadgroup,
            simd_width: c.subgroup_max_size,
            simd_width_min: c.subgroup_min_size,
            matrix: c
                .matrix_configs
                .iter()
                .map(|x| MatrixShape {
                    mnk: [x.m, x.n, x.k],
                    input: x.input,
                    accumulator: x.accumulator,
                })
                .collect(),
            f16: c.features.shader_f16,
            subgroups: c.features.subgroups,
            native_spirv: c.features.native_spirv,
            // Where the runtime opened the device with NVIDIA's workgroup-scope matrices and it
            // takes native modules (the only back end that prints them).
            workgroup_matrix: (c.features.native_spirv && enabled("VK_NV_cooperative_matrix2"))
                .then_some(WorkgroupMatrix {
                    // bf16 where its extension is on and the driver lists bf16 workgroup-scope
                    // matrices.
                    bf16: enabled("VK_KHR_shader_bfloat16")
                        && c.driver_matrix_configs
                            .iter()
                            .any(|m| m.scope == "workgroup" && m.a == "bf16" && m.b == "bf16"),
                    // The narrowest column granularity of its workgroup-scope configurations.
                    granule: c
                        .driver_matrix_configs
                        .iter()
                        .filter(|m| m.scope == "workgroup")
                        .map(|m| m.n)
                        .min()
                        .unwrap_or(WorkgroupMatrix::NVIDIA.granule),
                    ..WorkgroupMatrix::NVIDIA
                }),
        }
    }
}

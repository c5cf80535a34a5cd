//! tilecast-kernels: the kernel library. Each kernel is a tile-language definition (it uses
//! only `tilecast-lang`) with a CPU reference the tests compare against.

pub mod basic;
pub mod gemm;
pub mod reference;

use tilecast_lang::ir::Kernel;

/// Kernels `tilecast emit` and `tilecast bench` know by name, with a one-line description.
pub const CATALOG: [(&str, &str); 7] = [
    (
        "gemm",
        "C[M,N] = A[M,K] x B[K,N], f16 inputs, f32 accumulator, matrix units where the device has them",
    ),
    ("gemm_f32", "C[M,N] = A[M,K] x B[K,N] in f32, 2 stages"),
    ("scaled_gemm", "C = (A * SA[row]) x (B * SB[col]), fp8 e4m3 inputs decoded to f32"),
    ("copy", "Y = X through a shared tile"),
    ("add_gelu", "Z = gelu(X + Y) elementwise on fragments"),
    ("row_sum", "Y[i] = sum_j X[i, j], reduce over column tiles"),
    ("softmax", "row softmax of X[M, N] for N <= 128, fused in one kernel"),
];

/// The kernel called `name` configured for `profile` (gemm takes matrix-unit tiles where the
/// profile has matrix units; see [`gemm::GemmConfig::for_profile`]).
pub fn by_name_for(name: &str, profile: &tilecast_lang::Profile) -> Option<Kernel> {
    use tilecast_lang::DType::{F16, F32};
    match name {
        "gemm" => Some(gemm::gemm(&gemm::GemmConfig::for_profile(profile, F16, F32))),
        "gemm_f32" => Some(gemm::gemm(&gemm::GemmConfig {
            stages: 2,
            ..gemm::GemmConfig::for_profile(profile, F32, F32)
        })),
        other => by_name(other),
    }
}

/// The kernel called `name` with its default configuration.
pub fn by_name(name: &str) -> Option<Kernel> {
    use tilecast_lang::DType::F32;
    Some(match name {
        "gemm" => gemm::gemm(&gemm::GemmConfig::default()),
        "gemm_f32" => gemm::gemm(&gemm::GemmConfig { input: F32, stages: 2, ..Default::default() }),
        "scaled_gemm" => gemm::scaled_gemm(
            &gemm::GemmConfig {
                input: tilecast_lang::DType::F8E4M3,
                output: F32,
                ..Default::default()
            },
            gemm::Scales::PerRow,
        ),
        "copy" => basic::copy(F32),
        "add_gelu" => basic::add_gelu(),
        "row_sum" => basic::row_sum(),
        "softmax" => basic::softmax(),
        _ => return None,
    })
}

//! Snapshots of what the compiler produces for representative kernels: the lowered IR (every
//! decision the passes made), the WGSL the runtime runs, and the MSL naga makes for Metal. A
//! change to any of them shows up in review as a diff (`cargo insta review`, or
//! `INSTA_UPDATE=always cargo test` to accept).

use tilecast_kernels::basic;
use tilecast_kernels::gemm::{GemmConfig, gemm};
use tilecast_lang::back::emit;
use tilecast_lang::ir::Kernel;
use tilecast_lang::{DType, Profile, compile};

fn compiled(name: &str, profile: &str) -> tilecast_lang::Compiled {
    let k: Kernel = match name {
        "gemm" => gemm(&GemmConfig::default()),
        "softmax" => basic::softmax(),
        "row_sum" => basic::row_sum(),
        "add_gelu" => basic::add_gelu(),
        other => panic!("no snapshot kernel {other}"),
    };
    compile(&k, &Profile::named(profile).unwrap()).unwrap()
}

/// A registry kernel built for `shape`.
fn library(name: &str, shape: &str, profile: &str) -> tilecast_lang::Compiled {
    let e = tilecast_kernels::lookup(name).unwrap();
    let prof = Profile::named(profile).unwrap();
    let plan = e.plan(&e.problem(shape, e.dtypes[0]).unwrap(), &prof).unwrap();
    compile(&plan.launches[0].ir, &prof).unwrap()
}

/// One 4096-wide row per threadgroup: the reductions split each row over every subgroup.
#[test]
fn library_softmax_lowered_ir_on_nvidia() {
    insta::assert_snapshot!(library("softmax", "32768x4096", "vulkan-nvidia").ir_lowered());
}

#[test]
fn library_rms_norm_msl_for_metal() {
    insta::assert_snapshot!(emit::msl(&library("rms_norm", "4x1001", "metal-apple7")).unwrap());
}

#[test]
fn gemm_lowered_ir() {
    insta::assert_snapshot!(compiled("gemm", "vulkan-lavapipe").ir_lowered());
}

#[test]
fn gemm_wgsl() {
    insta::assert_snapshot!(compiled("gemm", "vulkan-lavapipe").wgsl());
}

#[test]
fn softmax_lowered_ir_on_nvidia() {
    insta::assert_snapshot!(compiled("softmax", "vulkan-nvidia").ir_lowered());
}

#[test]
fn row_sum_msl_for_metal() {
    insta::assert_snapshot!(emit::msl(&compiled("row_sum", "metal-apple7")).unwrap());
}

#[test]
fn add_gelu_wgsl() {
    insta::assert_snapshot!(compiled("add_gelu", "vulkan-nvidia").wgsl());
}

#[test]
fn gemm_on_matrix_units_wgsl_for_nvidia() {
    let p = Profile::named("vulkan-nvidia").unwrap();
    let c = compile(&gemm(&GemmConfig::for_profile(&p, DType::F16, DType::F32)), &p).unwrap();
    insta::assert_snapshot!(c.wgsl());
}

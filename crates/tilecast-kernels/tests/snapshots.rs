//! Snapshots of what the compiler produces for representative kernels: the lowered IR (every
//! decision the passes made), the WGSL the runtime runs, and the MSL naga makes for Metal. A
//! change to any of them shows up in review as a diff (`cargo insta review`, or
//! `INSTA_UPDATE=always cargo test` to accept).

use tilecast_kernels::by_name;
use tilecast_lang::back::emit;
use tilecast_lang::{Profile, compile};

fn compiled(name: &str, profile: &str) -> tilecast_lang::Compiled {
    compile(&by_name(name).unwrap(), &Profile::named(profile).unwrap()).unwrap()
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
    let c = compile(&tilecast_kernels::by_name_for("gemm", &p).unwrap(), &p).unwrap();
    insta::assert_snapshot!(c.wgsl());
}

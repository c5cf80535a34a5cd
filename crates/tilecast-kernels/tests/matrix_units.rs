//! The selection pass puts gemm accumulators on matrix units where the profile reports a
//! matching shape: 16x16 cooperative matrices on NVIDIA, 8x8 simdgroup matrices on Metal (MSL
//! checked here, on Linux), SIMT on lavapipe. naga validates every output.

use tilecast_kernels::gemm::{GemmConfig, gemm};
use tilecast_lang::back::emit;
use tilecast_lang::{DType, Profile, compile};

fn cfg(input: DType, output: DType) -> GemmConfig {
    GemmConfig { bm: 128, bn: 128, bk: 32, threads: 256, stages: 2, input, output }
}

#[test]
fn nvidia_gets_16x16_cooperative_matrices() {
    let c = compile(&gemm(&cfg(DType::F16, DType::F32)), &Profile::named("vulkan-nvidia").unwrap())
        .unwrap();
    let ir = c.ir_lowered();
    assert!(
        ir.contains("layout 16x16 matrices, 2x4 subgroups each holding 4x2 (16x16x16 f16 -> f32 matrix units on profile vulkan-nvidia)"),
        "{ir}"
    );
    assert!(ir.contains("[matrix units 16x16x16, 4x2 matrices per subgroup"), "{ir}");
    let wgsl = c.wgsl();
    assert!(wgsl.contains("enable wgpu_cooperative_matrix;"), "{wgsl}");
    assert!(wgsl.contains("coopMultiplyAdd(") && wgsl.contains("coop_mat16x16<f16, A>"), "{wgsl}");
    emit::spirv(&c).unwrap();
}

#[test]
fn metal_gets_8x8_simdgroup_matrices_only() {
    let p = Profile::named("metal-apple7").unwrap();
    for (input, output) in
        [(DType::F32, DType::F32), (DType::F16, DType::F16), (DType::F16, DType::F32)]
    {
        let small = GemmConfig { bm: 64, bn: 64, bk: 16, threads: 128, ..cfg(input, output) };
        let c = compile(&gemm(&small), &p).unwrap();
        assert!(
            c.ir_lowered().contains("layout 8x8 matrices, 2x2 subgroups each holding 4x4"),
            "{}",
            c.ir_lowered()
        );
        let msl = emit::msl(&c).unwrap();
        assert!(msl.contains("simdgroup_multiply_accumulate"), "{input}->{output}: {msl}");
        assert!(msl.contains("simdgroup_") && !msl.contains("16, 16>"), "8x8 only: {msl}");
        assert!(!msl.contains("simdgroup_float16x16") && !msl.contains("simdgroup_half16x16"));
    }
}

#[test]
fn lavapipe_and_elementwise_fragments_stay_simt() {
    let c =
        compile(&gemm(&cfg(DType::F16, DType::F32)), &Profile::named("vulkan-lavapipe").unwrap())
            .unwrap();
    assert!(c.ir_lowered().contains("SIMT register blocks"));
    assert!(!c.wgsl().contains("coop_mat"));
    // A K step that no matrix shape divides keeps SIMT, and says why.
    let c = compile(
        &gemm(&GemmConfig { bk: 8, ..cfg(DType::F16, DType::F32) }),
        &Profile::named("vulkan-nvidia").unwrap(),
    )
    .unwrap();
    assert!(c.ir_lowered().contains(
        "no square matrix shape reported for f16 x f16 -> f32 divides 128x128 with K step 8"
    ));
    let c =
        compile(&tilecast_kernels::basic::add_gelu(), &Profile::named("vulkan-nvidia").unwrap())
            .unwrap();
    assert!(c.ir_lowered().contains("matrix fragments are opaque"), "{}", c.ir_lowered());
}

#[test]
fn the_default_gemm_config_follows_the_profile() {
    let nv =
        GemmConfig::for_profile(&Profile::named("vulkan-nvidia").unwrap(), DType::F16, DType::F32);
    assert_eq!((nv.bm, nv.bn, nv.bk, nv.threads, nv.stages), (128, 128, 32, 128, 1));
    let c = compile(&gemm(&nv), &Profile::named("vulkan-nvidia").unwrap()).unwrap();
    assert!(c.wgsl().contains("coopMultiplyAdd("));
    let mtl =
        GemmConfig::for_profile(&Profile::named("metal-apple7").unwrap(), DType::F32, DType::F32);
    assert_eq!((mtl.bm, mtl.bk, mtl.threads), (64, 16, 128));
    compile(&gemm(&mtl), &Profile::named("metal-apple7").unwrap()).unwrap();
    let lp = GemmConfig::for_profile(
        &Profile::named("vulkan-lavapipe").unwrap(),
        DType::F16,
        DType::F32,
    );
    assert_eq!(lp, GemmConfig::default());
    // f32 inputs have no NVIDIA matrix shape: SIMT.
    let f32 =
        GemmConfig::for_profile(&Profile::named("vulkan-nvidia").unwrap(), DType::F32, DType::F32);
    assert_eq!(f32.bk, 8);
}

/// More than 64 rows with few 128x128 tiles: 64-row tiles chosen by how many 64x64 tiles the
/// output holds (see `GemmConfig::mid_rows`), each fitting its profile.
#[test]
fn mid_sized_problems_get_64_row_tiles_by_tile_count() {
    let nv = Profile::named("vulkan-nvidia").unwrap();
    let metal = Profile::named("metal-apple7").unwrap();
    let tiles = |p: &Profile, d: DType, m: usize, n: usize| {
        let c = GemmConfig::for_shape(p, d, DType::F32, m, n);
        compile(&gemm(&c), p).unwrap_or_else(|e| panic!("{m}x{n} {d} on {}: {e}", p.name));
        (c.bm, c.bn, c.bk, c.threads)
    };
    assert_eq!(tiles(&nv, DType::F16, 128, 4096), (64, 64, 128, 256));
    assert_eq!(tiles(&nv, DType::F16, 96, 4096), (64, 64, 128, 256));
    assert_eq!(tiles(&nv, DType::F16, 256, 4096), (64, 64, 64, 128));
    assert_eq!(tiles(&nv, DType::F16, 1024, 1024), (64, 64, 64, 128));
    assert_eq!(tiles(&nv, DType::F16, 512, 4096), (64, 128, 32, 256));
    assert_eq!(tiles(&nv, DType::F8E4M3, 128, 14336), (64, 128, 32, 256));
    // 128x128 tiles where they make enough threadgroups.
    assert_eq!(tiles(&nv, DType::F16, 2048, 2048), (128, 128, 32, 128));
    // Metal's profile starts from 64-row tiles already; whatever it gets fits 32 KiB.
    for d in [DType::F16, DType::F32] {
        for (m, n) in [(128, 4096), (256, 4096), (512, 4096)] {
            tiles(&metal, d, m, n);
        }
    }
}

#[test]
fn decode_shaped_problems_get_skinny_tiles_on_matrix_units() {
    let nv = Profile::named("vulkan-nvidia").unwrap();
    let skinny = GemmConfig::for_problem(&nv, DType::F16, DType::F32, 16);
    assert_eq!((skinny.bm, skinny.bn, skinny.bk, skinny.threads), (16, 32, 128, 64));
    let c = compile(&gemm(&skinny), &nv).unwrap();
    assert!(c.wgsl().contains("coopMultiplyAdd("), "{}", c.ir_lowered());
    assert_eq!(
        GemmConfig::for_problem(&nv, DType::F16, DType::F32, 65),
        GemmConfig::for_profile(&nv, DType::F16, DType::F32)
    );
    // Taller decode problems: 16-row tiles up to 32 rows, 64-row tiles above, a subgroup per
    // 16x16 of the tile.
    for (m, bm, threads) in [(17, 16, 64), (32, 16, 64), (33, 64, 256), (64, 64, 256)] {
        let c = GemmConfig::for_problem(&nv, DType::F16, DType::F32, m);
        assert_eq!((c.bm, c.bn, c.bk, c.threads), (bm, 32, 128, threads), "m = {m}");
        let compiled = compile(&gemm(&c), &nv).unwrap();
        let ir = compiled.ir_lowered();
        assert!(ir.contains("f16 -> f32 matrix units") && !ir.contains("K split"), "{ir}");
    }
    let metal = Profile::named("metal-apple7").unwrap();
    for m in [1, 64] {
        // f32 64-row tiles fit Metal's 32 KiB with K steps of 64.
        let c = GemmConfig::for_problem(&metal, DType::F32, DType::F32, m);
        let c = compile(&gemm(&c), &metal).unwrap();
        assert!(emit::msl(&c).unwrap().contains("simdgroup_multiply_accumulate"), "m = {m}");
    }
    let lp = Profile::named("vulkan-lavapipe").unwrap();
    assert_eq!(GemmConfig::for_problem(&lp, DType::F16, DType::F32, 16), GemmConfig::default());
}

#[test]
fn epilogues_and_fp8_inputs_run_on_matrix_units() {
    use tilecast_kernels::gemm::linear::linear;
    use tilecast_kernels::gemm::{Scales, scaled_gemm};
    let nv = Profile::named("vulkan-nvidia").unwrap();
    let metal = Profile::named("metal-apple7").unwrap();
    for input in [DType::F8E4M3, DType::F8E5M2] {
        for scales in [Scales::PerRow, Scales::PerTensor] {
            // fp8 is staged as f16 (exact) and multiplied on f16 matrices; the scales are an
            // epilogue on the matrices, fused into the save: each matrix visits the scratch
            // matrix once and is never loaded back.
            let c = compile(
                &scaled_gemm(&GemmConfig::for_profile(&nv, input, DType::F32), scales),
                &nv,
            )
            .unwrap();
            let ir = c.ir_lowered();
            assert!(
                ir.contains("f16 -> f32 matrix units") && ir.contains("[by acc's matrices"),
                "{ir}"
            );
            assert!(ir.contains("epilogue fused into the save"), "{ir}");
            assert!(!c.wgsl().contains("coopLoadT<coop_mat16x16<f32, C>>"), "{}", c.wgsl());
            emit::spirv(&c).unwrap();
            let small =
                GemmConfig { bm: 64, bn: 64, bk: 16, threads: 128, ..cfg(input, DType::F32) };
            let msl = emit::msl(&compile(&scaled_gemm(&small, scales), &metal).unwrap()).unwrap();
            assert!(msl.contains("simdgroup_multiply_accumulate"), "{msl}");
        }
    }
    // Bias and activation epilogues too.
    let c = compile(
        &linear(&cfg(DType::F16, DType::F32), Some(tilecast_kernels::elementwise::Unary::GeluErf)),
        &nv,
    )
    .unwrap();
    assert!(c.ir_lowered().contains("[by acc's matrices"), "{}", c.ir_lowered());
    // bf16 stays on the SIMT path (staged as f32: f16 would overflow).
    let c = compile(
        &scaled_gemm(&GemmConfig::for_profile(&nv, DType::BF16, DType::F32), Scales::PerRow),
        &nv,
    )
    .unwrap();
    assert!(!c.wgsl().contains("coop_mat"));
}

#[test]
fn decode_gemms_with_few_tiles_split_k_steps_over_subgroups() {
    use tilecast_kernels::elementwise::Unary;
    use tilecast_kernels::gemm::linear::linear;
    let nv = Profile::named("vulkan-nvidia").unwrap();
    // 16x4096: 128 skinny tiles, under the 256 that keep the GPU busy: 8 subgroups per tile,
    // K steps of 256 split over 4 subgroups per matrix.
    let few = GemmConfig::for_shape(&nv, DType::F16, DType::F32, 16, 4096);
    assert_eq!((few.bm, few.bn, few.bk, few.threads), (16, 32, 256, 256));
    let c = compile(&gemm(&few), &nv).unwrap();
    let ir = c.ir_lowered();
    assert!(ir.contains("1x2 subgroups each holding 1x1, K split 4 ways"), "{ir}");
    let wgsl = c.wgsl();
    // Each slice starts at its own K step and takes every fourth one; the save adds the four
    // slices' partial sums.
    assert!(wgsl.contains("= (sg_id / 2u) * 16u; _kk3 < 256u; _kk3 += 64u)"), "{wgsl}");
    assert!(wgsl.contains("[(sg_id % 2u + 6u) * 256u + _e4]"), "{wgsl}");
    emit::spirv(&c).unwrap();
    // Enough tiles already (16x14336): 16x64x64 tiles over 4 subgroups, one matrix each, no
    // split.
    let many = GemmConfig::for_shape(&nv, DType::F16, DType::F32, 16, 14336);
    assert_eq!((many.bm, many.bn, many.bk, many.threads), (16, 64, 64, 128));
    let c = compile(&gemm(&many), &nv).unwrap();
    let ir = c.ir_lowered();
    assert!(ir.contains("1x4 subgroups each holding 1x1") && !ir.contains("K split"), "{ir}");
    // Epilogues run on the slices' sum, fused into the save: each slice sums its share of the
    // elements' partials, applies the epilogue and stores them; nothing is reloaded.
    let c = compile(&linear(&few, Some(Unary::GeluErf)), &nv).unwrap();
    let ir = c.ir_lowered();
    assert!(ir.contains("K split 4 ways") && ir.contains("epilogue fused into the save"), "{ir}");
    let wgsl = c.wgsl();
    assert!(wgsl.contains("[(sg_id % 2u + 6u) * 256u + _e"), "{wgsl}");
    assert!(!wgsl.contains("] = 0.0;") && !wgsl.contains("coopLoadT<coop_mat16x16<f32"), "{wgsl}");
    emit::spirv(&c).unwrap();
    // Metal: two 8x8 matrices over 4 simdgroups split K 2 ways; MSL keeps 8x8 simdgroup types.
    let metal = Profile::named("metal-apple7").unwrap();
    let tiny = GemmConfig { bm: 16, bn: 8, bk: 32, threads: 128, stages: 1, ..few };
    let c = compile(&gemm(&tiny), &metal).unwrap();
    let ir = c.ir_lowered();
    assert!(ir.contains("2x1 subgroups each holding 1x1, K split 2 ways"), "{ir}");
    let msl = emit::msl(&c).unwrap();
    assert!(msl.contains("simdgroup_multiply_accumulate"), "{msl}");
    assert!(!msl.contains("simdgroup_float16x16") && !msl.contains("simdgroup_half16x16"));
}

#[test]
fn a_k_split_needs_k_steps_that_divide_among_the_slices() {
    let nv = Profile::named("vulkan-nvidia").unwrap();
    // One 16x16 matrix, 8 subgroups, but a K step of 16 is a single matrix step: no split
    // divides it, so the accumulator falls back to SIMT blocks, saying why.
    let c = GemmConfig {
        bm: 16,
        bn: 16,
        bk: 16,
        threads: 256,
        stages: 1,
        ..cfg(DType::F16, DType::F32)
    };
    let compiled = compile(&gemm(&c), &nv).unwrap();
    let ir = compiled.ir_lowered();
    assert!(ir.contains("8 subgroups cannot split 1x1 matrices evenly, with or without splitting K steps of 1 matrices"), "{ir}");
}

/// The single-launch bf16 kernels on the tiles `GemmConfig::for_bf16` picks from the f16
/// problem's (what the gemm strategy's `Bf16Scaled` path runs).
fn scaled_bf16(linear: bool, shape: &str, prof: &Profile) -> tilecast_lang::ir::Kernel {
    use tilecast_kernels::gemm::bf16::{bf16_gemm, bf16_linear};
    let d: Vec<usize> = shape.split('x').map(|x| x.parse().unwrap()).collect();
    let f16 = GemmConfig::for_shape(prof, DType::F16, DType::F32, d[0], d[1]);
    let cfg = GemmConfig::for_bf16(f16, prof);
    if linear { bf16_linear(&cfg, None) } else { bf16_gemm(&cfg) }
}

/// bf16 gemms and linears run on f16 matrix units where the profile has them (rows and columns
/// scaled into f16's range first), the decode K split included, and the registry keeps them on
/// the SIMT path (f32 staging) where it has none.
#[test]
fn bf16_gemms_and_linears_run_on_f16_matrix_units_with_scaled_rows_and_columns() {
    let e = tilecast_kernels::lookup("gemm").unwrap();
    for (profile, shape, want) in [
        ("vulkan-nvidia", "4096x4096x4096", "16x16x16 f16 -> f32 matrix units"),
        // GemmConfig::for_bf16: K steps of 16, 16x64x64 decode tiles without a split.
        ("vulkan-nvidia", "4096x4096x4096", "shared A_shared: f16[128, 16]"),
        ("vulkan-nvidia", "16x14336x4096", "shared B_shared: f16[64, 64]"),
        ("vulkan-nvidia", "16x4096x4096", "K split 4 ways"),
        ("metal-apple7", "4000x4000x4000", "8x8x8 f16 -> f32 matrix units"),
    ] {
        let prof = Profile::named(profile).unwrap();
        let c = compile(&scaled_bf16(false, shape, &prof), &prof).unwrap();
        let ir = c.ir_lowered();
        assert!(ir.contains(want), "{profile} {shape}: {ir}");
        assert!(ir.contains("shared A_shared: f16") && ir.contains("A_scale"), "{ir}");
        emit::spirv(&c).unwrap();
        let msl = emit::msl(&c).unwrap();
        if profile.starts_with("metal") {
            assert!(msl.contains("simdgroup_multiply_accumulate"), "{msl}");
        }
    }
    // linear too: rows of X and of W scaled, W staged transposed.
    let nvidia = Profile::named("vulkan-nvidia").unwrap();
    for shape in ["4096x4096x4096", "16x14336x4096"] {
        let c = compile(&scaled_bf16(true, shape, &nvidia), &nvidia).unwrap();
        let ir = c.ir_lowered();
        assert!(ir.contains("16x16x16 f16 -> f32 matrix units") && ir.contains("W_scale"), "{ir}");
        emit::spirv(&c).unwrap();
    }
    let lavapipe = Profile::named("vulkan-lavapipe").unwrap();
    let p = e.problem("67x45x131", DType::BF16).unwrap();
    let plan = e.plan(&p, &lavapipe).unwrap();
    assert_eq!(plan.launches.len(), 1);
    let c = compile(&plan.launches[0].ir, &lavapipe).unwrap();
    let ir = c.ir_lowered();
    assert!(ir.contains("shared A_shared: f32") && !ir.contains("A_scale"), "{ir}");
}

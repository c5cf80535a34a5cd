//! fp8 and bf16 kernels on the local device (lavapipe in CI) against CPU references that decode
//! every operand from the formats' definitions: scaled fp8 gemms, exact fp8 decoding, and the
//! bf16 gemm and linear plans that scale rows and columns into f16's range.

mod common;

use common::{buf, device, load, run, values};
use tilecast_kernels::LoadAs;
use tilecast_kernels::gemm::GemmConfig;
use tilecast_kernels::reference;
use tilecast_lang::{DType, Kernel, Profile, compile, sym};
use tilecast_runtime::{Buffer, ShaderLibrary, Stream, SyncType};

/// fp8 gemm with per-tensor and per-row scales: every operand byte decoded on the GPU and by
/// the CPU reference from the formats' definitions.
#[test]
fn scaled_fp8_gemm_per_tensor_and_per_row() {
    use tilecast_kernels::gemm::{Scales, scaled_gemm};
    use tilecast_lang::Scalar;
    use tilecast_runtime::{F8E4M3, F8E5M2};
    for input in [DType::F8E4M3, DType::F8E5M2] {
        for scales in [Scales::PerTensor, Scales::PerRow] {
            let cfg = GemmConfig {
                bm: 32,
                bn: 32,
                bk: 8,
                threads: 64,
                stages: 2,
                input,
                output: DType::F32,
            };
            let k = load(&scaled_gemm(&cfg, scales));
            // (37, 44, 68): rows of multiples of 4, so the packed vector path (4 codes a word) runs.
            for (m, n, kd) in [(37usize, 45usize, 29usize), (5, 70, 65), (37, 44, 68)] {
                // Bytes away from NaN and infinity codes.
                let bytes = |len: usize, seed: u64| -> Vec<u8> {
                    values(len, seed)
                        .iter()
                        .map(|v| {
                            let b = ((v + 1.0) * 127.9) as u8;
                            match input {
                                DType::F8E4M3 if b & 0x7f == 0x7f => b - 1,
                                DType::F8E5M2 if (b >> 2) & 31 == 31 => b & 0x83,
                                _ => b,
                            }
                        })
                        .collect()
                };
                let (ab, bb) = (bytes(m * kd, 3), bytes(kd * n, 4));
                let decode = |b: u8| match input {
                    DType::F8E4M3 => reference::e4m3_to_f32(b),
                    _ => reference::e5m2_to_f32(b),
                };
                let (af, bf): (Vec<f32>, Vec<f32>) = (
                    ab.iter().map(|&b| decode(b)).collect(),
                    bb.iter().map(|&b| decode(b)).collect(),
                );
                let upload = |bytes: &[u8], shape: &[usize]| match input {
                    DType::F8E4M3 => device()
                        .buffer_from_slice(
                            &bytes.iter().map(|&b| F8E4M3(b)).collect::<Vec<_>>(),
                            shape,
                        )
                        .unwrap(),
                    _ => device()
                        .buffer_from_slice(
                            &bytes.iter().map(|&b| F8E5M2(b)).collect::<Vec<_>>(),
                            shape,
                        )
                        .unwrap(),
                };
                let (abuf, bbuf) = (upload(&ab, &[m, kd]), upload(&bb, &[kd, n]));
                let c = device().alloc(DType::F32, &[m, n]).unwrap();
                let sa: Vec<f32> = (0..m).map(|i| 0.5 + i as f32 * 0.25).collect();
                let sb: Vec<f32> = (0..n).map(|j| 2.0 - j as f32 * 0.01).collect();
                let mut s = Stream::new(device());
                match scales {
                    Scales::PerTensor => k
                        .launch_with(
                            &mut s,
                            &[&abuf, &bbuf, &c],
                            &[Scalar::F32(0.25), Scalar::F32(3.0)],
                        )
                        .unwrap(),
                    Scales::PerRow => {
                        let (sab, sbb) = (buf(&sa, &[m]), buf(&sb, &[n]));
                        k.launch(&mut s, &[&abuf, &bbuf, &sab, &sbb, &c]).unwrap()
                    }
                }
                s.synchronize(SyncType::CommitAndWait).unwrap();
                let got = c.download::<f32>().unwrap();
                let plain = reference::gemm(&af, &bf, m, n, kd);
                for i in 0..m {
                    for j in 0..n {
                        let scale = match scales {
                            Scales::PerTensor => 0.25 * 3.0,
                            Scales::PerRow => sa[i] * sb[j],
                        };
                        let want = plain[i * n + j] * scale;
                        let g = got[i * n + j];
                        assert!(
                            (g - want).abs() <= 1e-5 * want.abs().max(1.0) * kd as f32,
                            "{input} {scales:?} {m}x{n}x{kd} ({i}, {j}): {g} vs {want}"
                        );
                    }
                }
            }
        }
    }
}

/// Every fp8 code decodes exactly (NaN codes to NaN), on the scalar path (a length that is no
/// multiple of 4 past the last whole word) and through the casts.
#[test]
fn every_fp8_code_decodes_exactly() {
    use tilecast_kernels::elementwise::cast;
    use tilecast_runtime::{F8E4M3, F8E5M2};
    for input in [DType::F8E4M3, DType::F8E5M2] {
        let mut k = load(&cast(input, DType::F32));
        // All 256 codes, then 3 more (a ragged tail).
        let codes: Vec<u8> = (0..=255u8).chain([1, 0x80, 0x7e]).collect();
        let x = match input {
            DType::F8E4M3 => device()
                .buffer_from_slice(&codes.iter().map(|&b| F8E4M3(b)).collect::<Vec<_>>(), &[259])
                .unwrap(),
            _ => device()
                .buffer_from_slice(&codes.iter().map(|&b| F8E5M2(b)).collect::<Vec<_>>(), &[259])
                .unwrap(),
        };
        let y = device().alloc(DType::F32, &[259]).unwrap();
        run(&mut k, &[&x, &y]);
        let want = |b: u8| match input {
            DType::F8E4M3 => reference::e4m3_to_f32(b),
            _ => reference::e5m2_to_f32(b),
        };
        let same = |w: f32, g: f32| w.to_bits() == g.to_bits() || (w.is_nan() && g.is_nan());
        let got = y.download::<f32>().unwrap();
        for (i, &b) in codes.iter().enumerate() {
            assert!(
                same(want(b), got[i]),
                "{input} code {b:#04x}: got {} want {}",
                got[i],
                want(b)
            );
        }
        // The vector path: a window copy decodes a whole word (four codes) at a time.
        let (n, kb) = (sym("N"), Kernel::new("fp8_words").grid([1u32]).threads(64));
        let (xp, yp) = (kb.input("X", input, [&n]), kb.param("Y", DType::F32, [&n]));
        let t = kb.shared_named("t", DType::F32, [256]);
        kb.copy(xp.tile([0u32]), &t);
        kb.copy(&t, yp.tile([0u32]));
        let ir = kb.build();
        let c = compile(&ir, &Profile::named("vulkan-lavapipe").unwrap()).unwrap();
        assert!(c.wgsl().contains("ldvu_g0_X("), "{}", c.wgsl());
        let mut words = load(&ir);
        run(&mut words, &[&x, &y]);
        let got = y.download::<f32>().unwrap();
        for (i, &b) in codes.iter().enumerate().take(256) {
            assert!(same(want(b), got[i]), "{input} word path, code {b:#04x}: got {}", got[i]);
        }
    }
}

/// f32 -> bf16, e4m3 and e5m2 on the device against references that find each code by search
/// (bf16: the `half` crate): every f16 value widened (normals, subnormals, infinities, NaNs),
/// then the fp8 formats' rounding midpoints and their neighbours one f32 ulp away, the
/// overflow thresholds (e4m3: 464 ties to 448, above it NaN; e5m2: 61440 gives infinity), signed zeros,
/// and f32 subnormals. N is a multiple of 4 but not of the 4096-element block, so both the
/// whole-word path (runs of 4 inside the window) and the per-element atomic merge at the edge
/// run (other N take only the merge: the quick suite's ragged shapes).
#[test]
fn casts_to_bf16_and_fp8_round_to_nearest_even_as_torch() {
    use tilecast_kernels::elementwise::cast;
    use tilecast_runtime::{F8E4M3, F8E5M2};
    // The references against the formats' known points (OCP FP8: e4m3 tops out at 448 = 0x7e,
    // e5m2 at 57344 = 0x7b; the smallest subnormals are 2^-9 and 2^-16).
    use reference::{f32_to_e4m3 as e4, f32_to_e5m2 as e5};
    assert_eq!([e4(448.0), e4(464.0), e4(465.0), e4(-1e9)], [0x7e, 0x7e, 0x7f, 0xff]);
    assert_eq!([e4(2f32.powi(-9)), e4(2f32.powi(-10)), e4(3.0 * 2f32.powi(-10))], [1, 0, 2]);
    assert_eq!(
        [e5(57344.0), e5(61439.0), e5(61440.0), e5(f32::NEG_INFINITY)],
        [0x7b, 0x7b, 0x7c, 0xfc]
    );
    assert_eq!([e5(2f32.powi(-16)), e5(f32::NAN) & 0x7f, e5(-0.0)], [1, 0x7f, 0x80]);
    let mut xs: Vec<f32> = (0..=u16::MAX).map(|b| half::f16::from_bits(b).to_f32()).collect();
    for decode in [reference::e4m3_to_f32 as fn(u8) -> f32, reference::e5m2_to_f32] {
        let finite: Vec<f32> = (0..=0x7fu8).map(decode).filter(|v| v.is_finite()).collect();
        for w in finite.windows(2) {
            let mid = (w[0] + w[1]) / 2.0;
            xs.extend([mid, f32::from_bits(mid.to_bits() - 1), f32::from_bits(mid.to_bits() + 1)]);
        }
    }
    xs.extend([464.0, 463.99997, 480.0, 479.0, 448.0, 61440.0, 61439.996, 57344.0, 65536.0, 1e30]);
    xs.extend([0.0, -0.0, f32::from_bits(1), -f32::from_bits(0x7fffff), f32::NAN, f32::INFINITY]);
    let negated: Vec<f32> = xs.iter().map(|v| -v).collect();
    xs.extend(negated);
    // Whole 4096-element blocks take the word path (N a multiple of 4); the last, partial
    // block merges element by element.
    while !xs.len().is_multiple_of(4) {
        xs.push(0.1);
    }
    let n = xs.len();
    assert!(!n.is_multiple_of(4096), "a ragged last block");
    let x = buf(&xs, &[n]);
    let same = |w: f32, g: f32| w.to_bits() == g.to_bits() || (w.is_nan() && g.is_nan());
    for to in [DType::BF16, DType::F8E4M3, DType::F8E5M2] {
        let mut k = load(&cast(DType::F32, to));
        let y = device().alloc(to, &[n]).unwrap();
        run(&mut k, &[&x, &y]);
        let got: Vec<f32> = match to {
            DType::BF16 => y.download::<half::bf16>().unwrap().iter().map(|v| v.to_f32()).collect(),
            DType::F8E4M3 => y
                .download::<F8E4M3>()
                .unwrap()
                .iter()
                .map(|v| reference::e4m3_to_f32(v.0))
                .collect(),
            _ => y
                .download::<F8E5M2>()
                .unwrap()
                .iter()
                .map(|v| reference::e5m2_to_f32(v.0))
                .collect(),
        };
        for (i, &v) in xs.iter().enumerate() {
            let want = match to {
                DType::BF16 => half::bf16::from_f32(v).to_f32(),
                DType::F8E4M3 => reference::e4m3_to_f32(reference::f32_to_e4m3(v)),
                _ => reference::e5m2_to_f32(reference::f32_to_e5m2(v)),
            };
            assert!(
                same(want, got[i]),
                "{to} of {v:e} ({:#010x}) at {i}: got {} want {want}",
                v.to_bits(),
                got[i]
            );
        }
    }
}

/// bf16 through f16 matrix units ([`tilecast_kernels::gemm::bf16_gemm`]), here on whatever the
/// device has (SIMT on lavapipe, the same scaled f16 staging): rows of A and columns of B
/// spanning 1e-30..1e30, far outside f16's range, with values 2^-20 of their row's largest
/// beside them, an inf, and a zero row. Each element must be within 1e-5 of the sum of the
/// products' magnitudes (f32 accumulation; the bf16 -> f16 conversion itself is exact).
#[test]
fn bf16_gemm_scales_rows_and_columns_into_f16_range() {
    use tilecast_kernels::gemm::bf16::bf16_gemm;
    let nvidia = Profile::named("vulkan-nvidia").unwrap();
    let configs = [
        GemmConfig { input: DType::BF16, stages: 2, ..GemmConfig::default() },
        // Matrix-unit tiles (64x64 over 4 subgroups), SIMT here.
        GemmConfig { bm: 64, bn: 64, bk: 32, threads: 128, stages: 1, ..cfg_bf16() },
        // The decode tiles without the K split (whose 256-deep K steps need more than
        // lavapipe's 32 KiB of threadgroup memory; tests/matrix_units.rs compiles those).
        GemmConfig {
            input: DType::BF16,
            ..GemmConfig::for_problem(&nvidia, DType::F16, DType::F32, 13)
        },
    ];
    for cfg in &configs {
        let mut k = load(&bf16_gemm(cfg));
        for &(m, n, kd) in &[(1, 1, 1), (7, 33, 257), (33, 7, 301), (70, 132, 40), (13, 40, 300)] {
            check_bf16_gemm(&format!("{cfg:?}"), [m, n, kd], &mut |args| run(&mut k, args));
        }
    }
}

/// The same data through [`tilecast_kernels::gemm::bf16_plan::gemm_plan`]: rows of A and columns of
/// B converted to scaled f16 copies by their own launches, then an f16 gemm that undoes the
/// scales. Rows past `MAX_ROW` (8500) take the chunked conversion, columns past 256 a second
/// strip of the column passes, and 8500 rows of B the most parts of the first column pass.
#[test]
fn bf16_gemm_plan_converts_operands_to_scaled_f16() {
    use tilecast_kernels::gemm::bf16_plan::gemm_plan;
    let nvidia = Profile::named("vulkan-nvidia").unwrap();
    let configs = [
        GemmConfig { input: DType::F16, ..GemmConfig::default() },
        GemmConfig {
            input: DType::F16,
            ..GemmConfig::for_shape(&nvidia, DType::F16, DType::F32, 70, 132)
        },
    ];
    for cfg in &configs {
        for &(m, n, kd) in
            &[(1, 1, 1), (7, 33, 257), (33, 7, 301), (70, 132, 40), (13, 300, 300), (5, 270, 8500)]
        {
            let plan = gemm_plan(m, n, kd, cfg);
            check_bf16_gemm(&format!("plan {cfg:?}"), [m, n, kd], &mut |args| {
                run_plan(&plan, args)
            });
        }
    }
}

fn cfg_bf16() -> GemmConfig {
    GemmConfig { input: DType::BF16, output: DType::F32, ..GemmConfig::default() }
}

/// An e4m3 gemm with per-row scales through [`tilecast_kernels::gemm::bf16_plan::fp8_gemm_plan`]:
/// both operands decoded once to f16 copies by their own launches, then the f16 scaled gemm.
/// Every code but NaN, ragged shapes (columns past 1024 in a second strip), with the scaled
/// gemm's shape read at launch and fixed in the kernel (as workgroup-scope matrices take it).
#[test]
fn e4m3_gemm_plan_decodes_operands_once() {
    use tilecast_kernels::gemm::bf16_plan::fp8_gemm_plan;
    use tilecast_kernels::reference::e4m3_to_f32;
    use tilecast_runtime::F8E4M3;
    let cfg = GemmConfig { input: DType::F16, ..GemmConfig::default() };
    for &(m, n, kd, fixed) in
        &[(1, 1, 1, false), (37, 65, 131, false), (70, 1030, 40, false), (37, 65, 131, true)]
    {
        let code = |i: usize, salt: usize| {
            let b = ((i * 2654435761 + salt) >> 7) as u8;
            if b & 0x7f == 0x7f { b - 1 } else { b }
        };
        let a: Vec<u8> = (0..m * kd).map(|i| code(i, 11)).collect();
        let b: Vec<u8> = (0..kd * n).map(|i| code(i, 12)).collect();
        let (sa, sb) = (values(m, 3), values(n, 4));
        let up = |v: &[u8], shape: &[usize]| {
            let c: Vec<F8E4M3> = v.iter().map(|&x| F8E4M3(x)).collect();
            device().buffer_from_slice(&c, shape).unwrap()
        };
        let c = device().alloc(DType::F32, &[m, n]).unwrap();
        let plan = fp8_gemm_plan(m, n, kd, DType::F8E4M3, &cfg, fixed);
        run_plan(
            &plan,
            &[&up(&a, &[m, kd]), &up(&b, &[kd, n]), &buf(&sa, &[m]), &buf(&sb, &[n]), &c],
        );
        let got = c.download::<f32>().unwrap();
        for i in 0..m {
            for j in 0..n {
                let (mut s, mut abs) = (0f64, 0f64);
                for q in 0..kd {
                    let p = e4m3_to_f32(a[i * kd + q]) as f64 * e4m3_to_f32(b[q * n + j]) as f64;
                    s += p;
                    abs += p.abs();
                }
                let scale = sa[i] as f64 * sb[j] as f64;
                let (g, w) = (got[i * n + j] as f64, s * scale);
                assert!(
                    (g - w).abs() <= 1e-5 * abs * scale.abs() + 1e-6,
                    "{m}x{n}x{kd} at ({i}, {j}): got {g}, want {w}"
                );
            }
        }
    }
}

/// Runs `plan`'s launches in order over `args` (the entry's arguments) through
/// [`tilecast_kernels::harness::LoadedPlan`], the path `tilecast bench` and Python take.
fn run_plan(plan: &tilecast_kernels::registry::Plan, args: &[&Buffer]) {
    use tilecast_kernels::harness::LoadedPlan;
    let profile = Profile::from_capabilities(device().capabilities());
    let library = ShaderLibrary::with_cache_dir(device(), None);
    let loaded = LoadedPlan::load(&library, "plan", plan, &profile, LoadAs::Auto).unwrap();
    let scratch = loaded.alloc_scratch(device()).unwrap();
    let mut s = Stream::new(device());
    loaded.launch(&mut s, args, &scratch, &[]).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

/// `values` rounded to bf16, and uploaded as a buffer of `shape`.
fn bf16_buffer(values: &[f32], shape: &[usize]) -> (Vec<half::bf16>, Buffer) {
    let v: Vec<half::bf16> = values.iter().map(|&x| half::bf16::from_f32(x)).collect();
    let b = device().buffer_from_slice(&v, shape).unwrap();
    (v, b)
}

/// bf16 `C[M, N] = A[M, K] x B[K, N]` run by `launch` (over A, B, C): rows of A and columns
/// of B spanning 1e-30..1e30, far outside f16's range, with values 2^-20 of their row's
/// largest beside them, an inf, and a zero row. Each element must be within 1e-5 of the sum of
/// the products' magnitudes (f32 accumulation; the bf16 -> f16 conversion itself is exact).
fn check_bf16_gemm(what: &str, [m, n, kd]: [usize; 3], launch: &mut dyn FnMut(&[&Buffer])) {
    let mag = |i: usize| [1e-30f32, 1.0, 1e30, 3e-5, 7e4][i % 5];
    let mut a: Vec<f32> = values(m * kd, 7);
    let mut b: Vec<f32> = values(kd * n, 8);
    for i in 0..m {
        for q in 0..kd {
            a[i * kd + q] *= mag(i) * if q % 7 == 3 { 2f32.powi(-20) } else { 1.0 };
        }
    }
    for q in 0..kd {
        for j in 0..n {
            b[q * n + j] *= mag(j + 1);
        }
    }
    if m > 2 {
        a[kd..2 * kd].iter_mut().for_each(|v| *v = 0.0);
    }
    if m > 3 && kd > 2 {
        a[3 * kd + 2] = f32::INFINITY;
    }
    let ((ah, ab), (bh, bb)) = (bf16_buffer(&a, &[m, kd]), bf16_buffer(&b, &[kd, n]));
    let c = device().alloc(DType::F32, &[m, n]).unwrap();
    launch(&[&ab, &bb, &c]);
    let got = c.download::<f32>().unwrap();
    for i in 0..m {
        for j in 0..n {
            let (mut s, mut abs) = (0f64, 0f64);
            for q in 0..kd {
                let p = ah[i * kd + q].to_f64() * bh[q * n + j].to_f64();
                s += p;
                abs += p.abs();
            }
            let (g, w) = (got[i * n + j] as f64, s as f32 as f64);
            let ok = if w.is_nan() || w.is_infinite() {
                g.is_nan() || g == w
            } else {
                (g - w).abs() <= 1e-5 * abs + 1e-37
            };
            assert!(
                ok,
                "{what} {m}x{n}x{kd} at ({i}, {j}): got {g:e}, want {w:e} (sum of |products| {abs:e})"
            );
        }
    }
}

/// bf16 `linear` through [`tilecast_kernels::gemm::bf16::bf16_linear`] (rows of X and of W scaled
/// into f16's range, in one launch), with and without silu.
#[test]
fn bf16_linear_scales_rows_of_x_and_w_into_f16_range() {
    use tilecast_kernels::elementwise::Unary;
    use tilecast_kernels::gemm::bf16::bf16_linear;
    let nvidia = Profile::named("vulkan-nvidia").unwrap();
    let cfg =
        GemmConfig::for_bf16(GemmConfig::for_problem(&nvidia, DType::F16, DType::F32, 13), &nvidia);
    for act in [None, Some(Unary::Silu)] {
        let mut k = load(&bf16_linear(&cfg, act));
        for &(m, n, kd) in &[(1, 1, 1), (13, 70, 301), (5, 33, 40)] {
            check_bf16_linear("one launch", [m, n, kd], act, &mut |args| run(&mut k, args));
        }
    }
}

/// The same through [`tilecast_kernels::gemm::bf16_plan::linear_plan`]: rows of X and W converted to
/// scaled f16 copies by their own launches (8500-wide rows in chunks), then an f16 linear.
#[test]
fn bf16_linear_plan_converts_rows_to_scaled_f16() {
    use tilecast_kernels::elementwise::Unary;
    use tilecast_kernels::gemm::bf16_plan::linear_plan;
    let cfg = GemmConfig { input: DType::F16, ..GemmConfig::default() };
    for act in [None, Some(Unary::Silu)] {
        for &(m, n, kd) in &[(1, 1, 1), (13, 70, 301), (5, 33, 40), (3, 20, 8500)] {
            let plan = linear_plan(m, n, kd, &cfg, act);
            check_bf16_linear("plan", [m, n, kd], act, &mut |args| run_plan(&plan, args));
        }
    }
}

/// bf16 `Y = act(X W^T + Bias)` run by `launch` (over X, W, Bias, Y): rows of X and W spanning
/// 1e-30..1e15 (far outside f16's range; products stay finite in f32, where silu of an
/// overflowed -inf would be NaN), a bias, and silu if given. Each element must be within 1e-5
/// of the sum of the products' magnitudes plus the bias.
fn check_bf16_linear(
    what: &str,
    [m, n, kd]: [usize; 3],
    act: Option<tilecast_kernels::elementwise::Unary>,
    launch: &mut dyn FnMut(&[&Buffer]),
) {
    let mag = |i: usize| [1e-30f32, 1.0, 1e15, 3e-5, 7e4][i % 5];
    let (mut x, mut w) = (values(m * kd, 9), values(n * kd, 10));
    x.iter_mut().enumerate().for_each(|(e, v)| *v *= mag(e / kd));
    w.iter_mut().enumerate().for_each(|(e, v)| *v *= mag(e / kd + 1));
    let bias = values(n, 11);
    let ((xh, xb), (wh, wb)) = (bf16_buffer(&x, &[m, kd]), bf16_buffer(&w, &[n, kd]));
    let y = device().alloc(DType::F32, &[m, n]).unwrap();
    launch(&[&xb, &wb, &buf(&bias, &[n]), &y]);
    let got = y.download::<f32>().unwrap();
    for i in 0..m {
        for j in 0..n {
            let (mut s, mut abs) = (bias[j] as f64, bias[j].abs() as f64);
            for q in 0..kd {
                let p = xh[i * kd + q].to_f64() * wh[j * kd + q].to_f64();
                s += p;
                abs += p.abs();
            }
            let want = match act {
                Some(_) => s / (1.0 + (-s).exp()),
                None => s,
            };
            // f32 results: past its range the right answer is inf.
            let (g, want) = (got[i * n + j] as f64, want as f32 as f64);
            let ok =
                if want.is_infinite() { g == want } else { (g - want).abs() <= 1e-5 * abs + 1e-30 };
            assert!(
                ok,
                "{what} {act:?} {m}x{n}x{kd} at ({i}, {j}): got {g:e}, want {want:e} (sum of |terms| {abs:e})"
            );
        }
    }
}

/// The decoded-weights qgemm's product with its shape fixed in the kernel (what runs on
/// workgroup-scope matrices), on a ragged shape: `Y = X Wd^T`, the f32 accumulator saved to
/// f16 by one converting copy.
#[test]
fn qgemm_fixed_product_saves_its_accumulator_to_f16() {
    use half::f16;
    use tilecast_kernels::qlinear::gemm::matmul_t_fixed;
    let (m, n, kd) = (37, 65, 131);
    let cfg = GemmConfig { input: DType::F16, output: DType::F32, ..GemmConfig::default() };
    let halves = |v: Vec<f32>| v.into_iter().map(f16::from_f32).collect::<Vec<f16>>();
    let (x, w) = (halves(values(m * kd, 21)), halves(values(n * kd, 22)));
    let up = |v: &[f16], shape: &[usize]| device().buffer_from_slice(v, shape).unwrap();
    let y = device().alloc(DType::F16, &[m, n]).unwrap();
    let plan = tilecast_kernels::registry::Plan::single(matmul_t_fixed(&cfg, [37, 65, 131]));
    run_plan(&plan, &[&up(&x, &[m, kd]), &up(&w, &[n, kd]), &y]);
    let got = y.download::<f16>().unwrap();
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..kd).map(|q| x[i * kd + q].to_f64() * w[j * kd + q].to_f64()).sum();
            let g = got[i * n + j].to_f64();
            assert!((g - want).abs() <= 2e-3 * want.abs().max(1.0), "({i}, {j}): {g} vs {want}");
        }
    }
}

/// The batched gemm with its shape fixed (what runs on workgroup-scope matrices), on a ragged
/// shape: windows are copies of one batch item's slice, so none reads the next item.
#[test]
fn fixed_batched_gemm_windows_stay_inside_their_batch_item() {
    use half::f16;
    use tilecast_kernels::gemm::linear::batched_gemm_fixed;
    let (bt, m, n, kd) = (3, 37, 65, 131);
    let cfg = GemmConfig { input: DType::F16, output: DType::F32, ..GemmConfig::default() };
    let halves = |v: Vec<f32>| v.into_iter().map(f16::from_f32).collect::<Vec<f16>>();
    let (a, b) = (halves(values(bt * m * kd, 31)), halves(values(bt * kd * n, 32)));
    let up = |v: &[f16], shape: &[usize]| device().buffer_from_slice(v, shape).unwrap();
    let c = device().alloc(DType::F32, &[bt, m, n]).unwrap();
    let ir = batched_gemm_fixed(&cfg, [bt, m, n, kd].map(|d| d as u32));
    let plan = tilecast_kernels::registry::Plan::single(ir);
    run_plan(&plan, &[&up(&a, &[bt, m, kd]), &up(&b, &[bt, kd, n]), &c]);
    let got = c.download::<f32>().unwrap();
    for z in 0..bt {
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..kd)
                    .map(|q| a[(z * m + i) * kd + q].to_f64() * b[(z * kd + q) * n + j].to_f64())
                    .sum();
                let g = got[(z * m + i) * n + j] as f64;
                assert!(
                    (g - want).abs() <= 1e-4 * want.abs().max(1.0),
                    "{z} ({i}, {j}): {g} vs {want}"
                );
            }
        }
    }
}

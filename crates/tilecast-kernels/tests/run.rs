//! Each kernel on the local device (lavapipe in CI) against its CPU reference, on shapes that
//! are multiples of no tile size.

use std::sync::OnceLock;

use half::f16;
use tilecast_kernels::gemm::{GemmConfig, gemm};
use tilecast_kernels::{basic, reference};
use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Kernel, Profile, TileKernel, compile, sym};
use tilecast_runtime::{Buffer, Device, ShaderLibrary, StorageMode, Stream, SyncType};

fn device() -> &'static Device {
    static D: OnceLock<Device> = OnceLock::new();
    D.get_or_init(|| Device::new().expect("a GPU or lavapipe"))
}

fn load(kernel: &Ir) -> TileKernel {
    let profile = Profile::from_capabilities(device().capabilities());
    let compiled = compile(kernel, &profile).unwrap_or_else(|e| panic!("{e}"));
    TileKernel::load(&ShaderLibrary::with_cache_dir(device(), None), &compiled).unwrap()
}

fn run(kernel: &mut TileKernel, args: &[&Buffer]) {
    let mut s = Stream::new(device());
    kernel.launch(&mut s, args).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn buf(data: &[f32], shape: &[usize]) -> Buffer {
    device().buffer_from_slice_in(StorageMode::Private, data, shape).unwrap()
}

fn max_err(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[test]
fn copy_any_shape() {
    for dtype in [DType::F32, DType::F16] {
        let mut k = load(&basic::copy(dtype));
        for (m, n) in [(1, 1), (7, 33), (33, 257), (65, 1001), (3, 4), (37, 132)] {
            let x = values(m * n, (m * n) as u64);
            let (xb, yb) = match dtype {
                DType::F32 => (buf(&x, &[m, n]), device().alloc(DType::F32, &[m, n]).unwrap()),
                _ => {
                    let h: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
                    (
                        device().buffer_from_slice(&h, &[m, n]).unwrap(),
                        device().alloc(DType::F16, &[m, n]).unwrap(),
                    )
                }
            };
            run(&mut k, &[&xb, &yb]);
            let (got, want) = match dtype {
                DType::F32 => (yb.download::<f32>().unwrap(), x),
                _ => (
                    yb.download::<f16>().unwrap().iter().map(|v| v.to_f32()).collect(),
                    x.iter().map(|&v| f16::from_f32(v).to_f32()).collect(),
                ),
            };
            assert_eq!(got, want, "{dtype} {m}x{n}");
        }
    }
}

#[test]
fn elementwise_gelu_on_fragments() {
    let mut k = load(&basic::add_gelu());
    for (m, n) in [(1, 1), (33, 7), (40, 257)] {
        let (x, y) = (values(m * n, 1), values(m * n, 2));
        let z = device().alloc(DType::F32, &[m, n]).unwrap();
        run(&mut k, &[&buf(&x, &[m, n]), &buf(&y, &[m, n]), &z]);
        let want: Vec<f32> =
            x.iter().zip(&y).map(|(a, b)| reference::gelu((a + b) as f64) as f32).collect();
        let e = max_err(&z.download::<f32>().unwrap(), &want);
        assert!(e < 2e-6, "{m}x{n}: max error {e}");
    }
}

#[test]
fn reduce_rows_across_a_serial_loop() {
    let mut k = load(&basic::row_sum());
    for (m, n) in [(1, 1), (33, 7), (7, 257), (70, 1001)] {
        let x = values(m * n, 3);
        let y = device().alloc(DType::F32, &[m]).unwrap();
        run(&mut k, &[&buf(&x, &[m, n]), &y]);
        let e = max_err(&y.download::<f32>().unwrap(), &reference::row_sum(&x, m, n));
        assert!(e < 1e-4 * (n as f32).sqrt(), "{m}x{n}: max error {e}");
    }
}

/// Long rows read in chunks keep the first of equal maxima: rows with the maximum at columns
/// one chunk apart (the same register slot), in two slots, at the last column only, in a
/// padding-sized tail, and a row of -inf (column 0).
#[test]
fn argmax_of_chunked_rows_keeps_the_first_maximum() {
    use tilecast_kernels::reduce::{Reduction, reduce_rows};
    let c = 9001;
    let mut k = load(&reduce_rows(Reduction::Argmax, DType::F32, c));
    let cases: [&[usize]; 5] = [&[4100, 4, 8196], &[5000, 4097], &[c - 1], &[8999, 9000], &[]];
    let mut x = values(cases.len() * c, 11);
    for (r, at) in cases.iter().enumerate() {
        for &j in *at {
            x[r * c + j] = 2.0;
        }
    }
    x[4 * c..].fill(f32::NEG_INFINITY);
    let y = device().alloc(DType::U32, &[cases.len()]).unwrap();
    run(&mut k, &[&buf(&x, &[cases.len(), c]), &y]);
    let got = y.download::<u32>().unwrap();
    assert_eq!(got, [4, 4097, c as u32 - 1, 8999, 0]);
}

#[test]
fn fused_softmax() {
    let mut k = load(&basic::softmax());
    for (m, n) in [(1, 1), (33, 7), (65, 100), (3, 128)] {
        let x: Vec<f32> = values(m * n, 4).iter().map(|v| v * 8.0).collect();
        let y = device().alloc(DType::F32, &[m, n]).unwrap();
        run(&mut k, &[&buf(&x, &[m, n]), &y]);
        let e = max_err(&y.download::<f32>().unwrap(), &reference::softmax(&x, m, n));
        assert!(e < 1e-6, "{m}x{n}: max error {e}");
    }
}

fn check_gemm(input: DType, stages: u32, shapes: &[(usize, usize, usize)]) {
    check_gemm_config(&GemmConfig { input, stages, ..GemmConfig::default() }, shapes);
}

fn check_gemm_config(cfg: &GemmConfig, shapes: &[(usize, usize, usize)]) {
    let (input, stages) = (cfg.input, cfg.stages);
    let mut k = load(&gemm(cfg));
    for &(m, n, kd) in shapes {
        let (a, b) = (values(m * kd, 5), values(kd * n, 6));
        let c = device().alloc(DType::F32, &[m, n]).unwrap();
        let (a_ref, b_ref, ab, bb) = match input {
            DType::F32 => (a.clone(), b.clone(), buf(&a, &[m, kd]), buf(&b, &[kd, n])),
            DType::BF16 => {
                // Magnitudes far past f16's range: bf16 must not go through f16.
                let to = |v: &f32| half::bf16::from_f32(v * 1e6);
                let (ah, bh): (Vec<half::bf16>, Vec<half::bf16>) =
                    (a.iter().map(to).collect(), b.iter().map(to).collect());
                (
                    ah.iter().map(|v| v.to_f32()).collect(),
                    bh.iter().map(|v| v.to_f32()).collect(),
                    device().buffer_from_slice(&ah, &[m, kd]).unwrap(),
                    device().buffer_from_slice(&bh, &[kd, n]).unwrap(),
                )
            }
            _ => {
                let (ah, bh): (Vec<f16>, Vec<f16>) = (
                    a.iter().map(|&v| f16::from_f32(v)).collect(),
                    b.iter().map(|&v| f16::from_f32(v)).collect(),
                );
                (
                    ah.iter().map(|v| v.to_f32()).collect(),
                    bh.iter().map(|v| v.to_f32()).collect(),
                    device().buffer_from_slice(&ah, &[m, kd]).unwrap(),
                    device().buffer_from_slice(&bh, &[kd, n]).unwrap(),
                )
            }
        };
        run(&mut k, &[&ab, &bb, &c]);
        let want = reference::gemm(&a_ref, &b_ref, m, n, kd);
        let scale = if input == DType::BF16 { 1e12 } else { 1.0 };
        let e = max_err(&c.download::<f32>().unwrap(), &want) / scale;
        assert!(e < 1e-5 * kd as f32 + 1e-6, "{input} stages {stages} {m}x{n}x{kd}: max error {e}");
    }
}

/// The last two have rows of whole 4-element runs (K and N multiples of 4, not of any tile
/// size), so the vectorized loads run; the others take the scalar path.
const SHAPES: [(usize, usize, usize); 6] =
    [(1, 1, 1), (7, 33, 257), (33, 7, 1001), (65, 130, 47), (33, 36, 100), (70, 132, 4)];

/// With one shape past a whole 128x128 tile (and K, N multiples of 4), so windows lie inside
/// their parameters and the unmasked paths (grouped loads, register prefetch) run too.
const SHAPES_INSIDE: [(usize, usize, usize); 7] = [
    (1, 1, 1),
    (7, 33, 257),
    (33, 7, 1001),
    (65, 130, 47),
    (33, 36, 100),
    (70, 132, 4),
    (130, 132, 100),
];

#[test]
fn gemm_bf16_inputs_decoded_to_f32() {
    check_gemm(DType::BF16, 2, &SHAPES);
}

#[test]
fn gemm_f32_stages_1() {
    check_gemm(DType::F32, 1, &SHAPES_INSIDE);
}

#[test]
fn gemm_f32_stages_2() {
    check_gemm(DType::F32, 2, &SHAPES);
}

#[test]
fn gemm_f32_stages_3() {
    check_gemm(DType::F32, 3, &SHAPES);
}

#[test]
fn gemm_f16_stages_1() {
    check_gemm(DType::F16, 1, &SHAPES_INSIDE);
}

#[test]
fn gemm_f16_stages_2() {
    check_gemm(DType::F16, 2, &SHAPES);
}

#[test]
fn gemm_f16_stages_3() {
    check_gemm(DType::F16, 3, &SHAPES);
}

#[test]
fn gemm_with_padded_rows_in_both_operands() {
    // 32-element f16 rows (64 bytes) are padded to 40 in A and B, over 2 stages: every index
    // into them (staging, the K loop, stage offsets) must step by the padded pitch.
    let cfg = GemmConfig { bm: 32, bn: 32, bk: 32, threads: 64, stages: 2, ..Default::default() };
    let c = compile(&gemm(&cfg), &Profile::named("vulkan-lavapipe").unwrap()).unwrap();
    assert_eq!(
        c.ir_lowered().matches("rows padded to 40 elements").count(),
        2,
        "{}",
        c.ir_lowered()
    );
    assert_eq!(c.shared_bytes(), 2 * 2 * (32 * 40) * 2);
    check_gemm_config(&cfg, &SHAPES);
    // Tiles that fill lavapipe's 32 KiB exactly stay unpadded rather than fail to compile.
    let full = GemmConfig { bm: 128, bn: 128, bk: 32, threads: 256, stages: 2, ..cfg };
    let c = compile(&gemm(&full), &Profile::named("vulkan-lavapipe").unwrap()).unwrap();
    assert_eq!(c.shared_bytes(), 32768);
    assert!(!c.ir_lowered().contains("rows padded"), "{}", c.ir_lowered());
}

#[test]
fn a_window_walked_down_its_columns_gets_odd_word_rows() {
    // The transpose stores Y with consecutive threads on consecutive rows of its window: 64
    // f16 (32 words) a row would put all 32 on one bank, so the padding pass makes it 66.
    let profile = Profile::named("vulkan-nvidia").unwrap();
    let c = compile(&tilecast_kernels::elementwise::transpose(DType::F16), &profile).unwrap();
    assert!(c.ir_lowered().contains("rows padded to 66 elements"), "{}", c.ir_lowered());
    assert_eq!(c.shared_bytes(), 64 * 66 * 2);
    let c = compile(&tilecast_kernels::elementwise::transpose(DType::F32), &profile).unwrap();
    assert!(c.ir_lowered().contains("rows padded to 65 elements"), "{}", c.ir_lowered());
    // A gemm's tiles are walked along rows: their padding is the 16-byte rule's, not this one.
    let c = compile(&gemm(&GemmConfig::default()), &profile).unwrap();
    assert!(!c.ir_lowered().contains("rows padded to 130"), "{}", c.ir_lowered());
}

#[test]
fn loads_from_read_only_inputs_are_vectorized() {
    let profile = Profile::named("vulkan-lavapipe").unwrap();
    let c = compile(&gemm(&GemmConfig::default()), &profile).unwrap();
    assert_eq!(c.vector_views(), [(3, 0), (4, 1)]);
    // B's 256-byte rows are padded by 16 bytes (the padding pass); A's 16-byte rows need none.
    assert_eq!(c.shared_bytes(), 2 * (128 * 8 + 8 * 136) * 2, "f16 A and B tiles, 2 stages");
    assert!(c.wgsl().contains("var<storage, read> v_g0_A: array<vec4<f16>>"));
    assert!(c.wgsl().contains(" = ldv_g0_A("), "{}", c.wgsl());
    // Windows inside the parameter skip the per-element bounds tests.
    assert!(c.wgsl().contains(" = ldvu_g0_A("), "{}", c.wgsl());
    // Outputs and fragment destinations are not.
    assert!(!c.wgsl().contains("v_g2_C"));
}

#[test]
fn launch_checks_argument_shapes() {
    let k = load(&gemm(&GemmConfig { input: DType::F32, ..GemmConfig::default() }));
    let (a, b, c) = (
        buf(&[0.0; 6], &[2, 3]),
        buf(&[0.0; 8], &[4, 2]),
        device().alloc(DType::F32, &[2, 2]).unwrap(),
    );
    let mut s = Stream::new(device());
    let e = k.launch(&mut s, &[&a, &b, &c]).unwrap_err().to_string();
    assert!(e.contains("B dimension 0 must be 3 (K = 3 from A dimension 1); got 4"), "{e}");
    let e = k.launch(&mut s, &[&a, &b]).unwrap_err().to_string();
    assert!(e.contains("takes 3 buffers (A, B, C); got 2"), "{e}");
    let h = device().alloc(DType::F16, &[3, 2]).unwrap();
    let e = k.launch(&mut s, &[&a, &h, &c]).unwrap_err().to_string();
    assert!(e.contains("B is f32; got a f16 buffer"), "{e}");
}

/// Every math function and select, on a shared tile, specialized shape (no symbols).
#[test]
fn math_functions_and_specialized_shapes() {
    use tilecast_lang::{Kernel, select};
    const N: u32 = 300;
    let k = Kernel::new("math").grid([ceil(N, 128)]).threads(128);
    let x = k.input("X", DType::F32, [N]);
    let y = k.param("Y", DType::F32, [N]);
    let t = k.shared_named("t", DType::F32, [128]);
    let bx = tilecast_lang::block_x();
    k.copy(x.tile([&bx * 128u32]), &t);
    k.parallel([128], |k, [i]| {
        let v = t.at([&i]);
        let a = v.clone().abs() + 1.0f32;
        let r = v.clone().tanh()
            + a.clone().sqrt()
            + a.clone().rsqrt()
            + a.clone().log()
            + v.clone().min(0.25f32)
            + v.clone().max(-0.25f32)
            + (-v.clone()).exp()
            + select(v.clone().gt(0.0f32), 1.0f32, -1.0f32);
        k.store(&t, [&i], r);
    });
    k.copy(&t, y.tile([&bx * 128u32]));
    let mut tk = load(&k.build());
    assert!(tk.compiled().symbols().is_empty(), "a specialized kernel has no symbols");
    let xs = values(N as usize, 9);
    let yb = device().alloc(DType::F32, &[N as usize]).unwrap();
    run(&mut tk, &[&buf(&xs, &[N as usize]), &yb]);
    let want: Vec<f32> = xs
        .iter()
        .map(|&v| {
            let v = v as f64;
            let a = v.abs() + 1.0;
            (v.tanh()
                + a.sqrt()
                + 1.0 / a.sqrt()
                + a.ln()
                + v.min(0.25)
                + v.max(-0.25)
                + (-v).exp()
                + if v > 0.0 { 1.0 } else { -1.0 }) as f32
        })
        .collect();
    let e = max_err(&yb.download::<f32>().unwrap(), &want);
    assert!(e < 2e-5, "max error {e}");
    // A wrong length for a specialized dimension is refused.
    let short = device().alloc(DType::F32, &[N as usize - 1]).unwrap();
    let mut s = Stream::new(device());
    let e = tk.launch(&mut s, &[&short, &yb]).unwrap_err().to_string();
    assert!(e.contains("X dimension 0 must be 300; got 299"), "{e}");
}

fn ceil(a: u32, b: u32) -> u32 {
    a.div_ceil(b)
}

/// Column sums (reduce along axis 0), a local tile, casts, and a uniform `if`: blocks past the
/// second leave their output alone.
#[test]
fn column_sums_local_tiles_casts_and_if() {
    use tilecast_lang::{Kernel, block_x, ceil_div, sym};
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("colsum").grid([ceil_div(&n, 32u32)]).threads(64);
    let x = k.input("X", DType::F32, [&m, &n]);
    let y = k.param("Y", DType::F32, [&n]);
    let t = k.shared_named("t", DType::F32, [16, 32]);
    let part = k.shared_named("part", DType::F32, [32]);
    let acc = k.shared_named("acc", DType::F32, [32]);
    let w = k.local(DType::I32, [4]);
    let bx = block_x();
    k.parallel([4], |k, [i]| k.store(&w, [&i], i.clone().cast(DType::I32) - 1i32));
    k.if_(bx.clone().lt(2u32), |k| {
        k.clear(&acc);
        k.serial(ceil_div(&m, 16u32), |k, r| {
            k.copy(x.tile([&r * 16u32, &bx * 32u32]), &t);
            k.reduce_sum(&t, &part, 0);
            // acc[j] += part[j] * weight, weight = w[j % 4] + 2 (1, 2, 3, 4) as f32
            k.parallel([32], |k, [j]| {
                let weight = (w.at([&j % 4u32]) + 2i32).cast(DType::F32);
                k.store(&acc, [&j], acc.at([&j]) + part.at([&j]) * weight);
            });
        });
        k.copy(&acc, y.tile([&bx * 32u32]));
    });
    let mut tk = load(&k.build());
    let (rows, cols) = (37usize, 100usize);
    let xs = values(rows * cols, 11);
    let yb = buf(&vec![-7.0; cols], &[cols]);
    run(&mut tk, &[&buf(&xs, &[rows, cols]), &yb]);
    let got = yb.download::<f32>().unwrap();
    for j in 0..cols {
        let want = if j < 64 {
            let s: f64 = (0..rows).map(|i| xs[i * cols + j] as f64).sum();
            (s * ((j % 4) + 1) as f64) as f32
        } else {
            -7.0 // blocks 2 and 3 skip their columns
        };
        assert!((got[j] - want).abs() < 1e-4, "column {j}: {} vs {want}", got[j]);
    }
}

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

/// bf16 through f16 matrix units ([`tilecast_kernels::gemm::bf16_gemm`]), here on whatever the
/// device has (SIMT on lavapipe, the same scaled f16 staging): rows of A and columns of B
/// spanning 1e-30..1e30, far outside f16's range, with values 2^-20 of their row's largest
/// beside them, an inf, and a zero row. Each element must be within 1e-5 of the sum of the
/// products' magnitudes (f32 accumulation; the bf16 -> f16 conversion itself is exact).
#[test]
fn bf16_gemm_scales_rows_and_columns_into_f16_range() {
    use tilecast_kernels::bf16::bf16_gemm;
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

/// The same data through [`tilecast_kernels::bf16_plan::gemm_plan`]: rows of A and columns of
/// B converted to scaled f16 copies by their own launches, then an f16 gemm that undoes the
/// scales. Rows past `MAX_ROW` (8500) take the chunked conversion, columns past 256 a second
/// strip of the column passes, and 8500 rows of B the most parts of the first column pass.
#[test]
fn bf16_gemm_plan_converts_operands_to_scaled_f16() {
    use tilecast_kernels::bf16_plan::gemm_plan;
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

/// An e4m3 gemm with per-row scales through [`tilecast_kernels::bf16_plan::fp8_gemm_plan`]:
/// both operands decoded once to f16 copies by their own launches, then the f16 scaled gemm.
/// Every code but NaN, ragged shapes (columns past 1024 in a second strip).
#[test]
fn e4m3_gemm_plan_decodes_operands_once() {
    use tilecast_kernels::bf16_plan::fp8_gemm_plan;
    use tilecast_kernels::reference::e4m3_to_f32;
    use tilecast_runtime::F8E4M3;
    let cfg = GemmConfig { input: DType::F16, ..GemmConfig::default() };
    for &(m, n, kd) in &[(1, 1, 1), (37, 65, 131), (70, 1030, 40)] {
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
        let plan = fp8_gemm_plan(m, n, kd, DType::F8E4M3, &cfg);
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
    let loaded = LoadedPlan::load(&library, "plan", plan, &profile, false).unwrap();
    let scratch = loaded.alloc_scratch(device()).unwrap();
    let mut s = Stream::new(device());
    loaded.launch(&mut s, args, &scratch, &[]).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

/// bf16 `C[M, N] = A[M, K] x B[K, N]` run by `launch` (over A, B, C): rows of A and columns
/// of B spanning 1e-30..1e30, far outside f16's range, with values 2^-20 of their row's
/// largest beside them, an inf, and a zero row. Each element must be within 1e-5 of the sum of
/// the products' magnitudes (f32 accumulation; the bf16 -> f16 conversion itself is exact).
fn check_bf16_gemm(what: &str, [m, n, kd]: [usize; 3], launch: &mut dyn FnMut(&[&Buffer])) {
    use half::bf16;
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
    let ah: Vec<bf16> = a.iter().map(|&v| bf16::from_f32(v)).collect();
    let bh: Vec<bf16> = b.iter().map(|&v| bf16::from_f32(v)).collect();
    let c = device().alloc(DType::F32, &[m, n]).unwrap();
    let (ab, bb) = (
        device().buffer_from_slice(&ah, &[m, kd]).unwrap(),
        device().buffer_from_slice(&bh, &[kd, n]).unwrap(),
    );
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

/// bf16 `linear` through [`tilecast_kernels::bf16::bf16_linear`] (rows of X and of W scaled
/// into f16's range, in one launch), with and without silu.
#[test]
fn bf16_linear_scales_rows_of_x_and_w_into_f16_range() {
    use tilecast_kernels::bf16::bf16_linear;
    use tilecast_kernels::elementwise::Unary;
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

/// The same through [`tilecast_kernels::bf16_plan::linear_plan`]: rows of X and W converted to
/// scaled f16 copies by their own launches (8500-wide rows in chunks), then an f16 linear.
#[test]
fn bf16_linear_plan_converts_rows_to_scaled_f16() {
    use tilecast_kernels::bf16_plan::linear_plan;
    use tilecast_kernels::elementwise::Unary;
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
    use half::bf16;
    let mag = |i: usize| [1e-30f32, 1.0, 1e15, 3e-5, 7e4][i % 5];
    let (mut x, mut w) = (values(m * kd, 9), values(n * kd, 10));
    x.iter_mut().enumerate().for_each(|(e, v)| *v *= mag(e / kd));
    w.iter_mut().enumerate().for_each(|(e, v)| *v *= mag(e / kd + 1));
    let bias = values(n, 11);
    let xh: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
    let wh: Vec<bf16> = w.iter().map(|&v| bf16::from_f32(v)).collect();
    let y = device().alloc(DType::F32, &[m, n]).unwrap();
    let (xb, wb) = (
        device().buffer_from_slice(&xh, &[m, kd]).unwrap(),
        device().buffer_from_slice(&wh, &[n, kd]).unwrap(),
    );
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

//! The tile language's operations, each run on the local device (lavapipe in CI)
//! against a CPU reference on shapes that are multiples of no tile size.

mod common;

use common::{device, values};
use half::f16;
use tilecast_kernels::TileKernel;
use tilecast_lang::DType::{F16, F32, I8, I32, U8, U32};
use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{
    Expr, Kernel, Profile, Scalar, TileRef, block_x, ceil_div, compile, select, sym, thread_index,
};
use tilecast_runtime::{Buffer, Element, ShaderLibrary, Stream, SyncType};

fn profile() -> Profile {
    Profile::from_capabilities(device().capabilities())
}

fn load_for(kernel: &Ir, profile: &Profile) -> TileKernel {
    let compiled = compile(kernel, profile).unwrap_or_else(|e| panic!("{e}"));
    TileKernel::load(&ShaderLibrary::with_cache_dir(device(), None), &compiled).unwrap()
}

fn run(k: &TileKernel, args: &[&Buffer], scalars: &[Scalar]) {
    let mut s = Stream::new(device());
    k.launch_with(&mut s, args, scalars).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

fn buf<T: Element>(data: &[T], shape: &[usize]) -> Buffer {
    device().buffer_from_slice(data, shape).unwrap()
}

const ROWS: u32 = 8;
const COLS: u32 = 64;

/// `src` stored into each `dst` in turn, its columns at `n` and past replaced by `fill`: padding
/// that never counts (-inf for a max, +inf for a min, 0 for a sum).
fn pad_columns(k: &Kernel, shape: [u32; 2], n: &Expr, src: &TileRef, dsts: &[(&TileRef, Expr)]) {
    k.parallel(shape, |k, [i, j]| {
        let inside = j.clone().lt(n);
        for &(dst, ref fill) in dsts {
            k.store(dst, [&i, &j], select(inside.clone(), src.at([&i, &j]), fill.clone()));
        }
    });
}

/// max, min, |x| sum, argmax and argmin of each row of X [M, N], N <= 64, padding columns past N
/// with -inf / +inf literals so they never win.
fn row_reductions() -> Ir {
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("row_reductions").grid([ceil_div(&m, ROWS)]).threads(64);
    let x = k.input("X", F32, [&m, &n]);
    let outs: Vec<_> = ["MAX", "MIN", "ABS"].iter().map(|name| k.param(name, F32, [&m])).collect();
    let (imax, imin) = (k.param("IMAX", U32, [&m]), k.param("IMIN", U32, [&m]));
    let t = k.shared_named("t", F32, [ROWS, COLS]);
    let hi = k.shared_named("hi", F32, [ROWS, COLS]);
    let lo = k.shared_named("lo", F32, [ROWS, COLS]);
    let r: Vec<_> = ["mx", "mn", "ab"].iter().map(|nm| k.shared_named(nm, F32, [ROWS])).collect();
    let (am, an) = (k.shared_named("am", U32, [ROWS]), k.shared_named("an", U32, [ROWS]));
    let bx = block_x();
    k.copy(x.tile([&bx * ROWS, Expr::from(0u32)]), &t);
    pad_columns(&k, [ROWS, COLS], &n, &t, &[(&hi, Expr::neg_inf()), (&lo, Expr::inf())]);
    k.reduce_max(&hi, &r[0], 1);
    k.reduce_min(&lo, &r[1], 1);
    k.reduce_abs_sum(&t, &r[2], 1);
    k.reduce_argmax(&hi, &am, 1);
    k.reduce_argmin(&lo, &an, 1);
    for (o, t) in outs.iter().zip(&r) {
        k.copy(t, o.tile([&bx * ROWS]));
    }
    k.copy(&am, imax.tile([&bx * ROWS]));
    k.copy(&an, imin.tile([&bx * ROWS]));
    k.build()
}

fn check_row_reductions(profile: &Profile) {
    let k = load_for(&row_reductions(), profile);
    for (m, n) in [(37usize, 45usize), (5, 64), (9, 1)] {
        let xs = values(m * n, (m * 31 + n) as u64);
        let outs: Vec<Buffer> = (0..3).map(|_| device().alloc(F32, &[m]).unwrap()).collect();
        let idx: Vec<Buffer> = (0..2).map(|_| device().alloc(U32, &[m]).unwrap()).collect();
        let x = buf(&xs, &[m, n]);
        run(&k, &[&x, &outs[0], &outs[1], &outs[2], &idx[0], &idx[1]], &[]);
        let got: Vec<Vec<f32>> = outs.iter().map(|b| b.download::<f32>().unwrap()).collect();
        let gi: Vec<Vec<u32>> = idx.iter().map(|b| b.download::<u32>().unwrap()).collect();
        for i in 0..m {
            let row = &xs[i * n..(i + 1) * n];
            let mx = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mn = row.iter().copied().fold(f32::INFINITY, f32::min);
            let ab: f64 = row.iter().map(|v| v.abs() as f64).sum();
            let am = row.iter().position(|&v| v == mx).unwrap() as u32;
            let an = row.iter().position(|&v| v == mn).unwrap() as u32;
            assert_eq!(got[0][i], mx, "{m}x{n} row {i} max");
            assert_eq!(got[1][i], mn, "{m}x{n} row {i} min");
            assert!((got[2][i] as f64 - ab).abs() < 1e-4, "{m}x{n} row {i} abs sum");
            assert_eq!((gi[0][i], gi[1][i]), (am, an), "{m}x{n} row {i} argmax/argmin");
        }
    }
}

#[test]
fn reductions_serial_and_on_subgroups() {
    let p = profile();
    let compiled = compile(&row_reductions(), &p).unwrap();
    if p.subgroups {
        assert!(
            compiled.ir_lowered().contains("one subgroup per output"),
            "{}",
            compiled.ir_lowered()
        );
        assert!(compiled.wgsl().contains("subgroupMax("));
    }
    check_row_reductions(&p);
    let serial = Profile { subgroups: false, ..p };
    let compiled = compile(&row_reductions(), &serial).unwrap();
    assert!(!compiled.ir_lowered().contains("one subgroup per output"));
    check_row_reductions(&serial);
}

/// Row sums of X [M, N] two ways: a pipelined loop reducing the staged tile directly, and a
/// fragment reduced in registers (partial results through shared memory) after scaling it.
#[test]
fn reductions_of_staged_tiles_and_fragments() {
    const BN: u32 = 32;
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("staged_rows").grid([ceil_div(&m, 16u32)]).threads(64);
    let x = k.input("X", F32, [&m, &n]);
    let (y, z) = (k.param("Y", F32, [&m]), k.param("Z", F32, [&m]));
    let t = k.shared_named("t", F32, [16, BN]);
    let acc = k.shared_named("acc", F32, [16]);
    let f = k.fragment_named("f", F32, [16, BN]);
    let fs = k.shared_named("fsum", F32, [16]);
    let bx = block_x();
    k.clear(&acc);
    k.pipelined(ceil_div(&n, BN), 3, |k, ko| {
        k.copy(x.tile([&bx * 16u32, &ko * BN]), &t);
        k.reduce_sum_into(&t, &acc, 1);
    });
    k.copy(&acc, y.tile([&bx * 16u32]));
    // The first column tile only, doubled, on a fragment.
    k.copy(x.tile([&bx * 16u32, Expr::from(0u32)]), &f);
    k.parallel([16, BN], |k, [i, j]| k.store(&f, [&i, &j], f.at([&i, &j]) * 2.0f32));
    k.reduce_sum(&f, &fs, 1);
    k.copy(&fs, z.tile([&bx * 16u32]));
    let kernel = k.build();
    let c = compile(&kernel, &profile()).unwrap();
    assert!(c.ir_lowered().contains("reduce_sum t<stage (i4 % 3)>"), "{}", c.ir_lowered());
    assert!(
        c.ir_lowered().contains("in registers (unrolled), 8 threads per row"),
        "{}",
        c.ir_lowered()
    );
    assert!(!c.ir_lowered().contains("f_scratch"), "{}", c.ir_lowered());
    let tk = load_for(&kernel, &profile());
    for (m, n) in [(37usize, 301usize), (16, 32), (3, 7)] {
        let xs = values(m * n, (m + n) as u64);
        let (yb, zb) = (device().alloc(F32, &[m]).unwrap(), device().alloc(F32, &[m]).unwrap());
        run(&tk, &[&buf(&xs, &[m, n]), &yb, &zb], &[]);
        let (gy, gz) = (yb.download::<f32>().unwrap(), zb.download::<f32>().unwrap());
        for i in 0..m {
            let row = &xs[i * n..(i + 1) * n];
            let want: f64 = row.iter().map(|&v| v as f64).sum();
            let head: f64 = row.iter().take(BN as usize).map(|&v| 2.0 * v as f64).sum();
            assert!((gy[i] as f64 - want).abs() < 1e-4, "{m}x{n} row {i}: {} vs {want}", gy[i]);
            assert!((gz[i] as f64 - head).abs() < 1e-4, "{m}x{n} row {i}: {} vs {head}", gz[i]);
        }
    }
}

#[test]
fn inclusive_cumsum_along_rows_and_columns() {
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("cumsum").grid([ceil_div(&m, ROWS)]).threads(64);
    let x = k.input("X", F32, [&m, &n]);
    let (y, z) = (k.param("Y", F32, [&m, &n]), k.param("Z", F32, [&m, &n]));
    let t = k.shared_named("t", F32, [ROWS, COLS]);
    let u = k.shared_named("u", F32, [ROWS, COLS]);
    let bx = block_x();
    k.copy(x.tile([&bx * ROWS, Expr::from(0u32)]), &t);
    k.cumsum(&t, &u, 0);
    k.cumsum(&t, &t, 1);
    k.copy(&t, y.tile([&bx * ROWS, Expr::from(0u32)]));
    k.copy(&u, z.tile([&bx * ROWS, Expr::from(0u32)]));
    let tk = load_for(&k.build(), &profile());
    let (m, n) = (21usize, 50usize);
    let xs = values(m * n, 5);
    let (yb, zb) = (device().alloc(F32, &[m, n]).unwrap(), device().alloc(F32, &[m, n]).unwrap());
    run(&tk, &[&buf(&xs, &[m, n]), &yb, &zb], &[]);
    let (gy, gz) = (yb.download::<f32>().unwrap(), zb.download::<f32>().unwrap());
    for i in 0..m {
        for j in 0..n {
            let row: f64 = (0..=j).map(|q| xs[i * n + q] as f64).sum();
            let block0 = i - i % ROWS as usize;
            let col: f64 = (block0..=i).map(|r| xs[r * n + j] as f64).sum();
            assert!((gy[i * n + j] as f64 - row).abs() < 1e-4, "row scan ({i}, {j})");
            assert!((gz[i * n + j] as f64 - col).abs() < 1e-4, "column scan ({i}, {j})");
        }
    }
}

/// Thread index, if/else, bit operations, and the scalar arguments of all three types.
#[test]
fn thread_index_if_else_bits_and_scalar_arguments() {
    let n = sym("N");
    let k = Kernel::new("bits").grid([ceil_div(&n, 128u32)]).threads(128);
    let x = k.input("X", U32, [&n]);
    let (y, w) = (k.param("Y", U32, [&n]), k.param("W", U32, [&n]));
    let v = k.param("V", F32, [&n]);
    let off = k.scalar("off", U32);
    let scale = k.scalar("scale", F32);
    let bias = k.scalar("bias", I32);
    let bx = block_x();
    k.parallel([128], |k, [i]| {
        let g = &bx * 128u32 + &i;
        let a = x.at([g.clone()]);
        k.store(&y, [g.clone()], ((a.clone() << 3u32) ^ (a.clone() & 7u32)) | (a >> 30u32));
        k.store(&w, [g.clone()], thread_index());
        let shifted = x.at([&g + &off]).cast(F32) * &scale + bias.clone().cast(F32);
        k.store(&v, [g], shifted);
    });
    k.if_else(
        (&bx % 2u32).eq_(0u32),
        |k| k.parallel([1], |k, [_]| k.store(&w, [&bx * 128u32], 1000u32)),
        |k| k.parallel([1], |k, [_]| k.store(&w, [&bx * 128u32], 2000u32)),
    );
    let tk = load_for(&k.build(), &profile());
    let nn = 300usize;
    let xs: Vec<u32> = (0..nn as u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let bufs: Vec<Buffer> = (0..2).map(|_| device().alloc(U32, &[nn]).unwrap()).collect();
    let vb = device().alloc(F32, &[nn]).unwrap();
    let scalars = [Scalar::U32(5), Scalar::F32(0.5), Scalar::I32(-3)];
    run(&tk, &[&buf(&xs, &[nn]), &bufs[0], &bufs[1], &vb], &scalars);
    let (gy, gw, gv) = (
        bufs[0].download::<u32>().unwrap(),
        bufs[1].download::<u32>().unwrap(),
        vb.download::<f32>().unwrap(),
    );
    for i in 0..nn {
        let a = xs[i];
        assert_eq!(gy[i], ((a << 3) ^ (a & 7)) | (a >> 30), "bits at {i}");
        let want_w = match i % 128 {
            0 if (i / 128) % 2 == 0 => 1000,
            0 => 2000,
            t => t as u32,
        };
        assert_eq!(gw[i], want_w, "thread index / if-else at {i}");
        let src = if i + 5 < nn { xs[i + 5] as f32 } else { 0.0 };
        assert_eq!(gv[i], src * 0.5 - 3.0, "scalars at {i}");
    }
    // Wrong scalar arguments are launch errors.
    let mut s = Stream::new(device());
    let args = [&bufs[0], &bufs[0], &bufs[1], &vb];
    let e = tk.launch_with(&mut s, &args, &scalars[..2]).unwrap_err().to_string();
    assert!(e.contains("takes 3 scalar arguments (off: u32, scale: f32, bias: i32); got 2"), "{e}");
    let bad = [Scalar::U32(5), Scalar::I32(1), Scalar::I32(-3)];
    let e = tk.launch_with(&mut s, &args, &bad).unwrap_err().to_string();
    assert!(e.contains("scalar scale is f32; got I32(1)"), "{e}");
}

/// u8 and i8 parameters are read a byte at a time (sign-extended for i8), and an atomic
/// histogram counts values into bins.
#[test]
fn byte_loads_and_atomic_histogram() {
    let n = sym("N");
    let k = Kernel::new("bytes").grid([ceil_div(&n, 64u32)]).threads(64);
    let (q, s) = (k.input("Q", U8, [&n]), k.input("S", I8, [&n]));
    let y = k.param("Y", I32, [&n]);
    let h = k.param("H", U32, [16u32]);
    let bx = block_x();
    k.parallel([64], |k, [i]| {
        let g = &bx * 64u32 + &i;
        k.store(&y, [g.clone()], q.at([g.clone()]).cast(I32) * 1000i32 + s.at([g.clone()]));
        k.if_(g.clone().lt(&n), |k| k.atomic_add(&h, [q.at([g]) % 16u32], 1u32));
    });
    let tk = load_for(&k.build(), &profile());
    let nn = 203usize;
    let qs: Vec<u8> = (0..nn).map(|i| (i * 37 % 256) as u8).collect();
    let ss: Vec<i8> = (0..nn).map(|i| (i as i64 * 53 % 256 - 128) as i8).collect();
    let yb = device().alloc(I32, &[nn]).unwrap();
    let hb = device().alloc(U32, &[16]).unwrap();
    run(&tk, &[&buf(&qs, &[nn]), &buf(&ss, &[nn]), &yb, &hb], &[]);
    let gy = yb.download::<i32>().unwrap();
    for i in 0..nn {
        assert_eq!(gy[i], qs[i] as i32 * 1000 + ss[i] as i32, "byte loads at {i}");
    }
    let mut want = [0u32; 16];
    for &v in &qs {
        want[v as usize % 16] += 1;
    }
    assert_eq!(hb.download::<u32>().unwrap(), want);
}

/// Infinities survive as f16 and f32 constants.
#[test]
fn infinity_literals_in_f16_and_f32() {
    let k = Kernel::new("inf").threads(64);
    let (a, b) = (k.param("A", F16, [2u32]), k.param("B", F32, [2u32]));
    k.parallel([1], |k, [_]| {
        k.store(&a, [0u32], Expr::inf());
        k.store(&a, [1u32], Expr::neg_inf());
        k.store(&b, [0u32], Expr::inf());
        k.store(&b, [1u32], -Expr::inf());
    });
    let tk = load_for(&k.build(), &profile());
    let (ab, bb) = (device().alloc(F16, &[2]).unwrap(), device().alloc(F32, &[2]).unwrap());
    run(&tk, &[&ab, &bb], &[]);
    assert_eq!(ab.download::<f16>().unwrap(), [f16::INFINITY, f16::NEG_INFINITY]);
    assert_eq!(bb.download::<f32>().unwrap(), [f32::INFINITY, f32::NEG_INFINITY]);
}

/// One compiled kernel launched from several threads at once (`launch` takes `&self`).
#[test]
fn one_kernel_shared_across_threads() {
    let n = sym("N");
    let k = Kernel::new("scale").grid([ceil_div(&n, 64u32)]).threads(64);
    let (x, y) = (k.input("X", F32, [&n]), k.param("Y", F32, [&n]));
    let c = k.scalar("c", F32);
    let bx = block_x();
    k.parallel([64], |k, [i]| {
        let g = &bx * 64u32 + &i;
        k.store(&y, [g.clone()], x.at([g]) * &c);
    });
    let tk = load_for(&k.build(), &profile());
    std::thread::scope(|s| {
        for t in 0..4 {
            let tk = &tk;
            s.spawn(move || {
                let xs = values(97 + t, t as u64);
                let yb = device().alloc(F32, &[xs.len()]).unwrap();
                run(tk, &[&buf(&xs, &[xs.len()]), &yb], &[Scalar::F32(t as f32)]);
                let want: Vec<f32> = xs.iter().map(|v| v * t as f32).collect();
                assert_eq!(yb.download::<f32>().unwrap(), want);
            });
        }
    });
}

/// bf16, fp8 e4m3 and fp8 e5m2 parameters are decoded exactly to f32 on load: every fp8 bit
/// pattern, and bf16 values across the whole exponent range (no overflow through f16).
#[test]
fn bf16_and_fp8_loads_decode_exactly() {
    use tilecast_runtime::{F8E4M3, F8E5M2};
    let n = sym("N");
    let k = Kernel::new("decode").grid([ceil_div(&n, 64u32)]).threads(64);
    let (b, e4, e5) = (
        k.input("B", tilecast_lang::DType::BF16, [&n]),
        k.input("E4", tilecast_lang::DType::F8E4M3, [&n]),
        k.input("E5", tilecast_lang::DType::F8E5M2, [&n]),
    );
    let outs: Vec<_> = ["YB", "Y4", "Y5"].iter().map(|nm| k.param(nm, F32, [&n])).collect();
    let bx = block_x();
    k.parallel([64], |k, [i]| {
        let g = &bx * 64u32 + &i;
        k.store(&outs[0], [g.clone()], b.at([g.clone()]));
        k.store(&outs[1], [g.clone()], e4.at([g.clone()]));
        k.store(&outs[2], [g.clone()], e5.at([g]));
    });
    let tk = load_for(&k.build(), &profile());
    let nn = 256usize;
    let bf: Vec<half::bf16> =
        (0..nn).map(|i| half::bf16::from_bits((i as u16).wrapping_mul(257) ^ 0x1234)).collect();
    let f4: Vec<F8E4M3> = (0..nn).map(|i| F8E4M3(i as u8)).collect();
    let f5: Vec<F8E5M2> = (0..nn).map(|i| F8E5M2(i as u8)).collect();
    let ys: Vec<Buffer> = (0..3).map(|_| device().alloc(F32, &[nn]).unwrap()).collect();
    run(&tk, &[&buf(&bf, &[nn]), &buf(&f4, &[nn]), &buf(&f5, &[nn]), &ys[0], &ys[1], &ys[2]], &[]);
    let got: Vec<Vec<f32>> = ys.iter().map(|y| y.download::<f32>().unwrap()).collect();
    // References from the formats' definitions.
    let e4m3 = |b: u8| -> f32 {
        let (s, e, m) = ((b >> 7) as i32, ((b >> 3) & 15) as i32, (b & 7) as f32);
        if b & 127 == 127 {
            return f32::NAN;
        }
        let v = if e == 0 { m / 8.0 * 2f32.powi(-6) } else { (1.0 + m / 8.0) * 2f32.powi(e - 7) };
        if s == 1 { -v } else { v }
    };
    let e5m2 = |b: u8| -> f32 { f16::from_bits((b as u16) << 8).to_f32() };
    for i in 0..nn {
        let same = |g: f32, w: f32| g == w || (g.is_nan() && w.is_nan());
        assert!(
            same(got[0][i], bf[i].to_f32()),
            "bf16 {:#06x}: {} vs {}",
            bf[i].to_bits(),
            got[0][i],
            bf[i].to_f32()
        );
        assert!(
            same(got[1][i], e4m3(i as u8)),
            "e4m3 {i:#04x}: {} vs {}",
            got[1][i],
            e4m3(i as u8)
        );
        assert!(
            same(got[2][i], e5m2(i as u8)),
            "e5m2 {i:#04x}: {} vs {}",
            got[2][i],
            e5m2(i as u8)
        );
    }
}

/// f32 x f16 inputs accumulate in f32 (the SIMT path converts each operand as it reads it).
#[test]
fn mixed_f32_by_f16_gemm() {
    let (m, n, kd) = (sym("M"), sym("N"), sym("K"));
    let k = Kernel::new("mixed").grid([ceil_div(&n, 32u32), ceil_div(&m, 32u32)]).threads(64);
    let (a, b, c) =
        (k.input("A", F32, [&m, &kd]), k.input("B", F16, [&kd, &n]), k.param("C", F32, [&m, &n]));
    let (a_s, b_s) = (k.shared(F32, [32, 8]), k.shared(F16, [8, 32]));
    let acc = k.fragment(F32, [32, 32]);
    let (bx, by) = (block_x(), tilecast_lang::block_y());
    k.clear(&acc);
    k.pipelined(ceil_div(&kd, 8u32), 2, |k, ko| {
        k.copy(a.tile([&by * 32u32, &ko * 8u32]), &a_s);
        k.copy(b.tile([&ko * 8u32, &bx * 32u32]), &b_s);
        k.gemm(&a_s, &b_s, &acc);
    });
    k.copy(&acc, c.tile([&by * 32u32, &bx * 32u32]));
    let tk = load_for(&k.build(), &profile());
    let (mm, nn, kk) = (37usize, 45usize, 29usize);
    let av = values(mm * kk, 1);
    let bv: Vec<f16> = values(kk * nn, 2).iter().map(|&v| f16::from_f32(v)).collect();
    let cb = device().alloc(F32, &[mm, nn]).unwrap();
    run(&tk, &[&buf(&av, &[mm, kk]), &buf(&bv, &[kk, nn]), &cb], &[]);
    let got = cb.download::<f32>().unwrap();
    for i in 0..mm {
        for j in 0..nn {
            let want: f64 = (0..kk).map(|q| av[i * kk + q] as f64 * bv[q * nn + j].to_f64()).sum();
            assert!((got[i * nn + j] as f64 - want).abs() < 1e-4, "({i}, {j})");
        }
    }
}

/// `load` creates a trusted module and `load_checked` a checked one: the library keys modules
/// by source and trust, so the same kernel loaded both ways compiles twice, and each way
/// computes the same result.
#[test]
fn load_is_trusted_and_load_checked_is_not() {
    let n = sym("N");
    let k = Kernel::new("twice").grid([ceil_div(&n, 64u32)]).threads(64);
    let (x, y) = (k.input("X", F32, [&n]), k.param("Y", F32, [&n]));
    let bx = block_x();
    k.parallel([64], |k, [i]| {
        let g = &bx * 64u32 + &i;
        k.store(&y, [g.clone()], x.at([g]) * 2.0f32);
    });
    let compiled = compile(&k.build(), &profile()).unwrap();
    let library = ShaderLibrary::with_cache_dir(device(), None);
    let trusted = TileKernel::load(&library, &compiled).unwrap();
    assert_eq!(library.stats().modules_compiled, 1);
    let checked = TileKernel::load_checked(&library, &compiled).unwrap();
    assert_eq!(library.stats().modules_compiled, 2, "a checked module is a different module");
    TileKernel::load(&library, &compiled).unwrap();
    assert_eq!(library.stats().modules_compiled, 2, "trusted loads share one module");
    let xs = values(100, 3);
    for kernel in [&trusted, &checked] {
        let yb = device().alloc(F32, &[100]).unwrap();
        run(kernel, &[&buf(&xs, &[100]), &yb], &[]);
        assert_eq!(yb.download::<f32>().unwrap(), xs.iter().map(|v| v * 2.0).collect::<Vec<_>>());
    }
}

/// Max, min, sum of squares, |x| sum, a sum accumulated twice (`reduce_sum_into` after
/// `reduce_sum`), argmax and argmin of each row of a `rows x width` fragment loaded from X [M, N] (N <= width;
/// padding columns hold -inf, +inf or 0 so they never count), reduced in registers.
fn fragment_row_reductions(rows: u32, width: u32) -> Ir {
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("frag_rows").grid([ceil_div(&m, rows)]).threads(64);
    let x = k.input("X", F32, [&m, &n]);
    let names = ["MAX", "MIN", "SQ", "ABS", "TWICE"];
    let outs: Vec<_> = names.iter().map(|name| k.param(name, F32, [&m])).collect();
    let f = k.fragment_named("f", F32, [rows, width]);
    let g = k.fragment_named("g", F32, [rows, width]);
    let stats: Vec<_> = names.iter().map(|nm| k.shared_named(nm, F32, [rows])).collect();
    let row0 = block_x() * rows;
    k.copy(x.tile([row0.clone(), Expr::from(0u32)]), &f);
    pad_columns(&k, [rows, width], &n, &f, &[(&g, Expr::inf()), (&f, Expr::neg_inf())]);
    k.reduce_max(&f, &stats[0], 1);
    k.reduce_min(&g, &stats[1], 1);
    let (imax, imin) = (k.param("IMAX", U32, [&m]), k.param("IMIN", U32, [&m]));
    let (amax, amin) = (k.shared_named("amax", U32, [rows]), k.shared_named("amin", U32, [rows]));
    k.reduce_argmax(&f, &amax, 1);
    k.reduce_argmin(&g, &amin, 1);
    k.copy(&amax, imax.tile([row0.clone()]));
    k.copy(&amin, imin.tile([row0.clone()]));
    // Padding back to 0 for the sums.
    pad_columns(&k, [rows, width], &n, &f, &[(&f, Expr::from(0.0f32))]);
    k.reduce_sq_sum(&f, &stats[2], 1);
    k.reduce_abs_sum(&f, &stats[3], 1);
    k.reduce_sum(&f, &stats[4], 1);
    k.reduce_sum_into(&f, &stats[4], 1);
    for (s, o) in stats.iter().zip(&outs) {
        k.copy(s, o.tile([row0.clone()]));
    }
    k.build()
}

#[test]
fn fragment_reductions_in_registers() {
    let p = profile();
    // [1, 192] over 64 threads: every thread holds part of the one row (subgroup-first where
    // the profile has subgroups); [4, 96]: 32 threads per row, one partial per thread;
    // [1, 8320]: 130 slots per thread, past the unrolling limit, so the folds are loops.
    for (rows, width, lanes) in [(1u32, 192u32, 64u32), (4, 96, 32), (1, 8320, 64)] {
        for prof in [p.clone(), Profile { subgroups: false, ..p.clone() }] {
            let kernel = fragment_row_reductions(rows, width);
            let c = compile(&kernel, &prof).unwrap_or_else(|e| panic!("{e}"));
            let ir = c.ir_lowered();
            let unrolled = if rows * width / 64 <= 128 { " (unrolled)" } else { "" };
            assert!(
                ir.contains(&format!("in registers{unrolled}, {lanes} threads per row")),
                "{ir}"
            );
            assert!(!ir.contains("scratch"), "{ir}");
            let first = prof.subgroups && rows == 1;
            assert_eq!(ir.contains("one partial per subgroup"), first, "{ir}");
            let tk = load_for(&kernel, &prof);
            for (m, n) in [(5usize, width as usize - 3), (3, 1), (9, width as usize)] {
                let xs = values(m * n, (m * 31 + n) as u64);
                let bufs: Vec<Buffer> =
                    (0..5).map(|_| device().alloc(F32, &[m]).unwrap()).collect();
                let mut args = vec![buf(&xs, &[m, n])];
                args.extend(bufs);
                args.push(device().alloc(U32, &[m]).unwrap());
                args.push(device().alloc(U32, &[m]).unwrap());
                run(&tk, &args.iter().collect::<Vec<_>>(), &[]);
                let got: Vec<Vec<f32>> = args[1..6].iter().map(|b| b.download().unwrap()).collect();
                let gi: Vec<Vec<u32>> = args[6..].iter().map(|b| b.download().unwrap()).collect();
                for i in 0..m {
                    let row = &xs[i * n..(i + 1) * n];
                    let mx = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    let mn = row.iter().copied().fold(f32::INFINITY, f32::min);
                    let sq: f64 = row.iter().map(|&v| v as f64 * v as f64).sum();
                    let ab: f64 = row.iter().map(|&v| v.abs() as f64).sum();
                    let sum: f64 = row.iter().map(|&v| v as f64).sum();
                    let what =
                        format!("{rows}x{width} subgroups={} {m}x{n} row {i}", prof.subgroups);
                    assert_eq!(got[0][i], mx, "{what}: max");
                    assert_eq!(got[1][i], mn, "{what}: min");
                    // f32 sums: 1e-4 absolute plus 1e-6 relative (about 8 ulp; the 8320-wide
                    // rows sum to thousands).
                    let close = |g: f32, w: f64| (g as f64 - w).abs() < 1e-4 + 1e-6 * w.abs();
                    assert!(close(got[2][i], sq), "{what}: sq sum {} vs {sq}", got[2][i]);
                    assert!(close(got[3][i], ab), "{what}: abs sum {} vs {ab}", got[3][i]);
                    assert!(close(got[4][i], 2.0 * sum), "{what}: sum twice {}", got[4][i]);
                    let am = row.iter().position(|&v| v == mx).unwrap() as u32;
                    let an = row.iter().position(|&v| v == mn).unwrap() as u32;
                    assert_eq!((gi[0][i], gi[1][i]), (am, an), "{what}: argmax, argmin");
                }
            }
        }
    }
}

/// `Y[r, q] = 2 X[r, q] + X[r, (q + 1) % 64]` for X, Y [R, 64], with three threadgroups more
/// than rows: the row is uniform and the columns proven inside, so the guards pass gives the
/// loop a twin with no bounds tests (taken for real rows) beside the tested one (taken by the
/// extra threadgroups, whose accesses must all be dropped).
#[test]
fn loops_testing_only_uniform_coordinates_run_untested_inside_and_masked_outside() {
    let r = sym("R");
    let k = Kernel::new("guarded").grid([r.clone() + 3u32]).threads(32);
    let x = k.input("X", F32, [&r, &Expr::from(64u32)]);
    let y = k.param("Y", F32, [&r, &Expr::from(64u32)]);
    k.parallel([64], |k, [q]| {
        let next = (q.clone() + 1u32) % 64u32;
        let v = x.at([block_x(), q.clone()]) * 2.0f32 + x.at([block_x(), next]);
        k.store(&y, [block_x(), q.clone()], v);
    });
    let ir = k.build();
    let c = compile(&ir, &profile()).unwrap_or_else(|e| panic!("{e}"));
    let wgsl = c.wgsl().to_string();
    assert!(wgsl.contains("fn ldu_g0_X(") && wgsl.contains("fn stu_g1_Y("), "{wgsl}");
    assert!(wgsl.contains("fn ldk0_g0_X(") && wgsl.contains("fn stk0_g1_Y("), "{wgsl}");
    let k = load_for(&ir, &profile());
    for rows in [1usize, 5] {
        let xs = values(rows * 64, rows as u64);
        let (xb, yb) = (buf(&xs, &[rows, 64]), device().alloc(F32, &[rows + 1, 64]).unwrap());
        let yv = yb.slice_view(0, rows * 64).unwrap().reshape(&[rows, 64]).unwrap();
        run(&k, &[&xb, &yv], &[]);
        let got = yb.download::<f32>().unwrap();
        for i in 0..rows {
            for q in 0..64 {
                let want = 2.0 * xs[i * 64 + q] + xs[i * 64 + (q + 1) % 64];
                assert!((got[i * 64 + q] - want).abs() < 1e-6, "row {i} col {q}");
            }
        }
        assert!(got[rows * 64..].iter().all(|v| *v == 0.0), "nothing written past the rows");
    }
}

/// `sin`, `cos`, `pow` and `fma` elementwise over a ragged length, in f32 and f16, against f64
/// on the CPU: `Y0 = sin(X) + cos(2X)`, `Y1 = pow(|X| + 0.5, X)`, `Y2 = fma(X, -3, X2)`.
#[test]
fn sin_cos_pow_and_fma() {
    for dtype in [F32, F16] {
        let n = sym("N");
        let k = Kernel::new("trig").grid([ceil_div(&n, 64u32)]).threads(64);
        let x = k.input("X", dtype, [&n]);
        let x2 = k.input("X2", dtype, [&n]);
        let ys: Vec<_> = ["Y0", "Y1", "Y2"].iter().map(|name| k.param(name, dtype, [&n])).collect();
        let t = k.fragment_named("t", dtype, [64]);
        let u = k.fragment_named("u", dtype, [64]);
        let base = block_x() * 64u32;
        k.copy(x.tile([base.clone()]), &t);
        k.copy(x2.tile([base.clone()]), &u);
        let outs: Vec<_> =
            (0..3).map(|i| k.fragment_named(&format!("o{i}"), dtype, [64])).collect();
        k.parallel([64], |k, [i]| {
            let v = t.at([&i]);
            k.store(&outs[0], [&i], v.clone().sin() + (v.clone() * 2.0f32).cos());
            k.store(&outs[1], [&i], (v.clone().abs() + 0.5f32).pow(v.clone()));
            k.store(&outs[2], [&i], v.fma(-3.0f32, u.at([&i])));
        });
        for (o, y) in outs.iter().zip(&ys) {
            k.copy(o, y.tile([base.clone()]));
        }
        let kernel = load_for(&k.build(), &profile());
        let len = 1001;
        let (a, b) = (values(len, 3), values(len, 4));
        let stored = |v: &[f32]| -> Vec<f32> {
            if dtype == F16 {
                v.iter().map(|&x| f16::from_f32(x).to_f32()).collect()
            } else {
                v.to_vec()
            }
        };
        let (a, b) = (stored(&a), stored(&b));
        let upload = |v: &[f32]| {
            if dtype == F16 {
                buf(&v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>(), &[len])
            } else {
                buf(v, &[len])
            }
        };
        let outs: Vec<Buffer> = (0..3).map(|_| device().alloc(dtype, &[len]).unwrap()).collect();
        run(&kernel, &[&upload(&a), &upload(&b), &outs[0], &outs[1], &outs[2]], &[]);
        let want: [Box<dyn Fn(f64, f64) -> f64>; 3] = [
            Box::new(|x, _| x.sin() + (2.0 * x).cos()),
            Box::new(|x, _| (x.abs() + 0.5).powf(x)),
            Box::new(|x, y| x.mul_add(-3.0, y)),
        ];
        // f32: a few ulps of the device's sin/cos/pow; f16: half an ulp of the stored result.
        let tol = if dtype == F16 { 2e-3 } else { 2e-6 };
        for (o, f) in outs.iter().zip(&want) {
            let got: Vec<f32> = if dtype == F16 {
                o.download::<f16>().unwrap().iter().map(|v| v.to_f32()).collect()
            } else {
                o.download::<f32>().unwrap()
            };
            for i in 0..len {
                let w = f(a[i] as f64, b[i] as f64);
                let err = (got[i] as f64 - w).abs();
                assert!(
                    err <= tol * (1.0 + w.abs()),
                    "{dtype} [{i}] x={}: {} vs {w}",
                    a[i],
                    got[i]
                );
            }
        }
    }
}

/// A let names a value once per element: `e = exp(X / 2)` feeds two stores and a branch, and
/// the WGSL evaluates `exp` once.
#[test]
fn a_let_is_evaluated_once_and_read_by_what_follows() {
    let n = sym("N");
    let k = Kernel::new("lets").grid([ceil_div(&n, 64u32)]).threads(64);
    let x = k.input("X", F32, [&n]);
    let (y0, y1) = (k.param("Y0", F32, [&n]), k.param("Y1", F32, [&n]));
    let t = k.fragment_named("t", F32, [64]);
    let (o0, o1) = (k.fragment_named("o0", F32, [64]), k.fragment_named("o1", F32, [64]));
    let base = block_x() * 64u32;
    k.copy(x.tile([base.clone()]), &t);
    k.parallel([64], |k, [i]| {
        let e = k.let_named("e", (t.at([&i]) * 0.5f32).exp());
        k.store(&o0, [&i], e.clone() + 1.0f32);
        k.if_else(
            t.at([&i]).gt(0.0f32),
            |k| {
                let sq = k.let_named("sq", e.clone() * e.clone());
                k.store(&o1, [&i], sq);
            },
            |k| k.store(&o1, [&i], -e.clone()),
        );
    });
    k.copy(&o0, y0.tile([base.clone()]));
    k.copy(&o1, y1.tile([base]));
    let ir = k.build();
    let compiled = compile(&ir, &profile()).unwrap();
    let wgsl = compiled.wgsl();
    assert_eq!(wgsl.matches("exp(").count(), 1, "{wgsl}");
    assert!(wgsl.contains("let let0_e = exp("), "{wgsl}");
    assert!(compiled.ir_lowered().contains("let e = exp("), "{}", compiled.ir_lowered());
    let kernel = load_for(&ir, &profile());
    let len = 1001;
    let a = values(len, 9);
    let outs: Vec<Buffer> = (0..2).map(|_| device().alloc(F32, &[len]).unwrap()).collect();
    run(&kernel, &[&buf(&a, &[len]), &outs[0], &outs[1]], &[]);
    let (g0, g1) = (outs[0].download::<f32>().unwrap(), outs[1].download::<f32>().unwrap());
    for i in 0..len {
        let e = (a[i] as f64 * 0.5).exp();
        let w1 = if a[i] > 0.0 { e * e } else { -e };
        assert!(
            (g0[i] as f64 - (e + 1.0)).abs() <= 1e-5 * (e + 1.0),
            "[{i}] {} vs {}",
            g0[i],
            e + 1.0
        );
        assert!((g1[i] as f64 - w1).abs() <= 1e-5 * w1.abs().max(1.0), "[{i}] {} vs {w1}", g1[i]);
    }
}

/// A window placed at a page read from a block table: `Y[j * PAGE + r, d] = P[T[b, j], r, d]`
/// for pages of 16 rows in shuffled order (the last logical page short), through a fragment
/// window and, pipelined, through a staged shared tile.
#[test]
fn copy_origins_read_from_a_block_table() {
    const PAGE: u32 = 16;
    const D: u32 = 24;
    let (np, nb, rows) = (sym("NP"), sym("NB"), sym("R"));
    for staged in [false, true] {
        let k = Kernel::new("gather").grid([Expr::from(1u32)]).threads(64);
        let p = k.input("P", F32, [&np, &Expr::from(PAGE), &Expr::from(D)]);
        let t = k.input("T", U32, [Expr::from(1u32), nb.clone()]);
        let y = k.param("Y", F32, [rows.clone(), Expr::from(D)]);
        let page = |j: &Expr| t.at([Expr::from(0u32), j.clone()]);
        if staged {
            let s = k.shared_named("s", F32, [1, PAGE, D]);
            let s2 = k.shared_named("s2", F32, [1, PAGE, D]);
            let f = k.fragment_named("f", F32, [PAGE, D]);
            k.pipelined(nb.clone(), 2, |k, j| {
                k.copy(p.tile([page(&j), Expr::from(0u32), Expr::from(0u32)]), &s);
                k.copy(&s, &s2);
                k.parallel([PAGE, D], |k, [r, d]| {
                    k.store(&f, [&r, &d], s2.at([Expr::from(0u32), r.clone(), d.clone()]))
                });
                k.copy(&f, y.tile([&j * PAGE, Expr::from(0u32)]));
            });
        } else {
            let f = k.fragment_named("f", F32, [PAGE, D]);
            k.serial(nb.clone(), |k, j| {
                k.copy(p.window([page(&j), Expr::from(0u32), Expr::from(0u32)], [1, 2]), &f);
                k.copy(&f, y.tile([&j * PAGE, Expr::from(0u32)]));
            });
        }
        let kernel = load_for(&k.build(), &profile());
        let (pages, order) = (7usize, [5u32, 0, 6, 2, 3]);
        let len = (order.len() - 1) * PAGE as usize + 9; // the last page holds 9 rows
        let data = values(pages * (PAGE * D) as usize, 21);
        let out = device().alloc(F32, &[len, D as usize]).unwrap();
        let args = [
            &buf(&data, &[pages, PAGE as usize, D as usize]),
            &buf(&order, &[1, order.len()]),
            &out,
        ];
        run(&kernel, &args, &[]);
        let got = out.download::<f32>().unwrap();
        for row in 0..len {
            let (j, r) = (row / PAGE as usize, row % PAGE as usize);
            for d in 0..D as usize {
                let want = data[(order[j] as usize * PAGE as usize + r) * D as usize + d];
                assert_eq!(got[row * D as usize + d], want, "staged {staged}: row {row}, d {d}");
            }
        }
    }
}

/// A loop whose trip count is read from memory (a sequence's length in a ragged batch), around
/// copies to threadgroup memory and their barriers: `Y[b] = sum of X[b, 0..Len[b]]`.
#[test]
fn a_loop_bound_read_from_memory_stays_uniform() {
    let (b, l) = (sym("B"), sym("L"));
    let k = Kernel::new("ragged_sum").grid([b.clone()]).threads(64);
    let x = k.input("X", F32, [&b, &l]);
    let lens = k.input("Len", U32, [&b]);
    let y = k.param("Y", F32, [&b]);
    let s = k.shared_named("s", F32, [1, 64]);
    let acc = k.shared_named("acc", F32, [1, 64]);
    let total = k.shared_named("total", F32, [1]);
    let len = lens.at([block_x()]);
    k.clear(&acc);
    k.serial(ceil_div(len.clone(), 64u32), |k, c| {
        k.copy(x.tile([block_x(), &c * 64u32]), &s);
        k.parallel([1, 64], |k, [i, j]| {
            let inside = (&c * 64u32 + &j).lt(len.clone());
            let v = select(inside, s.at([&i, &j]), 0.0f32);
            k.store(&acc, [&i, &j], acc.at([&i, &j]) + v);
        });
    });
    k.reduce_sum(&acc, &total, 1);
    k.copy(&total, y.tile([block_x()]));
    let ir = k.build();
    let compiled = compile(&ir, &profile()).unwrap();
    assert!(compiled.wgsl().contains("workgroupUniformLoad("), "{}", compiled.wgsl());
    assert!(compiled.ir_lowered().contains("workgroupUniformLoad]"), "{}", compiled.ir_lowered());
    let metal = compile(&ir, &Profile::named("metal-apple7").unwrap()).unwrap();
    tilecast_lang::back::emit::msl(&metal).unwrap();
    let kernel = load_for(&ir, &profile());
    let (rows, width) = (5usize, 300usize);
    let lengths = [300u32, 0, 1, 129, 64];
    let data = values(rows * width, 17);
    let out = device().alloc(F32, &[rows]).unwrap();
    run(&kernel, &[&buf(&data, &[rows, width]), &buf(&lengths, &[rows]), &out], &[]);
    let got = out.download::<f32>().unwrap();
    for r in 0..rows {
        let want: f64 = data[r * width..][..lengths[r] as usize].iter().map(|&v| v as f64).sum();
        assert!((got[r] as f64 - want).abs() < 1e-4, "row {r}: {} vs {want}", got[r]);
    }
}

/// A fragment as a gemm operand: `C = exp(X) V`, the probabilities computed in registers and
/// fed straight to the gemm (the compiler stages them), over K steps, on ragged shapes.
#[test]
fn a_fragment_feeds_a_gemm() {
    const BM: u32 = 16;
    const BN: u32 = 32;
    const BK: u32 = 16;
    let (m, n, kd) = (sym("M"), sym("N"), sym("K"));
    let k = Kernel::new("p_v").grid([ceil_div(&n, BN), ceil_div(&m, BM)]).threads(64);
    let x = k.input("X", F32, [&m, &kd]);
    let v = k.input("V", F32, [&kd, &n]);
    let c = k.param("C", F32, [&m, &n]);
    let p = k.fragment_named("p", F32, [BM, BK]);
    let v_s = k.shared_named("v_s", F32, [BK, BN]);
    let acc = k.fragment_named("acc", F32, [BM, BN]);
    let (bx, by) = (block_x(), tilecast_lang::block_y());
    k.clear(&acc);
    k.serial(ceil_div(&kd, BK), |k, ko| {
        k.copy(x.tile([&by * BM, &ko * BK]), &p);
        k.copy(v.tile([&ko * BK, &bx * BN]), &v_s);
        k.parallel([BM, BK], |k, [i, j]| {
            let inside = (&by * BM + &i).lt(&m).and((&ko * BK + &j).lt(&kd));
            k.store(&p, [&i, &j], select(inside, p.at([&i, &j]).exp(), 0.0f32));
        });
        k.gemm(&p, &v_s, &acc);
    });
    k.copy(&acc, c.tile([&by * BM, &bx * BN]));
    let ir = k.build();
    let lowered = compile(&ir, &profile()).unwrap().ir_lowered().to_string();
    assert!(lowered.contains("p_scratch"), "the compiler stages the operand: {lowered}");
    let kernel = load_for(&ir, &profile());
    let (mm, nn, kk) = (37usize, 29usize, 45usize);
    let (a, b) = (values(mm * kk, 5), values(kk * nn, 6));
    let out = device().alloc(F32, &[mm, nn]).unwrap();
    run(&kernel, &[&buf(&a, &[mm, kk]), &buf(&b, &[kk, nn]), &out], &[]);
    let got = out.download::<f32>().unwrap();
    for i in 0..mm {
        for j in 0..nn {
            let w: f64 = (0..kk).map(|q| (a[i * kk + q] as f64).exp() * b[q * nn + j] as f64).sum();
            let g = got[i * nn + j] as f64;
            assert!((g - w).abs() <= 1e-4 * (1.0 + w.abs()), "[{i}, {j}] {g} vs {w}");
        }
    }
}

/// Row statistics in fragments: the logsumexp of each row of X [M, N] by an online pass over
/// blocks of columns, the running maximum and sum kept in [rows] fragments laid out like the
/// block's rows (read in the loops over the block from registers), reduced into them, updated
/// in loops over the rows, and written out (to a parameter by each row's first thread, and
/// through a shared tile). Ragged 37x45 with 8x16 blocks.
#[test]
fn row_statistics_live_in_fragments() {
    const BM: u32 = 8;
    const BN: u32 = 16;
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("row_lse").grid([ceil_div(&m, BM)]).threads(32);
    let x = k.input("X", F32, [&m, &n]);
    let lse = k.param("LSE", F32, [&m]);
    let sums = k.param("SUM", F32, [&m]);
    let f = k.fragment_named("f", F32, [BM, BN]);
    let (most, sum) = (k.fragment_named("most", F32, [BM]), k.fragment_named("sum", F32, [BM]));
    let (bmax, bsum) = (k.fragment_named("bmax", F32, [BM]), k.fragment_named("bsum", F32, [BM]));
    let sum_s = k.shared_named("sum_s", F32, [BM]);
    let r0 = block_x() * BM;
    k.fill(&most, Expr::neg_inf());
    k.clear(&sum);
    k.serial(ceil_div(&n, BN), |k, j| {
        k.copy(x.tile([r0.clone(), &j * BN]), &f);
        k.parallel([BM, BN], |k, [r, c]| {
            let inside = (&j * BN + &c).lt(&n);
            k.store(&f, [&r, &c], select(inside, f.at([&r, &c]), Expr::neg_inf()));
        });
        k.reduce_max(&f, &bmax, 1);
        k.parallel([BM], |k, [r]| {
            let new = k.let_named("new", most.at([&r]).max(bmax.at([&r])));
            let alpha =
                select(new.clone().eq_(Expr::neg_inf()), 1.0f32, (most.at([&r]) - &new).exp());
            k.store(&sum, [&r], sum.at([&r]) * alpha);
            k.store(&most, [&r], new);
        });
        k.parallel([BM, BN], |k, [r, c]| {
            let e = select(
                most.at([&r]).eq_(Expr::neg_inf()),
                0.0f32,
                (f.at([&r, &c]) - most.at([&r])).exp(),
            );
            k.store(&f, [&r, &c], e);
        });
        k.reduce_sum(&f, &bsum, 1);
        k.parallel([BM], |k, [r]| k.store(&sum, [&r], sum.at([&r]) + bsum.at([&r])));
    });
    k.parallel([BM], |k, [r]| {
        k.store(&lse, [r0.clone() + &r], most.at([&r]) + sum.at([&r]).log());
    });
    k.copy(&sum, &sum_s);
    k.copy(&sum_s, sums.tile([r0.clone()]));
    let ir = k.build();
    let c = compile(&ir, &profile()).unwrap_or_else(|e| panic!("{e}"));
    let lowered = c.ir_lowered();
    for name in ["most", "sum", "bmax", "bsum"] {
        let line = lowered.lines().find(|l| l.contains(&format!("fragment {name}:"))).unwrap();
        assert!(line.contains("layout rows of f"), "{line}");
    }
    assert!(!lowered.contains("f_scratch"), "f is reduced in registers: {lowered}");
    for name in Profile::NAMES {
        let p = Profile::named(name).unwrap();
        compile(&ir, &p).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let kernel = load_for(&ir, &profile());
    let (mm, nn) = (37usize, 45usize);
    let xs = values(mm * nn, 23);
    let (out, out2) = (device().alloc(F32, &[mm]).unwrap(), device().alloc(F32, &[mm]).unwrap());
    run(&kernel, &[&buf(&xs, &[mm, nn]), &out, &out2], &[]);
    let (got, got_sum) = (out.download::<f32>().unwrap(), out2.download::<f32>().unwrap());
    for r in 0..mm {
        let row = &xs[r * nn..(r + 1) * nn];
        let mx = row.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
        let s: f64 = row.iter().map(|&v| (v as f64 - mx).exp()).sum();
        let want = mx + s.ln();
        assert!((got[r] as f64 - want).abs() < 1e-5, "row {r}: {} vs {want}", got[r]);
        assert!((got_sum[r] as f64 - s).abs() < 1e-4 * s, "row {r}: sum {} vs {s}", got_sum[r]);
    }
}

/// Bitcasts: a u32 word's bits as f32 and i32 and back, and the f16 in a word's low 16 bits
/// (a GGUF block's scale inside a packed load), against the CPU's reading of the same bits.
#[test]
fn bitcasts_read_the_same_bits() {
    let n = sym("N");
    let k = Kernel::new("bits").grid([ceil_div(&n, 64u32)]).threads(64);
    let w = k.input("W", U32, [&n]);
    let as_f32 = k.param("F", F32, [&n]);
    let half = k.param("HALF", F32, [&n]);
    let round = k.param("BACK", U32, [&n]);
    let neg = k.param("NEG", tilecast_lang::DType::I32, [&n]);
    k.parallel([64], |k, [i]| {
        let at = [block_x() * 64u32 + &i];
        let word = w.at(at.clone());
        k.store(&as_f32, at.clone(), word.clone().bitcast(F32));
        k.store(&half, at.clone(), word.clone().bitcast(tilecast_lang::DType::F16).cast(F32));
        k.store(&round, at.clone(), word.clone().bitcast(F32).bitcast(U32));
        let i32_bits = (word.bitcast(F32) * -1.0f32).bitcast(tilecast_lang::DType::I32);
        k.store(&neg, at, i32_bits);
    });
    let ir = k.build();
    for name in Profile::NAMES {
        compile(&ir, &Profile::named(name).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let c = compile(&ir, &profile()).unwrap();
    assert!(c.wgsl().contains("unpack2x16float("), "{}", c.wgsl());
    let kernel = load_for(&ir, &profile());
    // Halves 1.5, -2, 0.099976, 65504 in the low bits (high bits other halves), and f32 patterns.
    let words: Vec<u32> = vec![
        0x3E00 | (0x4000 << 16),
        0xC000,
        0x2E66 | (0x3C00 << 16),
        0x7BFF,
        1.0f32.to_bits(),
        (-3.25f32).to_bits(),
        0x0001_0000,
    ];
    let len = words.len();
    let outs: Vec<Buffer> = vec![
        device().alloc(F32, &[len]).unwrap(),
        device().alloc(F32, &[len]).unwrap(),
        device().alloc(U32, &[len]).unwrap(),
        device().alloc(tilecast_lang::DType::I32, &[len]).unwrap(),
    ];
    let mut args = vec![buf(&words, &[len])];
    args.extend(outs);
    run(&kernel, &args.iter().collect::<Vec<_>>(), &[]);
    let f: Vec<f32> = args[1].download().unwrap();
    let h: Vec<f32> = args[2].download().unwrap();
    let back: Vec<u32> = args[3].download().unwrap();
    let neg: Vec<i32> = args[4].download().unwrap();
    for (i, &w) in words.iter().enumerate() {
        assert_eq!(f[i].to_bits(), w, "word {i}");
        assert_eq!(h[i], half::f16::from_bits(w as u16).to_f32(), "word {i}");
        assert_eq!(back[i], w, "word {i}");
        assert_eq!(neg[i], (-f32::from_bits(w)).to_bits() as i32, "word {i}");
    }
}

/// Widening reductions: rows of f16 values summed into f32, from a fragment and from a shared
/// tile. Rows of 96 values of 1000 (an f16 sum would overflow at 65504) and of 1 plus 95 values
/// of 2^-11 (each lost to an f16 accumulator's rounding) come out exact.
#[test]
fn reductions_widen_f16_to_f32() {
    let rows = sym("R");
    let k = Kernel::new("widen").grid([ceil_div(&rows, 4u32)]).threads(64);
    let x = k.input("X", F16, [rows.clone(), Expr::from(96u32)]);
    let (y1, y2) = (k.param("Y1", F32, [&rows]), k.param("Y2", F32, [&rows]));
    let f = k.fragment_named("f", F16, [4, 96]);
    let s = k.shared_named("s", F16, [4, 96]);
    let (sum1, sum2) = (k.shared_named("sum1", F32, [4]), k.shared_named("sum2", F32, [4]));
    let r0 = block_x() * 4u32;
    k.copy(x.tile([r0.clone(), Expr::from(0u32)]), &f);
    k.copy(x.tile([r0.clone(), Expr::from(0u32)]), &s);
    k.reduce_sum(&f, &sum1, 1);
    k.reduce_sum(&s, &sum2, 1);
    k.copy(&sum1, y1.tile([r0.clone()]));
    k.copy(&sum2, y2.tile([r0]));
    let ir = k.build();
    for name in Profile::NAMES {
        compile(&ir, &Profile::named(name).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let lowered = compile(&ir, &profile()).unwrap().ir_lowered().to_string();
    assert!(lowered.contains("fragment f_f32: f32[4, 96]"), "{lowered}");
    let kernel = load_for(&ir, &profile());
    let n = 5usize;
    let mut xs = vec![half::f16::from_f32(0.0); n * 96];
    for c in 0..96 {
        xs[c] = half::f16::from_f32(1000.0);
        xs[96 + c] = half::f16::from_f32(if c == 0 { 1.0 } else { 1.0 / 2048.0 });
        xs[2 * 96 + c] = half::f16::from_f32(-(c as f32));
    }
    let (o1, o2) = (device().alloc(F32, &[n]).unwrap(), device().alloc(F32, &[n]).unwrap());
    run(&kernel, &[&buf(&xs, &[n, 96]), &o1, &o2], &[]);
    for out in [o1, o2] {
        let got: Vec<f32> = out.download().unwrap();
        assert_eq!(got[0], 96000.0);
        assert_eq!(got[1], 1.0 + 95.0 / 2048.0);
        assert_eq!(got[2], -(95.0 * 96.0 / 2.0));
        assert_eq!((got[3], got[4]), (0.0, 0.0));
    }
}

/// A decode-shaped copy (`basic::row_dots`): rows of f16 loaded as vectors, dotted with two
/// shared query rows by reductions that stay in each row's lanes, on 37 rows (a ragged last
/// block), against f64 on the CPU; the listing shows both choices.
#[test]
fn row_dots_in_lanes_from_vector_loads() {
    let p = profile();
    let ir = tilecast_kernels::basic::row_dots();
    let c = compile(&ir, &p).unwrap();
    let listing = c.ir_lowered().to_string();
    assert!(listing.contains("rows copied from global memory load as vectors"), "{listing}");
    if p.subgroups && p.simd_width_min >= 8 {
        assert!(listing.contains("lanes per row exchanging within a subgroup"), "{listing}");
    }
    let (m, d) = (37usize, 128usize);
    let x: Vec<f16> = values(m * d, 3).into_iter().map(f16::from_f32).collect();
    let q: Vec<f16> = values(2 * d, 4).into_iter().map(f16::from_f32).collect();
    let (xb, qb, yb) = (buf(&x, &[m, d]), buf(&q, &[2, d]), buf(&vec![0f32; m * d], &[m, d]));
    run(&load_for(&ir, &p), &[&xb, &qb, &yb], &[]);
    let y: Vec<f32> = yb.download().unwrap();
    for i in 0..m {
        let dot =
            |r: usize| (0..d).map(|c| x[i * d + c].to_f64() * q[r * d + c].to_f64()).sum::<f64>();
        let best = dot(0).max(dot(1));
        for c in 0..d {
            let want = x[i * d + c].to_f64() * best;
            let got = y[i * d + c] as f64;
            assert!((got - want).abs() < 1e-4 * (1.0 + want.abs()), "[{i}, {c}]: {got} vs {want}");
        }
    }
}

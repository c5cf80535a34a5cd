//! Fragments with runs of columns against parameters of higher rank: windows spanning a
//! parameter's last axes (loaded and saved one vector per run, masked at ragged edges) and
//! reads of a column's xor partner taken from a run's vectors; windows along named axes that
//! are not the last ones (a head's keys in a token-major cache). Run on the local device
//! (lavapipe in CI) against a CPU reference; `H` is a multiple of no window size.

use tilecast_kernels::TileKernel;
use tilecast_lang::DType::F32;
use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{Expr, Kernel, Profile, block_x, block_y, ceil_div, compile, sym};
use tilecast_runtime::{Buffer, Device, ShaderLibrary, Stream, SyncType};

/// Rows (heads) per window and the head size: 4x16 over 8 threads is 2x4 per thread, one run.
const ROWS: u32 = 4;
const D: u32 = 16;

/// `Y[b, h, c] = X[b, h, c] + 10 X[b, h, c ^ 1] + 100 X[b, h, c ^ 6]` and `Z = 2 X`, one window
/// of `ROWS` heads per threadgroup: the first through a parallel loop reading the partners, the
/// second through a fragment window loaded from and saved to the 3-D parameters.
fn partners() -> Ir {
    let (b, h) = (sym("B"), sym("H"));
    let k = Kernel::new("partners").grid([b.clone(), ceil_div(&h, ROWS)]).threads(8);
    let x = k.input("X", F32, [&b, &h, &Expr::from(D)]);
    let y = k.param("Y", F32, [&b, &h, &Expr::from(D)]);
    let z = k.param("Z", F32, [&b, &h, &Expr::from(D)]);
    let (bb, h0) = (block_x(), block_y() * ROWS);
    let f = k.fragment_named("f", F32, [ROWS, D]);
    let g = k.fragment_named("g", F32, [ROWS, D]);
    let at = |r: &Expr, c: Expr| [bb.clone(), h0.clone() + r, c];
    k.parallel([ROWS, D], |k, [r, c]| {
        let v = x.at(at(&r, c.clone()))
            + x.at(at(&r, c.clone() ^ 1u32)) * 10.0f32
            + x.at(at(&r, c.clone() ^ 6u32)) * 100.0f32;
        k.store(&f, [&r, &c], v);
    });
    k.copy(&f, y.window([bb.clone(), h0.clone(), Expr::from(0u32)], [1, 2]));
    k.copy(x.window([bb.clone(), h0.clone(), Expr::from(0u32)], [1, 2]), &g);
    k.parallel([ROWS, D], |k, [r, c]| k.store(&g, [&r, &c], g.at([&r, &c]) * 2.0f32));
    k.copy(&g, z.window([bb, h0, Expr::from(0u32)], [1, 2]));
    k.build()
}

#[test]
fn windows_of_higher_rank_parameters_and_xor_partner_reads() {
    let device = Device::new().expect("a GPU or lavapipe");
    let profile = Profile::from_capabilities(device.capabilities());
    let kernel = partners();
    let compiled = compile(&kernel, &profile).unwrap_or_else(|e| panic!("{e}"));
    let ir = compiled.ir_lowered();
    assert!(ir.contains("columns in runs of 4"), "{ir}");
    assert!(
        ir.contains("X, X (column xor 1), X (column xor 6) read as one vector per run"),
        "{ir}"
    );
    let tk = TileKernel::load(&ShaderLibrary::with_cache_dir(&device, None), &compiled).unwrap();
    // H = 7: the second window of each batch is 3 heads inside, 1 outside.
    let (nb, nh, d) = (3usize, 7usize, D as usize);
    let xs: Vec<f32> = (0..nb * nh * d).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
    let shape = [nb, nh, d];
    let x = device.buffer_from_slice(&xs, &shape).unwrap();
    // Sentinels: anything written past H would show in no element (the buffers are exact),
    // and any element left unwritten keeps -1.
    let y = device.buffer_from_slice(&vec![-1.0f32; xs.len()], &shape).unwrap();
    let z = device.buffer_from_slice(&vec![-1.0f32; xs.len()], &shape).unwrap();
    let mut s = Stream::new(&device);
    tk.launch(&mut s, &[&x, &y, &z] as &[&Buffer]).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let (gy, gz): (Vec<f32>, Vec<f32>) = (y.download().unwrap(), z.download().unwrap());
    for row in 0..nb * nh {
        for c in 0..d {
            let at = |c: usize| xs[row * d + c];
            let want = at(c) + 10.0 * at(c ^ 1) + 100.0 * at(c ^ 6);
            assert_eq!(gy[row * d + c], want, "Y row {row} column {c}");
            assert_eq!(gz[row * d + c], 2.0 * at(c), "Z row {row} column {c}");
        }
    }
}

/// One head's `[BT, D]` keys of a token-major `K[T, H, D]` (axes 0 and 2, strided by `H * D`)
/// into a threadgroup tile, then `Y = K Wᵀ` through a gemm on that tile and the window of `Y`
/// `[T, H, N]` along the same axes; T and H are multiples of no block.
#[test]
fn windows_along_named_axes_feed_a_gemm() {
    const BT: u32 = 8;
    const N: u32 = 8;
    let (t, h) = (sym("T"), sym("H"));
    let k = Kernel::new("token_major").grid([ceil_div(&t, BT), h.clone()]).threads(32);
    let kk = k.input("K", F32, [&t, &h, &Expr::from(D)]);
    let w = k.input("W", F32, [Expr::from(N), Expr::from(D)]);
    let y = k.param("Y", F32, [&t, &h, &Expr::from(N)]);
    let k_s = k.shared_named("k_s", F32, [BT, D]);
    let w_s = k.shared_named("w_s", F32, [N, D]);
    let acc = k.fragment_named("acc", F32, [BT, N]);
    let (t0, hh, zero) = (block_x() * BT, block_y(), || Expr::from(0u32));
    k.copy(kk.window([t0.clone(), hh.clone(), zero()], [0, 2]), &k_s);
    k.copy(w.tile([zero(), zero()]), &w_s);
    k.clear(&acc);
    k.gemm_t(&k_s, &w_s, &acc, false, true);
    k.copy(&acc, y.window([t0, hh, zero()], [0, 2]));
    let kernel = k.build();
    let device = Device::new().expect("a GPU or lavapipe");
    let profile = Profile::from_capabilities(device.capabilities());
    let compiled = compile(&kernel, &profile).unwrap_or_else(|e| panic!("{e}"));
    assert!(compiled.ir_lowered().contains("; axes 0, 2]"), "{}", compiled.ir_lowered());
    let tk = TileKernel::load(&ShaderLibrary::with_cache_dir(&device, None), &compiled).unwrap();
    let (nt, nh, d, n) = (13usize, 3usize, D as usize, N as usize);
    let ks: Vec<f32> = (0..nt * nh * d).map(|i| ((i * 29) % 53) as f32 / 8.0 - 3.0).collect();
    let ws: Vec<f32> = (0..n * d).map(|i| ((i * 11) % 17) as f32 / 4.0 - 2.0).collect();
    let kb = device.buffer_from_slice(&ks, &[nt, nh, d]).unwrap();
    let wb = device.buffer_from_slice(&ws, &[n, d]).unwrap();
    let yb = device.buffer_from_slice(&vec![-1.0f32; nt * nh * n], &[nt, nh, n]).unwrap();
    let mut s = Stream::new(&device);
    tk.launch(&mut s, &[&kb, &wb, &yb] as &[&Buffer]).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let got: Vec<f32> = yb.download().unwrap();
    for ti in 0..nt {
        for hi in 0..nh {
            for j in 0..n {
                let want: f64 =
                    (0..d).map(|c| ks[(ti * nh + hi) * d + c] as f64 * ws[j * d + c] as f64).sum();
                let g = got[(ti * nh + hi) * n + j] as f64;
                assert!((g - want).abs() < 1e-4, "Y[{ti}, {hi}, {j}] = {g}, want {want}");
            }
        }
    }
}

/// A window of lower rank than its parameter with no axes named is refused, naming both ranks
/// and the fix; named axes must be one per tile axis, inside the rank and increasing.
#[test]
fn unnamed_or_bad_window_axes_are_errors() {
    let make = |axes: Option<[usize; 2]>| {
        let (t, h) = (sym("T"), sym("H"));
        let k = Kernel::new("bad_window").grid([Expr::from(1u32)]).threads(32);
        let kk = k.input("K", F32, [&t, &h, &Expr::from(D)]);
        let y = k.param("Y", F32, [Expr::from(8u32), Expr::from(D)]);
        let k_s = k.shared_named("k_s", F32, [8, D]);
        let origin = [Expr::from(0u32), Expr::from(1u32), Expr::from(0u32)];
        match axes {
            Some(a) => k.copy(kk.window(origin, a), &k_s),
            None => k.copy(kk.tile(origin), &k_s),
        }
        k.copy(&k_s, y.tile([Expr::from(0u32), Expr::from(0u32)]));
        compile(&k.build(), &Profile::named("vulkan-lavapipe").unwrap())
            .err()
            .map(|e| e.to_string())
    };
    let unnamed = make(None).expect("refused");
    assert!(unnamed.contains("the [8, 16] tile has rank 2 and K has rank 3"), "{unnamed}");
    assert!(unnamed.contains("K.window(origin, axes)"), "{unnamed}");
    assert!(make(Some([2, 0])).expect("refused").contains("must increase"));
    assert!(make(Some([0, 3])).expect("refused").contains("past K's rank 3"));
    assert!(make(Some([0, 2])).is_none(), "{:?}", make(Some([0, 2])));
}

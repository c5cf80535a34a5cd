//! Fragments with runs of columns against parameters of higher rank: windows spanning a
//! parameter's last axes (loaded and saved one vector per run, masked at ragged edges) and
//! reads of a column's xor partner taken from a run's vectors. Run on the local device
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
    k.copy(&f, y.tile([bb.clone(), h0.clone(), Expr::from(0u32)]));
    k.copy(x.tile([bb.clone(), h0.clone(), Expr::from(0u32)]), &g);
    k.parallel([ROWS, D], |k, [r, c]| k.store(&g, [&r, &c], g.at([&r, &c]) * 2.0f32));
    k.copy(&g, z.tile([bb, h0, Expr::from(0u32)]));
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

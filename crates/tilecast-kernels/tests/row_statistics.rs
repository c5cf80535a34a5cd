//! Row statistics read in loops over fragments of one row count but different widths (an
//! online softmax's rescale factor and running sum, read over the scores and over the output),
//! run on the local device (lavapipe in CI) against a CPU reference on ragged shapes.

mod common;

use common::{buf, load, max_err, run, values};
use tilecast_lang::DType::F32;
use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{Expr, Kernel, block_x, ceil_div, select, sym};

/// Rows of a block of queries and columns of a block of scores.
const BR: u32 = 32;
const BC: u32 = 32;
/// Output width.
const D: u32 = 64;

/// `O = softmax(S) V` row by row, with an online softmax over blocks of `BC` columns of S
/// [M, T]: the scores `s` are [BR, BC], the output `o` is [BR, D]. The running maximum `mx`
/// is read over `s`; the rescale factor `alpha` and the running sum `l` over `o`.
fn online_softmax_pv(threads: u32) -> Ir {
    let (m, t) = (sym("M"), sym("T"));
    let k = Kernel::new("online_softmax_pv").grid([ceil_div(&m, BR)]).threads(threads);
    let scores = k.input("S", F32, [&m, &t]);
    let v = k.input("V", F32, [&t, &Expr::from(D)]);
    let out = k.param("O", F32, [&m, &Expr::from(D)]);
    let s = k.fragment_named("s", F32, [BR, BC]);
    let o = k.fragment_named("o", F32, [BR, D]);
    let [mx, l, alpha, blk] = ["mx", "l", "alpha", "blk"].map(|n| k.fragment_named(n, F32, [BR]));
    let (p_s, v_s) = (k.shared_named("p_s", F32, [BR, BC]), k.shared_named("v_s", F32, [BC, D]));
    let row0 = block_x() * BR;
    k.fill(&mx, Expr::neg_inf());
    k.clear(&l);
    k.clear(&o);
    k.serial(ceil_div(&t, BC), |k, j| {
        k.copy(scores.tile([row0.clone(), &j * BC]), &s);
        k.parallel([BR, BC], |k, [r, c]| {
            let inside = (&j * BC + &c).lt(&t);
            k.store(&s, [&r, &c], select(inside, s.at([&r, &c]), Expr::neg_inf()));
        });
        k.reduce_max(&s, &blk, 1);
        k.parallel([BR], |k, [r]| {
            let new = mx.at([&r]).max(blk.at([&r]));
            k.store(&alpha, [&r], (mx.at([&r]) - new.clone()).exp());
            k.store(&mx, [&r], new);
        });
        k.parallel([BR, BC], |k, [r, c]| {
            k.store(&s, [&r, &c], (s.at([&r, &c]) - mx.at([&r])).exp());
        });
        k.reduce_sum(&s, &blk, 1);
        k.parallel([BR], |k, [r]| k.store(&l, [&r], l.at([&r]) * alpha.at([&r]) + blk.at([&r])));
        k.parallel([BR, D], |k, [r, c]| k.store(&o, [&r, &c], o.at([&r, &c]) * alpha.at([&r])));
        k.copy(&s, &p_s);
        k.copy(v.tile([&j * BC, Expr::from(0u32)]), &v_s);
        k.gemm(&p_s, &v_s, &o);
    });
    k.parallel([BR, D], |k, [r, c]| k.store(&o, [&r, &c], o.at([&r, &c]) / l.at([&r])));
    k.copy(&o, out.tile([row0, Expr::from(0u32)]));
    k.build()
}

/// softmax(S) V on the CPU, in f64.
fn reference(s: &[f32], v: &[f32], m: usize, t: usize) -> Vec<f32> {
    let d = D as usize;
    let mut o = vec![0.0f32; m * d];
    for r in 0..m {
        let row = &s[r * t..(r + 1) * t];
        let top = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) as f64;
        let e: Vec<f64> = row.iter().map(|&x| (x as f64 - top).exp()).collect();
        let sum: f64 = e.iter().sum();
        for c in 0..d {
            let acc: f64 = (0..t).map(|i| e[i] * v[i * d + c] as f64).sum();
            o[r * d + c] = (acc / sum) as f32;
        }
    }
    o
}

fn check(threads: u32) {
    let (m, t) = (45usize, 77usize);
    let s: Vec<f32> = values(m * t, 3).iter().map(|x| x * 4.0).collect();
    let v = values(t * D as usize, 4);
    let mut kernel = load(&online_softmax_pv(threads));
    let (sb, vb) = (buf(&s, &[m, t]), buf(&v, &[t, D as usize]));
    let ob = buf(&vec![0.0; m * D as usize], &[m, D as usize]);
    run(&mut kernel, &[&sb, &vb, &ob]);
    let got = ob.download::<f32>().unwrap();
    let err = max_err(&got, &reference(&s, &v, m, t));
    assert!(err < 1e-4, "{threads} threads: max error {err}");
}

/// With 128 threads the scores [32, 32] and the output [32, 64] would get register blocks of
/// different heights; the statistics follow the scores, so the output takes their rows.
#[test]
fn a_statistic_read_over_fragments_of_different_widths_128_threads() {
    check(128);
}

/// With 64 threads the two layouts line up on their own.
#[test]
fn a_statistic_read_over_fragments_of_different_widths_64_threads() {
    check(64);
}

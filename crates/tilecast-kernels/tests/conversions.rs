//! Float-to-integer conversions are defined for every value (saturating to the target's
//! range, NaN to 0: Rust's `as`, except that u32 and i32 saturate at the largest f32 inside
//! their range, as WGSL does), integers to u8 and i8 keep their low 8 bits, and
//! `round` rounds halves to even — run on the local device (lavapipe in CI) against Rust's
//! own conversions.

mod common;

use common::{buf, load, run, upload};
use tilecast_lang::DType::{F32, I8, I32, U8, U32};
use tilecast_lang::{DType, Expr, Kernel, block_x, ceil_div, sym};

/// Inputs that are out of every integer range, fractional, halves, or NaN.
const INPUTS: [f32; 16] = [
    -3.7,
    1e10,
    -1e10,
    f32::NAN,
    2.5,
    -2.5,
    3.5,
    0.49999997,
    127.6,
    128.0,
    -128.9,
    -129.0,
    255.5,
    300.0,
    4_294_967_296.0,
    2_147_483_648.0,
];

/// An output of [`per_element`]: its name, type, and value from the input element.
type Output = (&'static str, DType, fn(Expr) -> Expr);

/// A kernel storing, for each element `x` of X [N] (of `input` type), `outputs[o].2(x)` into
/// output `o`.
fn per_element(name: &str, input: DType, outputs: &[Output]) -> tilecast_lang::ir::Kernel {
    let n = sym("N");
    let k = Kernel::new(name).grid([ceil_div(&n, 64u32)]).threads(64);
    let x = k.input("X", input, [&n]);
    let params: Vec<_> = outputs.iter().map(|(o, d, _)| k.param(o, *d, [&n])).collect();
    k.parallel([64u32], |k, [j]| {
        let i = block_x() * 64u32 + j;
        k.if_(i.clone().lt(&n), |k| {
            for (p, (_, _, f)) in params.iter().zip(outputs) {
                k.store(p, [&i], f(x.at([&i])));
            }
        });
    });
    k.build()
}

#[test]
fn float_conversions_saturate_and_nan_gives_zero() {
    let kernel = per_element(
        "conversions",
        F32,
        &[
            ("U8o", U8, |v| v.cast(U8)),
            ("I8o", I8, |v| v.cast(I8)),
            ("U32o", U32, |v| v.cast(U32)),
            ("I32o", I32, |v| v.cast(I32)),
            ("R", F32, |v| v.round()),
            // A quantizer: round(x / d) stored as i8.
            ("Q", I8, |v| (v / 3.0f32).round().cast(I8)),
        ],
    );
    let mut kernel = load(&kernel);
    let len = INPUTS.len();
    let xb = buf(&INPUTS, &[len]);
    let outs = [
        upload(&[0u8; 16], &[len]),
        upload(&[0i8; 16], &[len]),
        upload(&[0u32; 16], &[len]),
        upload(&[0i32; 16], &[len]),
        upload(&[0f32; 16], &[len]),
        upload(&[0i8; 16], &[len]),
    ];
    run(&mut kernel, &[&xb, &outs[0], &outs[1], &outs[2], &outs[3], &outs[4], &outs[5]]);
    let want_u8: Vec<u8> = INPUTS.iter().map(|&v| v as u8).collect();
    let want_i8: Vec<i8> = INPUTS.iter().map(|&v| v as i8).collect();
    let want_u32: Vec<u32> = INPUTS.iter().map(|&v| (v as u32).min(4_294_967_040)).collect();
    let want_i32: Vec<i32> = INPUTS.iter().map(|&v| (v as i32).min(2_147_483_520)).collect();
    let want_r: Vec<f32> = INPUTS.iter().map(|v| v.round_ties_even()).collect();
    let want_q: Vec<i8> = INPUTS.iter().map(|&v| (v / 3.0).round_ties_even() as i8).collect();
    assert_eq!(outs[0].download::<u8>().unwrap(), want_u8, "u8 of {INPUTS:?}");
    assert_eq!(outs[1].download::<i8>().unwrap(), want_i8, "i8 of {INPUTS:?}");
    assert_eq!(outs[2].download::<u32>().unwrap(), want_u32, "u32 of {INPUTS:?}");
    assert_eq!(outs[3].download::<i32>().unwrap(), want_i32, "i32 of {INPUTS:?}");
    let got_r = outs[4].download::<f32>().unwrap();
    for ((g, w), v) in got_r.iter().zip(&want_r).zip(&INPUTS) {
        assert!(g == w || (g.is_nan() && w.is_nan()), "round({v}) gave {g}, not {w}");
    }
    assert_eq!(outs[5].download::<i8>().unwrap(), want_q, "round(x / 3) as i8 of {INPUTS:?}");
}

#[test]
fn integers_to_u8_and_i8_keep_their_low_bits() {
    let kernel = per_element(
        "int_narrowing",
        I32,
        &[("U8o", U8, |v| v.cast(U8)), ("I8o", I8, |v| v.cast(I8))],
    );
    let mut kernel = load(&kernel);
    let ints: [i32; 7] = [-1, 255, 256, 383, -129, 128, i32::MIN + 5];
    let xb = upload(&ints, &[ints.len()]);
    let (ub, ib) = (upload(&[0u8; 7], &[7]), upload(&[0i8; 7], &[7]));
    run(&mut kernel, &[&xb, &ub, &ib]);
    assert_eq!(ub.download::<u8>().unwrap(), ints.iter().map(|&v| v as u8).collect::<Vec<_>>());
    assert_eq!(ib.download::<i8>().unwrap(), ints.iter().map(|&v| v as i8).collect::<Vec<_>>());
}

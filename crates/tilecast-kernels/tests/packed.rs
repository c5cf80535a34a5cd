//! Packed data in the tile language: words of u8/i8 parameters, bit fields, bitcasts, u8/i8
//! tiles in every scope and stores to u8/i8 parameters, each run on the local device
//! (lavapipe in CI) against the CPU on lengths that are multiples of no word or tile size.

mod common;

use common::{device, load_everywhere, run_with, upload};
use tilecast_lang::DType::{F32, I8, I32, U8, U32};
use tilecast_lang::{Expr, Kernel, Profile, Scalar, block_x, ceil_div, compile, select, sym};

fn profile() -> Profile {
    Profile::from_capabilities(device().capabilities())
}

/// Seeded bytes.
fn bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut s = seed.wrapping_mul(2654435761).wrapping_add(12345);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 11) as u8
        })
        .collect()
}

/// The little-endian word `i` of `b`, zero past its end.
fn word_of(b: &[u8], i: usize) -> u32 {
    (0..4).map(|j| (*b.get(4 * i + j).unwrap_or(&0) as u32) << (8 * j)).sum()
}

/// Words of a 2-D u8 parameter (row-major over all its bytes), read past its end, and the
/// fields taken from them: nibble 5, byte 2, the signed byte 3 and bits 3..14.
#[test]
fn words_of_byte_parameters_and_their_fields() {
    let (r, c, n) = (sym("R"), sym("C"), sym("N"));
    let k = Kernel::new("words").grid([ceil_div(&n, 64u32)]).threads(64);
    let w = k.input("W", U8, [&r, &c]);
    let outs: Vec<_> =
        ["WORD", "NIB", "BYTE", "BITS"].iter().map(|name| k.param(name, U32, [&n])).collect();
    let signed = k.param("SBYTE", I32, [&n]);
    // Converted to f32 through the exact small-integer path (no integer conversion).
    let (fu, fs) = (k.param("FBITS", F32, [&n]), k.param("FSBYTE", F32, [&n]));
    k.parallel([64], |k, [i]| {
        let at = [block_x() * 64u32 + &i];
        let word = w.word(&at[0]);
        k.store(&outs[0], at.clone(), word.clone());
        k.store(&outs[1], at.clone(), word.clone().nibble(5));
        k.store(&outs[2], at.clone(), word.clone().byte(2));
        k.store(&outs[3], at.clone(), word.clone().bits(3, 11));
        k.store(&fu, at.clone(), word.clone().bits(9, 23).cast(F32));
        k.store(&fs, at.clone(), word.clone().signed_bits(24, 8).cast(F32));
        k.store(&signed, at, word.signed_bits(24, 8));
    });
    let ir = k.build();
    let kernel = load_everywhere(&ir);
    let c = compile(&ir, &profile()).unwrap();
    assert!(c.wgsl().contains("1258291200u") && c.wgsl().contains("1262485504i"), "{}", c.wgsl());
    // 7 x 11 = 77 bytes: the last word holds one byte; words 20 and 21 lie past the end.
    let (rows, cols) = (7, 11);
    let data = bytes(rows * cols, 3);
    let words = 22;
    let mut args = vec![upload(&data, &[rows, cols])];
    args.extend((0..4).map(|_| device().alloc(U32, &[words]).unwrap()));
    args.push(device().alloc(I32, &[words]).unwrap());
    args.extend((0..2).map(|_| device().alloc(F32, &[words]).unwrap()));
    run_with(&kernel, &args.iter().collect::<Vec<_>>(), &[]);
    let (f_bits, f_sbyte): (Vec<f32>, Vec<f32>) =
        (args[6].download().unwrap(), args[7].download().unwrap());
    let got: Vec<Vec<u32>> = (1..5).map(|i| args[i].download().unwrap()).collect();
    let sb: Vec<i32> = args[5].download().unwrap();
    for i in 0..words {
        let want = word_of(&data, i);
        assert_eq!(got[0][i], want, "word {i}");
        assert_eq!(got[1][i], (want >> 20) & 15, "nibble of word {i}");
        assert_eq!(got[2][i], (want >> 16) & 255, "byte of word {i}");
        assert_eq!(got[3][i], (want >> 3) & 0x7ff, "bits of word {i}");
        assert_eq!(sb[i], (want >> 24) as u8 as i8 as i32, "signed byte of word {i}");
        assert_eq!(f_bits[i], (want >> 9) as f32, "f32 of bits 9.. of word {i}");
        assert_eq!(f_sbyte[i], (want >> 24) as u8 as i8 as f32, "f32 of signed byte of word {i}");
    }
}

#[test]
fn words_are_read_from_byte_parameters_only() {
    let k = Kernel::new("bad_word").grid([1u32]).threads(32);
    let w = k.input("W", F32, [64u32]);
    let y = k.param("Y", U32, [64u32]);
    k.parallel([32], |k, [i]| k.store(&y, [&i], w.word(&i)));
    let err = compile(&k.build(), &profile()).unwrap_err().to_string();
    assert!(err.contains("reads a word of W, a f32 parameter"), "{err}");
}

/// A GPU quantizer: `Q[i] = round(X[i] * scale)` stored to an i8 parameter and its low byte
/// to a u8 one, element by element (neighbours in a word written by other threads), on a
/// length that leaves a part-filled last word. Values past i8's range wrap as C casts do.
#[test]
fn stores_to_byte_parameters() {
    let n = sym("N");
    let k = Kernel::new("quantize_i8").grid([ceil_div(&n, 64u32)]).threads(64);
    let x = k.input("X", F32, [&n]);
    let scale = k.scalar("scale", F32);
    let q = k.param("Q", I8, [&n]);
    let u = k.param("U", U8, [&n]);
    k.parallel([64], |k, [i]| {
        let at = [block_x() * 64u32 + &i];
        let s = x.at(at.clone()) * scale.clone();
        let v = (s.clone() + select(s.lt(0.0f32), -0.5f32, 0.5f32)).cast(I32);
        k.store(&q, at.clone(), v.clone());
        k.store(&u, at, v.bitcast(U32));
    });
    let kernel = load_everywhere(&k.build());
    let len = 203;
    let xs: Vec<f32> = (0..len).map(|i| (i as f32 - 100.0) * 0.37).collect();
    let (qb, ub) = (device().alloc(I8, &[len]).unwrap(), device().alloc(U8, &[len]).unwrap());
    run_with(&kernel, &[&upload(&xs, &[len]), &qb, &ub], &[Scalar::F32(3.1)]);
    let (gq, gu): (Vec<i8>, Vec<u8>) = (qb.download().unwrap(), ub.download().unwrap());
    for (i, &x) in xs.iter().enumerate() {
        let s = x * 3.1f32;
        let want = (s + if s < 0.0 { -0.5 } else { 0.5 }) as i32;
        assert_eq!(gq[i], want as i8, "Q[{i}] from {x}");
        assert_eq!(gu[i], want as u8, "U[{i}] from {x}");
    }
}

/// i8 elements in shared, fragment and local tiles: a window of `W[R, C]` copied into a shared
/// and a fragment tile, `3 w` computed from both, kept in an i8 local tile (so wrapped to 8
/// bits), stored as f32 and through a u8 fragment tile to a u8 parameter. R and C are
/// multiples of neither the 4x64 tile nor a word.
#[test]
fn byte_tiles_in_every_scope() {
    let (r, c) = (sym("R"), sym("C"));
    let k = Kernel::new("byte_tiles").grid([ceil_div(&r, 4u32)]).threads(64);
    let w = k.input("W", I8, [&r, &c]);
    let s = k.param("S", F32, [&r, &c]);
    let b = k.param("B", U8, [&r, &c]);
    let sh = k.shared_named("sh", I8, [4, 64]);
    let fr = k.fragment_named("fr", I8, [4, 64]);
    let fo = k.fragment_named("fo", U8, [4, 64]);
    let row0 = block_x() * 4u32;
    k.copy(w.tile([row0.clone(), Expr::from(0u32)]), &sh);
    k.copy(w.tile([row0.clone(), Expr::from(0u32)]), &fr);
    k.parallel([4, 64], |k, [i, j]| {
        let v = fr.at([&i, &j]) * 2 + sh.at([&i, &j]);
        k.store(&s, [row0.clone() + &i, j.clone()], v.clone().cast(F32));
        k.store(&fo, [&i, &j], v.bitcast(U32));
    });
    k.copy(&fo, b.tile([row0, Expr::from(0u32)]));
    let kernel = load_everywhere(&k.build());
    let (rows, cols) = (9, 50);
    let data: Vec<i8> = bytes(rows * cols, 7).into_iter().map(|x| x as i8).collect();
    let (sb, bb) =
        (device().alloc(F32, &[rows, cols]).unwrap(), device().alloc(U8, &[rows, cols]).unwrap());
    run_with(&kernel, &[&upload(&data, &[rows, cols]), &sb, &bb], &[]);
    let (gs, gb): (Vec<f32>, Vec<u8>) = (sb.download().unwrap(), bb.download().unwrap());
    for (i, &x) in data.iter().enumerate() {
        let want = 3 * x as i32;
        assert_eq!(gs[i], want as f32, "S[{i}] from {x}");
        assert_eq!(gb[i], want as u8, "B[{i}] from {x}");
    }
}

/// Lets reading the four lanes of an aligned run (`X[4i + c]`) share one vector load: the
/// kernel's WGSL loads each run once through the vector view, and the values are the lanes'.
#[test]
fn lets_of_one_run_share_a_vector_load() {
    let n = 4 * 37u32;
    let k = Kernel::new("runs").grid([1u32]).threads(64);
    let x = k.input("X", tilecast_lang::DType::F16, [n]);
    let y = k.param("Y", F32, [n]);
    k.parallel([n / 4], |k, [i]| {
        let lanes: Vec<Expr> =
            (0..4u32).map(|c| k.let_named("x", x.at([i.clone() * 4u32 + c]).cast(F32))).collect();
        for (c, v) in lanes.into_iter().enumerate() {
            k.store(&y, [i.clone() * 4u32 + c as u32], v * (c as f32 + 1.0));
        }
    });
    let ir = k.build();
    let c = compile(&ir, &profile()).unwrap();
    assert_eq!(
        c.wgsl().matches("ldvu_g0_X(").count() + c.wgsl().matches("ldv_g0_X(").count(),
        3,
        "{}",
        c.wgsl()
    );
    let kernel = load_everywhere(&ir);
    let xs: Vec<half::f16> = (0..n).map(|v| half::f16::from_f32(v as f32 * 0.25 - 3.0)).collect();
    let yb = device().alloc(F32, &[n as usize]).unwrap();
    run_with(&kernel, &[&upload(&xs, &[n as usize]), &yb], &[]);
    let got: Vec<f32> = yb.download().unwrap();
    for (j, x) in xs.iter().enumerate() {
        assert_eq!(got[j], x.to_f32() * ((j % 4) as f32 + 1.0), "Y[{j}]");
    }
}

/// Four words of a u32 parameter read by lets of one aligned run are one 128-bit load, and
/// their nibbles come out right: MLX-style packed levels, 32 per run.
#[test]
fn four_words_of_a_run_are_one_wide_load() {
    let runs = 19u32;
    let k = Kernel::new("wide_words").grid([1u32]).threads(32);
    let w = k.input("W", U32, [4 * runs]);
    let y = k.param("Y", U32, [32 * runs]);
    k.parallel([runs], |k, [i]| {
        let words: Vec<Expr> =
            (0..4u32).map(|c| k.let_named("w", w.at([i.clone() * 4u32 + c]))).collect();
        for (c, word) in words.iter().enumerate() {
            for n in 0..8u32 {
                let at = i.clone() * 32u32 + (8 * c as u32 + n);
                k.store(&y, [at], word.clone().nibble(n));
            }
        }
    });
    let ir = k.build();
    let c = compile(&ir, &profile()).unwrap();
    assert!(c.wgsl().contains("array<vec4<u32>>"), "{}", c.wgsl());
    let kernel = load_everywhere(&ir);
    let data: Vec<u32> = bytes(16 * runs as usize, 11)
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let yb = device().alloc(U32, &[32 * runs as usize]).unwrap();
    run_with(&kernel, &[&upload(&data, &[data.len()]), &yb], &[]);
    let got: Vec<u32> = yb.download().unwrap();
    for (j, g) in got.iter().enumerate() {
        assert_eq!(*g, (data[j / 8] >> (4 * (j % 8))) & 15, "level {j}");
    }
}

/// Window copies of u32 and i32 parameters into shared tiles go through a `vec4` view (a
/// 128-bit load per four words): ragged windows masked at the parameter's bounds, and windows
/// proven inside a constant shape with no test at all, through both back ends.
#[test]
fn window_copies_of_words_are_vector_loads() {
    use tilecast_kernels::{CodePath, LoadAs, TileKernel};
    use tilecast_lang::block_y;
    use tilecast_runtime::ShaderLibrary;
    // [rows, cols] words, copied in [8, 16] windows and written back as `w * 3 + 1`.
    let kernel = |rows: u32, cols: u32, dtype| {
        let k = Kernel::new("word_windows").grid([cols.div_ceil(16), rows.div_ceil(8)]).threads(32);
        let w = k.input("W", dtype, [rows, cols]);
        let y = k.param("Y", dtype, [rows, cols]);
        let s = k.shared_named("s", dtype, [8, 16]);
        k.copy(w.tile([block_y() * 8u32, block_x() * 16u32]), &s);
        k.parallel([8, 16], |k, [i, j]| {
            let at = [block_y() * 8u32 + &i, block_x() * 16u32 + &j];
            // Outside the parameter, the store is dropped.
            k.store(&y, at, s.at([&i, &j]) * 3u32 + 1u32);
        });
        k.build()
    };
    let library = ShaderLibrary::with_cache_dir(device(), None);
    let mut paths = vec![CodePath::Wgsl];
    if device().capabilities().features.native_spirv {
        paths.push(CodePath::NativeSpirv);
    }
    for (rows, cols, proven) in [(13u32, 44u32, false), (16, 32, true)] {
        for dtype in [U32, I32] {
            let ir = kernel(rows, cols, dtype);
            load_everywhere(&ir);
            let c = compile(&ir, &profile()).unwrap();
            let listing = c.ir_lowered().to_string();
            assert!(listing.contains("vec4 view at binding"), "{listing}");
            assert_eq!(listing.contains("masked at the parameter's bounds"), !proven, "{listing}");
            let data: Vec<u32> = bytes(4 * (rows * cols) as usize, rows)
                .chunks(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            for &path in &paths {
                let k = TileKernel::load_as(&library, &c, LoadAs::Code(path)).unwrap();
                let shape = [rows as usize, cols as usize];
                let y = device().alloc(dtype, &shape).unwrap();
                let got: Vec<u32> = if dtype == U32 {
                    run_with(&k, &[&upload(&data, &shape), &y], &[]);
                    y.download().unwrap()
                } else {
                    let signed: Vec<i32> = data.iter().map(|v| *v as i32).collect();
                    run_with(&k, &[&upload(&signed, &shape), &y], &[]);
                    y.download::<i32>().unwrap().into_iter().map(|v| v as u32).collect()
                };
                let want: Vec<u32> =
                    data.iter().map(|v| v.wrapping_mul(3).wrapping_add(1)).collect();
                assert_eq!(got, want, "{rows}x{cols} {dtype:?} through {path:?}");
            }
        }
    }
}

/// `dot4_i8` of seeded words (every byte value among them, signs mixed) against the CPU,
/// through WGSL and through the native module where the device takes one; both modules declare
/// what the instruction needs.
#[test]
fn dot_products_of_packed_signed_bytes() {
    use tilecast_kernels::{CodePath, LoadAs, TileKernel};
    use tilecast_runtime::ShaderLibrary;
    let n = sym("N");
    let k = Kernel::new("dot4").grid([ceil_div(&n, 64u32)]).threads(64);
    let (a, b) = (k.input("A", U32, [&n]), k.input("B", U32, [&n]));
    let out = k.param("D", I32, [&n]);
    k.parallel([64], |k, [i]| {
        let at = [block_x() * 64u32 + &i];
        k.store(&out, at.clone(), a.at(at.clone()).dot4_i8(b.at(at)));
    });
    let ir = k.build();
    load_everywhere(&ir);
    let c = compile(&ir, &profile()).unwrap();
    assert!(c.wgsl().contains("dot4I8Packed("), "{}", c.wgsl());
    let n = 333;
    let words = |seed| -> Vec<u32> { (0..n).map(|i| word_of(&bytes(4 * n, seed), i)).collect() };
    let (wa, wb) = (words(5), words(9));
    let args = [upload(&wa, &[n]), upload(&wb, &[n]), device().alloc(I32, &[n]).unwrap()];
    let library = ShaderLibrary::with_cache_dir(device(), None);
    let mut paths = vec![CodePath::Wgsl];
    if device().capabilities().features.native_spirv {
        paths.push(CodePath::NativeSpirv);
    }
    for path in paths {
        let kernel = TileKernel::load_as(&library, &c, LoadAs::Code(path)).unwrap();
        run_with(&kernel, &args.iter().collect::<Vec<_>>(), &[]);
        let got: Vec<i32> = args[2].download().unwrap();
        for i in 0..n {
            let want: i32 = (0..4)
                .map(|j| {
                    (wa[i] >> (8 * j)) as u8 as i8 as i32 * ((wb[i] >> (8 * j)) as u8 as i8 as i32)
                })
                .sum();
            assert_eq!(got[i], want, "{path:?}: word {i} ({:#010x} . {:#010x})", wa[i], wb[i]);
        }
    }
}

//! Rust twins of the kernels written in Python (`crates/tilecast-python/examples/`): each is
//! built here with the Rust builder, compiled for `vulkan-lavapipe`, and its WGSL compared
//! with `crates/tilecast-python/tests/twins/<name>.wgsl`. The Python tests compare the
//! example's WGSL with the same file, so the two front ends make byte-identical kernels.
//! `TILECAST_BLESS=1` rewrites the files.

use std::path::PathBuf;

use tilecast_lang::DType::{F16, F32, U8};
use tilecast_lang::{
    Expr, Kernel, Profile, block_x, block_y, block_z, ceil_div, compile, select, sym,
};

fn check(name: &str, k: Kernel) {
    let wgsl = compile(&k.build(), &Profile::named("vulkan-lavapipe").unwrap())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .wgsl()
        .to_string();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tilecast-python/tests/twins")
        .join(format!("{name}.wgsl"));
    if std::env::var_os("TILECAST_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &wgsl).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (TILECAST_BLESS=1 writes it)", path.display()));
    assert!(wgsl == want, "{name}: the Rust twin's WGSL differs from {}", path.display());
}

#[test]
fn gemm() {
    let (bm, bn, bk) = (64u32, 64u32, 32u32);
    let (m, kd, n) = (sym("M"), sym("K"), sym("N"));
    let k = Kernel::new("gemm").grid([ceil_div(&n, bn), ceil_div(&m, bm)]).threads(128);
    let a = k.input("A", F16, [&m, &kd]);
    let b = k.input("B", F16, [&kd, &n]);
    let c = k.param("C", F32, [&m, &n]);
    let a_s = k.shared_named("A_shared", F16, [bm, bk]);
    let b_s = k.shared_named("B_shared", F16, [bk, bn]);
    let acc = k.fragment_named("acc", F32, [bm, bn]);
    let (bx, by) = (block_x(), block_y());
    k.clear(&acc);
    k.pipelined(ceil_div(&kd, bk), 3, |k, ko| {
        k.copy(a.tile([&by * bm, &ko * bk]), &a_s);
        k.copy(b.tile([&ko * bk, &bx * bn]), &b_s);
        k.gemm(&a_s, &b_s, &acc);
    });
    k.copy(&acc, c.tile([&by * bm, &bx * bn]));
    check("gemm", k);
}

#[test]
fn softmax() {
    let (br, bc) = (4u32, 128u32);
    let (r, c) = (sym("R"), sym("C"));
    let k = Kernel::new("softmax").grid([ceil_div(&r, br)]).threads(128);
    let x = k.input("X", F32, [&r, &c]);
    let y = k.param("Y", F32, [&r, &c]);
    let chunk = k.fragment_named("chunk", F32, [br, bc]);
    let row_max = k.shared_named("row_max", F32, [br]);
    let row_sum = k.shared_named("row_sum", F32, [br]);
    let row0 = block_x() * br;
    let chunks = ceil_div(&c, bc);
    k.fill(&row_max, Expr::neg_inf());
    k.clear(&row_sum);
    k.serial(&chunks, |k, ci| {
        k.copy(x.tile([row0.clone(), &ci * bc]), &chunk);
        k.parallel([br, bc], |k, [i, j]| {
            let v = select((&ci * bc + &j).lt(&c), chunk.at([&i, &j]), Expr::neg_inf());
            k.store(&chunk, [&i, &j], v);
        });
        k.reduce_max_into(&chunk, &row_max, 1);
    });
    k.serial(&chunks, |k, ci| {
        k.copy(x.tile([row0.clone(), &ci * bc]), &chunk);
        k.parallel([br, bc], |k, [i, j]| {
            let e = (chunk.at([&i, &j]) - row_max.at([&i])).exp();
            k.store(&chunk, [&i, &j], select((&ci * bc + &j).lt(&c), e, 0.0f32));
        });
        k.reduce_sum_into(&chunk, &row_sum, 1);
    });
    k.serial(&chunks, |k, ci| {
        k.copy(x.tile([row0.clone(), &ci * bc]), &chunk);
        k.parallel([br, bc], |k, [i, j]| {
            let v = (chunk.at([&i, &j]) - row_max.at([&i])).exp() / row_sum.at([&i]);
            k.store(&chunk, [&i, &j], v);
        });
        k.copy(&chunk, y.tile([row0.clone(), &ci * bc]));
    });
    check("softmax", k);
}

#[test]
fn rms_norm() {
    let (br, bc) = (4u32, 128u32);
    let (r, c) = (sym("R"), sym("C"));
    let k = Kernel::new("rms_norm").grid([ceil_div(&r, br)]).threads(128);
    let x = k.input("X", F32, [&r, &c]);
    let w = k.input("W", F32, [&c]);
    let y = k.param("Y", F32, [&r, &c]);
    let eps = k.scalar("eps", F32);
    let chunk = k.fragment_named("chunk", F32, [br, bc]);
    let sum_sq = k.shared_named("sum_sq", F32, [br]);
    let row0 = block_x() * br;
    k.clear(&sum_sq);
    k.serial(ceil_div(&c, bc), |k, ci| {
        k.copy(x.tile([row0.clone(), &ci * bc]), &chunk);
        k.reduce_sq_sum_into(&chunk, &sum_sq, 1);
    });
    k.serial(ceil_div(&c, bc), |k, ci| {
        k.copy(x.tile([row0.clone(), &ci * bc]), &chunk);
        k.parallel([br, bc], |k, [i, j]| {
            let inv = (sum_sq.at([&i]) / c.clone().cast(F32) + &eps).rsqrt();
            let v = chunk.at([&i, &j]) * inv * w.at([&ci * bc + &j]);
            k.store(&chunk, [&i, &j], v);
        });
        k.copy(&chunk, y.tile([row0.clone(), &ci * bc]));
    });
    check("rms_norm", k);
}

#[test]
fn flash_attention() {
    let (d, bm, bn) = (64u32, 32u32, 32u32);
    let (b, h, s, kv, t) = (sym("B"), sym("H"), sym("S"), sym("KV"), sym("T"));
    let dd = Expr::from(d);
    let k =
        Kernel::new("flash_attention").grid([ceil_div(&s, bm), h.clone(), b.clone()]).threads(128);
    let q = k.input("Q", F16, [&b, &h, &s, &dd]);
    let kk = k.input("K", F16, [&b, &kv, &t, &dd]);
    let v = k.input("V", F16, [&b, &kv, &t, &dd]);
    let o = k.param("O", F16, [&b, &h, &s, &dd]);
    let scale = k.scalar("scale", F32);
    let q_s = k.shared_named("q_s", F16, [bm, d]);
    let k_s = k.shared_named("k_s", F16, [bn, d]);
    let v_s = k.shared_named("v_s", F16, [bn, d]);
    let scores = k.fragment_named("scores", F32, [bm, bn]);
    let probs = k.fragment_named("probs", F16, [bm, bn]);
    let acc = k.fragment_named("acc", F32, [bm, d]);
    let row_max = k.fragment_named("row_max", F32, [bm]);
    let row_sum = k.fragment_named("row_sum", F32, [bm]);
    let block_max = k.fragment_named("block_max", F32, [bm]);
    let block_sum = k.fragment_named("block_sum", F32, [bm]);
    let alpha = k.fragment_named("alpha", F32, [bm]);
    let rescale = k.shared_named("rescale", F32, [bm]);

    let (q0, hq, bb) = (block_x() * bm, block_y(), block_z());
    let kvh = &hq / (h.clone() / &kv);
    let zero = || Expr::from(0u32);
    k.copy(q.window([bb.clone(), hq.clone(), q0.clone(), zero()], [2, 3]), &q_s);
    k.parallel([bm, d], |k, [r, c]| {
        let x = (q_s.at([&r, &c]).cast(F32) * (scale.clone() * std::f64::consts::LOG2_E)).cast(F16);
        k.store(&q_s, [&r, &c], x);
    });
    k.clear(&acc);
    k.fill(&row_max, Expr::neg_inf());
    k.clear(&row_sum);
    let seen = q0.clone() + bm + &t;
    let blocks = ceil_div(select(seen.clone().gt(&s), (seen - &s).min(&t), 0u32), bn);
    k.pipelined(blocks, 2, |k, j| {
        let key0 = &j * bn;
        k.copy(kk.window([bb.clone(), kvh.clone(), key0.clone(), zero()], [2, 3]), &k_s);
        k.copy(v.window([bb.clone(), kvh.clone(), key0.clone(), zero()], [2, 3]), &v_s);
        k.clear(&scores);
        k.gemm_t(&q_s, &k_s, &scores, false, true);
        k.parallel([bm, bn], |k, [r, c]| {
            let visible =
                (key0.clone() + &c).lt(&t).and((key0.clone() + &c + &s).le(q0.clone() + &r + &t));
            k.store(&scores, [&r, &c], select(visible, scores.at([&r, &c]), Expr::neg_inf()));
        });
        k.reduce_max(&scores, &block_max, 1);
        k.parallel([bm], |k, [r]| {
            let new = k.let_named("new_max", row_max.at([&r]).max(block_max.at([&r])));
            let a = k.let_named(
                "alpha",
                select(new.clone().eq_(Expr::neg_inf()), 1.0f32, (row_max.at([&r]) - &new).exp2()),
            );
            k.store(&alpha, [&r], a.clone());
            k.store(&rescale, [&r], a);
            k.store(&row_max, [&r], new);
        });
        k.parallel([bm, bn], |k, [r, c]| {
            let m = row_max.at([&r]);
            let p = k.let_named(
                "p",
                select(m.clone().eq_(Expr::neg_inf()), 0.0f32, (scores.at([&r, &c]) - m).exp2()),
            );
            k.store(&scores, [&r, &c], p.clone());
            k.store(&probs, [&r, &c], p.cast(F16));
        });
        k.reduce_sum(&scores, &block_sum, 1);
        k.parallel([bm], |k, [r]| {
            k.store(&row_sum, [&r], row_sum.at([&r]) * alpha.at([&r]) + block_sum.at([&r]));
        });
        k.parallel([bm, d], |k, [r, c]| {
            k.store(&acc, [&r, &c], acc.at([&r, &c]) * rescale.at([&r]));
        });
        k.gemm(&probs, &v_s, &acc);
    });
    k.copy(&row_sum, &rescale);
    k.parallel([bm, d], |k, [r, c]| {
        let l = rescale.at([&r]);
        k.store(&acc, [&r, &c], select(l.clone().gt(0.0f32), acc.at([&r, &c]) / l, 0.0f32));
    });
    k.copy(&acc, o.window([bb, hq, q0, zero()], [2, 3]));
    check("flash_attention", k);
}

#[test]
fn q4_0_gemv() {
    let (rows, blocks) = (32u32, 8u32);
    let (n, rb, kd) = (sym("N"), sym("RB"), sym("K"));
    let k = Kernel::new("q4_0_gemv").grid([ceil_div(&n, rows)]).threads(128);
    let w = k.input("W", U8, [&n, &rb]);
    let x = k.input("X", F32, [&kd]);
    let y = k.param("Y", F32, [&n]);
    let part = k.fragment_named("part", F32, [rows, blocks]);
    let total = k.shared_named("total", F32, [rows]);
    let row0 = block_x() * rows;
    k.clear(&total);
    let half_word =
        |byte: Expr| (w.word(byte.clone() / 4u32) >> ((byte % 4u32) * 8u32)) & 0xFFFFu32;
    let word_at = |byte: Expr| {
        let (lo, hi) = (w.word(byte.clone() / 4u32), w.word(byte.clone() / 4u32 + 1u32));
        select((byte % 4u32).eq_(0u32), lo.clone(), (lo >> 16u32) | (hi << 16u32))
    };
    k.serial(ceil_div(kd.clone() / 32u32, blocks), |k, step| {
        k.parallel([rows, blocks], |k, [r, j]| {
            let blk = &step * blocks + &j;
            let start = k.let_named("start", (row0.clone() + &r) * &rb + &blk * 18u32);
            let d = k.let_named("d", half_word(start.clone()).bitcast(F16).cast(F32));
            let mut dot = Expr::from(0.0f32);
            for wi in 0..4u32 {
                let q = k.let_named(&format!("q{wi}"), word_at(start.clone() + 2u32 + 4 * wi));
                for i in 0..4u32 {
                    let x_lo = x.at([&blk * 32u32 + 4 * wi + i]);
                    let x_hi = x.at([&blk * 32u32 + 16u32 + 4 * wi + i]);
                    dot = dot + (q.clone().bits(8 * i, 4).cast(F32) - 8.0f32) * x_lo;
                    dot = dot + (q.clone().bits(8 * i + 4, 4).cast(F32) - 8.0f32) * x_hi;
                }
            }
            let inside = blk.clone().lt(kd.clone() / 32u32).and((row0.clone() + &r).lt(&n));
            k.store(&part, [&r, &j], select(inside, dot * d, 0.0f32));
        });
        k.reduce_sum_into(&part, &total, 1);
    });
    k.parallel([rows], |k, [r]| k.store(&y, [row0.clone() + &r], total.at([&r])));
    check("q4_0_gemv", k);
}

//! Random builder programs — well formed or not — either compile to WGSL that naga accepts (and
//! to MSL), or are refused by the verifier with a named error. Never a panic, never "compiler
//! bug". Fixed seed and a bounded case count (3,000, about a second), so CI runs the same
//! programs every time; `RANDOM_PROGRAMS=N RANDOM_SEED=S` widen the search.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use tilecast_lang::DType::{self, BF16, F16, F32, I8, I32, U8, U32};
use tilecast_lang::back::emit;
use tilecast_lang::ir::Scope;
use tilecast_lang::{
    Error, Expr, GlobalParam, Kernel, Profile, ReduceOp, TileRef, block_x, ceil_div, compile,
    select, sym, thread_index,
};

/// A tiny deterministic generator driven by one proptest-chosen seed.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn of<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.pick(xs.len())].clone()
    }
}

struct Program<'a> {
    k: &'a Kernel,
    params: Vec<(GlobalParam, usize)>,
    tiles: Vec<(TileRef, Vec<u32>)>,
    info: Vec<(Scope, DType)>,
    params_info: Vec<DType>,
    gemm: Option<(TileRef, TileRef, TileRef)>,
    scalars: Vec<Expr>,
}

const SYMS: [&str; 3] = ["M", "N", "K"];

fn int_expr(g: &mut Gen, vars: &[Expr], depth: u32) -> Expr {
    let choice = if depth == 0 { g.pick(3) } else { g.pick(9) };
    match choice {
        0 if !vars.is_empty() => g.of(vars),
        0 | 1 => Expr::from(g.pick(70) as u32),
        2 => sym(SYMS[g.pick(3)]),
        3 => int_expr(g, vars, depth - 1) + int_expr(g, vars, depth - 1),
        4 => int_expr(g, vars, depth - 1) * g.pick(5) as u32,
        5 => int_expr(g, vars, depth - 1) / g.pick(4) as u32,
        6 => int_expr(g, vars, depth - 1) % (1 + g.pick(9) as u32),
        7 => int_expr(g, vars, depth - 1) & 31u32,
        _ => int_expr(g, vars, depth - 1) >> g.pick(3) as u32,
    }
}

fn index(g: &mut Gen, vars: &[Expr], rank: usize) -> Vec<Expr> {
    let rank = if g.chance(5) { rank + 1 } else { rank };
    (0..rank)
        .map(|d| match vars.get(d) {
            Some(v) if g.chance(70) => v.clone(),
            _ => int_expr(g, vars, 1),
        })
        .collect()
}

fn value(g: &mut Gen, p: &Program, vars: &[Expr], depth: u32) -> Expr {
    let choice = if depth == 0 { g.pick(5) } else { g.pick(14) };
    match choice {
        0 => Expr::from(g.pick(7) as f32 - 3.0),
        1 if !p.tiles.is_empty() => {
            let (t, shape) = g.of(&p.tiles);
            t.at_dyn(index(g, vars, shape.len()))
        }
        2 if !p.params.is_empty() => {
            let (prm, rank) = g.of(&p.params);
            prm.at_dyn(index(g, vars, rank))
        }
        3 if !p.scalars.is_empty() => g.of(&p.scalars),
        4 => int_expr(g, vars, 1),
        _ if depth == 0 => Expr::from(1.0f32),
        5 => value(g, p, vars, depth - 1) + value(g, p, vars, depth - 1),
        6 => value(g, p, vars, depth - 1) * value(g, p, vars, depth - 1),
        7 => value(g, p, vars, depth - 1).cast(g.of(&[F32, F16, I32, U32])),
        8 => value(g, p, vars, depth - 1).exp(),
        9 => value(g, p, vars, depth - 1).max(value(g, p, vars, depth - 1)),
        10 => select(
            value(g, p, vars, depth - 1).lt(value(g, p, vars, depth - 1)),
            value(g, p, vars, depth - 1),
            value(g, p, vars, depth - 1),
        ),
        11 => Expr::neg_inf(),
        12 => thread_index(),
        _ => -value(g, p, vars, depth - 1),
    }
}

fn tile_ref(g: &mut Gen, p: &Program) -> Option<(TileRef, Vec<u32>)> {
    (!p.tiles.is_empty()).then(|| g.of(&p.tiles))
}

/// Mostly a tile that fits (`ok`), sometimes any tile, to keep mistakes in the mix.
fn tile_where(
    g: &mut Gen,
    p: &Program,
    ok: impl Fn(&[u32], Scope, DType) -> bool,
) -> Option<(TileRef, Vec<u32>)> {
    if g.chance(8) {
        return tile_ref(g, p);
    }
    let fits: Vec<_> = p
        .tiles
        .iter()
        .zip(&p.info)
        .filter(|((_, sh), (sc, d))| ok(sh, *sc, *d))
        .map(|(t, _)| t.clone())
        .collect();
    (!fits.is_empty()).then(|| g.of(&fits))
}

fn cast_to(g: &mut Gen, e: Expr, d: DType) -> Expr {
    if g.chance(92) { e.cast(d) } else { e }
}

fn stmt(g: &mut Gen, p: &Program, depth: u32) {
    let k = p.k;
    let origin = |g: &mut Gen, rank: usize| -> Vec<Expr> {
        (0..rank)
            .map(|d| if d == 0 { block_x() * 16u32 } else { Expr::from(g.pick(3) as u32 * 8) })
            .collect()
    };
    match g.pick(12) {
        0 | 1 => {
            if let (Some((t, shape)), false) = (tile_ref(g, p), p.params.is_empty()) {
                let same: Vec<_> =
                    p.params.iter().filter(|(_, r)| *r == shape.len()).cloned().collect();
                let (prm, rank) =
                    if same.is_empty() || g.chance(8) { g.of(&p.params) } else { g.of(&same) };
                let r = if g.chance(95) { rank } else { shape.len() };
                let o = origin(g, r);
                if g.chance(60) {
                    k.copy(prm.tile_dyn(o), &t);
                } else {
                    k.copy(&t, prm.tile_dyn(o));
                }
            }
        }
        2 => {
            if let Some((a, sa)) = tile_where(g, p, |_, sc, _| sc != Scope::Local)
                && let Some((b, _)) =
                    tile_where(g, p, |sh, sc, _| sh == sa.as_slice() && sc != Scope::Local)
            {
                k.copy(&a, &b);
            }
        }
        3 => {
            if let Some((t, _)) = tile_ref(g, p) {
                let d = p.info[t.0.0].1;
                let v =
                    if g.chance(90) { Expr::from(g.pick(5) as u32) } else { value(g, p, &[], 1) };
                let v = cast_to(g, v, d);
                k.fill(&t, v);
            }
        }
        4 | 5 => {
            if let Some((_, shape)) = tile_ref(g, p) {
                let shape = if g.chance(80) { shape } else { vec![g.pick(40) as u32 + 1] };
                k.parallel_dyn(&shape, |k, vars| {
                    for _ in 0..1 + g.pick(2) {
                        let cond = g.chance(15);
                        let store = |k: &Kernel, g: &mut Gen| {
                            if g.chance(60) && !p.tiles.is_empty() {
                                let (t, ts) = g.of(&p.tiles);
                                let idx = index(g, vars, ts.len());
                                let v = value(g, p, vars, 2);
                                let v = cast_to(g, v, p.info[t.0.0].1);
                                k.store_dyn(&t, idx, v);
                            } else if !p.params.is_empty() {
                                let (prm, rank) = g.of(&p.params);
                                let idx = index(g, vars, rank);
                                if g.chance(20) {
                                    k.atomic_add_dyn(&prm, idx, Expr::from(1u32));
                                } else {
                                    let v = value(g, p, vars, 2);
                                    let v = cast_to(g, v, p.params_info[prm.0.0]);
                                    k.store_dyn(&prm, idx, v);
                                }
                            }
                        };
                        if cond {
                            let c = value(g, p, vars, 1).lt(value(g, p, vars, 1));
                            k.if_(c, |k| store(k, g));
                        } else {
                            store(k, g);
                        }
                    }
                });
            }
        }
        6 => {
            let axis0 = g.pick(2);
            if let Some((a, sa)) = tile_where(g, p, |sh, _, _| sh.len() > axis0)
                && let Some((b, _)) = tile_where(g, p, |sh, sc, d| {
                    let mut want = sa.clone();
                    if axis0 < want.len() {
                        want.remove(axis0);
                    }
                    if want.is_empty() {
                        want.push(1);
                    }
                    sh == want.as_slice()
                        && (sc == Scope::Local) == (p.info[a.0.0].0 == Scope::Local)
                        && d == p.info[a.0.0].1
                })
            {
                let op = g.of(&[
                    ReduceOp::Sum,
                    ReduceOp::Max,
                    ReduceOp::Min,
                    ReduceOp::AbsSum,
                    ReduceOp::Argmax,
                ]);
                let axis = if g.chance(95) { axis0 } else { g.pick(sa.len() + 1) };
                if g.chance(20) {
                    k.reduce_into(op, &a, &b, axis);
                } else {
                    k.reduce(op, &a, &b, axis);
                }
            }
        }
        7 => {
            if let Some((a, sa)) = tile_where(g, p, |_, sc, _| sc != Scope::Fragment)
                && let Some((b, _)) = tile_where(g, p, |sh, sc, d| {
                    sh == sa.as_slice() && sc == p.info[a.0.0].0 && d == p.info[a.0.0].1
                })
            {
                k.cumsum(&a, &b, g.pick(sa.len()));
            }
        }
        8 if depth > 0 => {
            let extent = if g.chance(50) {
                Expr::from(g.pick(4) as u32)
            } else {
                ceil_div(sym(SYMS[g.pick(3)]), 16u32)
            };
            k.serial(extent, |_, _| {
                for _ in 0..1 + g.pick(2) {
                    stmt(g, p, depth - 1);
                }
            });
        }
        9 if depth > 0 => {
            let c = if g.chance(90) {
                block_x().lt(sym(SYMS[g.pick(3)]))
            } else {
                value(g, p, &[], 1).gt(0.0f32)
            };
            let other = tile_ref(g, p);
            k.if_else(
                c,
                |_| stmt(g, p, depth - 1),
                |k| {
                    if let Some((t, _)) = other {
                        k.fill(&t, 0.0f32);
                    }
                },
            );
        }
        10 => match (p.gemm, g.chance(85)) {
            (Some((a, b, c)), true) => {
                k.gemm(&a, &b, &c);
                if g.chance(50) && !p.params.is_empty() {
                    let (prm, rank) = g.of(&p.params);
                    if rank == 2 {
                        k.copy(&c, prm.tile_dyn(vec![block_x() * 32u32, Expr::from(0u32)]));
                    }
                }
            }
            _ => {
                if let (Some((a, _)), Some((b, _)), Some((c, _))) =
                    (tile_ref(g, p), tile_ref(g, p), tile_ref(g, p))
                {
                    k.gemm(&a, &b, &c);
                }
            }
        },
        _ => {
            if let (Some((t, shape)), false) = (tile_ref(g, p), p.params.is_empty()) {
                let (prm, rank) = g.of(&p.params);
                let stages = 1 + g.pick(3) as u32;
                let extent = ceil_div(sym(SYMS[g.pick(3)]), 16u32);
                k.pipelined(extent, stages, |k, ko| {
                    let mut o = origin(g, rank);
                    if let Some(last) = o.last_mut() {
                        *last = &ko * 16u32;
                    }
                    k.copy(prm.tile_dyn(o), &t);
                    if let Some((d, _)) = tile_ref(g, p) {
                        k.reduce_into(ReduceOp::Sum, &t, &d, g.pick(shape.len()));
                    }
                });
            }
        }
    }
}

fn program(seed: u64) -> tilecast_lang::ir::Kernel {
    let mut g = Gen(seed | 1);
    let name = g.of(&["rand", "2d_copy", "loop", "a-b", "fn"]);
    let threads = if g.chance(3) { g.of(&[100u32, 2048]) } else { g.of(&[32u32, 64, 64, 128]) };
    let grid_len = if g.chance(2) { 4 } else { 1 + g.pick(2) };
    let grid: Vec<Expr> = (0..grid_len)
        .map(|_| match g.pick(50) {
            0 => Expr::from(1.5f32),
            1 => sym("G"),
            2..=20 => Expr::from(1 + g.pick(3) as u32),
            _ => ceil_div(sym(SYMS[g.pick(3)]), 16u32),
        })
        .collect();
    let k = Kernel::new(name).grid_dyn(grid).threads(threads);
    // One input sets every symbol, so most programs reach the back end.
    let mut params = vec![(k.input("S", F32, [sym("M"), sym("N"), sym("K")]), 3)];
    let mut params_info = vec![F32];
    let mut names = vec!["X", "Y", "a-b", "a_b", "Z"];
    for i in 0..1 + g.pick(3) {
        let dtype = if g.chance(3) { BF16 } else { g.of(&[F32, F32, F32, F16, I32, U32, U8, I8]) };
        let rank = 1 + g.pick(2);
        let shape: Vec<Expr> = (0..rank)
            .map(|d| match g.pick(10) {
                0 if g.chance(20) => sym(SYMS[d]) * 2u32,
                1 => Expr::from(1 + g.pick(100) as u32),
                _ => sym(SYMS[(d + i) % 3]),
            })
            .collect();
        let name = if g.chance(3) { "X" } else { names.remove(g.pick(names.len())) };
        let prm = if g.chance(40) {
            k.input_dyn(name, dtype, shape)
        } else {
            k.param_dyn(name, dtype, shape)
        };
        params.push((prm, rank));
        params_info.push(dtype);
    }
    let mut tiles = Vec::new();
    let mut info = Vec::new();
    let shapes: [&[u32]; 6] = [&[64], &[16, 32], &[8, 16], &[16], &[7, 9], &[32]];
    for _ in 0..1 + g.pick(4) {
        let shape = g.of(&shapes).to_vec();
        let dtype = g.of(&[F32, F32, F32, F16, U32, I32]);
        let whole = shape.iter().product::<u32>() % threads == 0;
        let scope = match g.pick(4) {
            0 if whole || g.chance(10) => Scope::Fragment,
            1 => Scope::Local,
            _ => Scope::Shared,
        };
        let t = k.tile_dyn(scope, dtype, &shape);
        tiles.push((t, shape));
        info.push((scope, dtype));
    }
    // A gemm trio: f32 8x8 steps (Metal's simdgroup matrices) or f16 -> f32 16x16 steps
    // (NVIDIA's cooperative matrices), so the random programs reach the matrix path too.
    let gemm = g.chance(40).then(|| {
        let (input, [m, kk, n]) =
            if g.chance(50) { (F32, [16, 8, 32]) } else { (F16, [32, 16, 64]) };
        let a = k.tile_dyn(Scope::Shared, input, &[m, kk]);
        let b = k.tile_dyn(Scope::Shared, input, &[kk, n]);
        let c = k.tile_dyn(Scope::Fragment, F32, &[m, n]);
        for (t, sh, sc, d) in [
            (a, vec![m, kk], Scope::Shared, input),
            (b, vec![kk, n], Scope::Shared, input),
            (c, vec![m, n], Scope::Fragment, F32),
        ] {
            tiles.push((t, sh));
            info.push((sc, d));
        }
        (a, b, c)
    });
    let mut scalars = Vec::new();
    for i in 0..g.pick(3) {
        let dtype: DType = g.of(&[F32, I32, U32]);
        scalars.push(k.scalar(&format!("s{i}"), dtype));
    }
    let p = Program { k: &k, params, tiles, info, params_info, gemm, scalars };
    for _ in 0..1 + g.pick(5) {
        stmt(&mut g, &p, 2);
    }
    drop(p);
    k.build()
}

#[test]
fn random_programs_compile_or_are_refused_by_the_verifier() {
    let config = Config {
        cases: std::env::var("RANDOM_PROGRAMS").ok().and_then(|v| v.parse().ok()).unwrap_or(3000),
        rng_seed: RngSeed::Fixed(
            std::env::var("RANDOM_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x711e_ca57),
        ),
        failure_persistence: None,
        ..Config::default()
    };
    let profiles: Vec<Profile> =
        Profile::NAMES.iter().map(|n| Profile::named(n).unwrap()).collect();
    let (compiled, refused) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    let matrix = std::cell::Cell::new(0u32);
    proptest!(config, |(seed in any::<u64>(), which in 0usize..3)| {
        let kernel = program(seed);
        match compile(&kernel, &profiles[which]) {
            Ok(c) => {
                compiled.set(compiled.get() + 1);
                if c.wgsl().contains("coopMultiplyAdd") {
                    matrix.set(matrix.get() + 1);
                }
                if let Err(e) = emit::msl(&c) {
                    panic!("seed {seed}: MSL failed: {e}\n{kernel}");
                }
            }
            Err(e @ Error::Verify { .. }) => {
                refused.set(refused.get() + 1);
                if std::env::var("SHOW_REFUSALS").is_ok() {
                    eprintln!("REFUSED {e}");
                }
            }
            Err(other) => panic!("seed {seed}: {other}\n{kernel}"),
        }
    });
    let (compiled, refused) = (compiled.get(), refused.get());
    let matrix = matrix.get();
    eprintln!("{compiled} compiled ({matrix} on matrix units), {refused} refused by the verifier");
    assert!(matrix >= 15, "the generator must reach the matrix path: {matrix}");
    assert!(compiled >= 40, "the generator must reach the back end often: {compiled} compiled");
}

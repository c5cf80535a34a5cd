//! Vector access decided at lowering: which parameters get a `vec4` view, and which reads
//! inside loops over fragments with runs of columns are taken once per run as a vector.

use super::dist::parallel_dist;
use crate::analysis::index::mentions;
use crate::ir::{BinOp, DType, Expr, Kernel, Region, Scope, Stmt, visit};
use crate::lir::{Dist, ETy, FragmentLayout, ParamIx, TExpr, TKind, TileIx};
use crate::passes::ir::select::Selected;
use crate::ranges::multiple_of;

/// Whether `tile` is a fragment the selection pass gave runs of columns.
fn has_runs(selected: &[Option<Selected>], tile: usize) -> bool {
    matches!(selected.get(tile), Some(Some(Selected { layout: FragmentLayout::Simt(b), .. })) if b.run > 1)
}

/// The parameter reads of a parallel loop over a fragment with runs of columns that can be read
/// once per run as a vector: read-only f32/f16 parameters whose last dimension is a constant
/// multiple of 4, at coordinates whose last is the loop's column plus an offset proven a
/// multiple of 4 (so a run's four elements are one aligned vector, inside or outside the row
/// together), or that column xor a constant `m` (a partner in the same or another aligned
/// vector: lane `l` takes component `l ^ (m % 4)`), and whose others do not involve the
/// column. Each read comes with its `m` (0 for plain reads). Reading the norms' W and B this
/// way took f16 layer_norm on an H200 from 67% to 78% of the copy roofline.
/// `runs(tile)`: the fragment has runs of columns; `usable(param)`: the parameter may be read
/// through a vector view.
pub(super) fn run_reads(
    k: &Kernel,
    vars: &[crate::ir::Var],
    body: &[Stmt],
    runs: &dyn Fn(TileIx) -> bool,
    usable: &dyn Fn(usize) -> bool,
) -> Vec<(usize, Vec<Expr>, u32)> {
    let Dist::Fragment(f) = parallel_dist(k, body) else { return Vec::new() };
    let Some(&col) = vars.last() else { return Vec::new() };
    if !runs(f) {
        return Vec::new();
    }
    let mut out: Vec<(usize, Vec<Expr>, u32)> = Vec::new();
    visit::each_expr(body, &mut |e| {
        let Expr::LoadParam(p, idx) = e else { return };
        let prm = &k.params[p.0];
        let Some((last, rest)) = idx.split_last() else { return };
        fn is_col(e: &Expr, col: crate::ir::Var) -> bool {
            match e {
                Expr::Var(v) => *v == col,
                Expr::Bin(BinOp::Mul, a, b) if matches!(**b, Expr::Int(1)) => is_col(a, col),
                Expr::Bin(BinOp::Mul, a, b) if matches!(**a, Expr::Int(1)) => is_col(b, col),
                _ => false,
            }
        }
        let offset_aligned = |e: &Expr| {
            is_col(e, col)
                || matches!(e, Expr::Bin(BinOp::Add, a, b)
                if (is_col(b, col) && multiple_of(a, 4)) || (is_col(a, col) && multiple_of(b, 4)))
        };
        let xor = match last {
            Expr::Bin(BinOp::BitXor, a, m) if offset_aligned(a) => match **m {
                Expr::Int(m @ 0..=0xffff) => Some(m as u32),
                _ => None,
            },
            e if offset_aligned(e) => Some(0),
            _ => None,
        };
        if let Some(xor) = xor
            && !rest.iter().any(|i| mentions(i, col))
            && usable(p.0)
            && matches!(prm.dtype, DType::F32 | DType::F16 | DType::BF16)
            && prm.shape.last().is_some_and(|d| matches!(d, Expr::Int(n) if n % 4 == 0))
            && !out.iter().any(|(q, ix, _)| *q == p.0 && ix == idx)
        {
            out.push((p.0, idx.clone(), xor));
        }
    });
    out
}

/// A let's read of one lane of an aligned run of four ([`lane_read`]).
pub(crate) struct LaneRead {
    /// The parameter.
    pub(crate) param: usize,
    /// The run's first coordinates (for [`word`](Self::word) reads, its first word index).
    pub(crate) run: Vec<Expr>,
    /// The lane, `0..4`.
    pub(crate) lane: u32,
    /// A word of a u8/i8 parameter's bytes (`W.word(i)`), not an element.
    pub(crate) word: bool,
}

/// A let's value that reads lane `c % 4` of an aligned run of 4 (`X[.., base + c]`, `base` a
/// multiple of 4, `c` a constant; the run starts at `base + c - c % 4`) of a read-only
/// f32/f16/u32/i32 parameter whose rows are whole runs, optionally converted (four u32 words
/// of packed weights are one 128-bit load), or word `base + c` of a read-only u8/i8
/// parameter whose bytes are a constant multiple of 16 (`W.word(base + c)`: the run is 16
/// aligned bytes). Such lets
/// share one vector load per run ([`crate::lir::TKind::ParamLane`],
/// [`crate::lir::TKind::WordLane`]): a quantized kernel's four
/// activations of a slice are one 8-byte load rather than four 2-byte ones, a quarter of the
/// cache wavefronts where neighbouring threads read runs 64 bytes apart.
/// `usable(param)`: the parameter may be read through a vector view.
pub(crate) fn lane_read(
    k: &Kernel,
    value: &Expr,
    usable: &dyn Fn(usize) -> bool,
) -> Option<LaneRead> {
    let load = match value {
        Expr::Cast(_, inner) => inner,
        other => other,
    };
    let (p, last, rest, word) = match load {
        Expr::LoadParam(p, idx) => {
            let (last, rest) = idx.split_last()?;
            (p.0, last, rest, false)
        }
        Expr::LoadWord(p, i) => (p.0, &**i, &[][..], true),
        _ => return None,
    };
    let prm = &k.params[p];
    let (base, c) = match last {
        Expr::Bin(BinOp::Add, base, c) if matches!(**c, Expr::Int(0..=0xffff)) => {
            let Expr::Int(c) = **c else { unreachable!("matched") };
            (base.clone(), c)
        }
        // A word at an aligned index is its run's first.
        e if word => (Box::new(e.clone()), 0),
        _ => return None,
    };
    let shaped = if word {
        matches!(prm.dtype, DType::U8 | DType::I8)
            && prm
                .shape
                .iter()
                .try_fold(1u64, |acc, d| match d {
                    Expr::Int(n) if *n > 0 => acc.checked_mul(*n as u64),
                    _ => None,
                })
                .is_some_and(|bytes| bytes % 16 == 0)
    } else {
        matches!(prm.dtype, DType::F32 | DType::F16 | DType::U32 | DType::I32)
            && prm.shape.last().is_some_and(|d| matches!(d, Expr::Int(n) if n % 4 == 0))
    };
    let usable = prm.read_only && usable(p) && shaped && multiple_of(&base, 4);
    usable.then(|| {
        let mut run = rest.to_vec();
        let first = c - c % 4;
        run.push(if first == 0 {
            *base.clone()
        } else {
            Expr::Bin(BinOp::Add, base, Box::new(Expr::Int(first)))
        });
        LaneRead { param: p, run, lane: (c % 4) as u32, word }
    })
}

/// A let's typed `value` (the load [`lane_read`] recognized, or a conversion of it) as a read
/// of its run's lane ([`crate::lir::TKind::ParamLane`], or [`crate::lir::TKind::WordLane`]
/// where range analysis proves the word inside); any other let as it is.
pub(super) fn lane_let(
    k: &Kernel,
    typer: &super::typing::Typer<'_>,
    value: &Expr,
    mut typed: TExpr,
    viewed: &dyn Fn(usize) -> bool,
) -> Result<TExpr, String> {
    let Some(LaneRead { param: p, run, lane, word }) = lane_read(k, value, viewed) else {
        return Ok(typed);
    };
    let lane = if word {
        // A word proven inside lies in a run inside: the bytes are whole runs.
        let load = match value {
            Expr::Cast(_, inner) => inner,
            other => other,
        };
        let Expr::LoadWord(_, i) = load else { return Ok(typed) };
        if typer.word_tested(p, i) {
            return Ok(typed);
        }
        let first = typer.expr(&run[0], ETy::Num(DType::U32))?;
        TExpr { ty: ETy::Num(DType::U32), kind: TKind::WordLane(ParamIx(p), Box::new(first), lane) }
    } else {
        let index = typer.indices(&run)?;
        let tests = typer.param_tests(p, &run);
        let load = ETy::Num(crate::types::loaded(k.params[p].dtype));
        TExpr { ty: load, kind: TKind::ParamLane(ParamIx(p), index, tests, lane) }
    };
    match &mut typed.kind {
        TKind::Cast(inner) if matches!(inner.kind, TKind::Param(..) | TKind::Word(..)) => {
            **inner = lane
        }
        TKind::Param(..) | TKind::Word(..) => typed = lane,
        _ => {}
    }
    Ok(typed)
}

/// f32, f16, u32 and i32 parameters (and read-only bf16 ones, as pairs of words) get a second,
/// `vec4` view when read-only and copied into shared tiles, or read by lets of lanes of
/// aligned runs ([`lane_read`]; u8/i8 parameters' words as `vec4<u32>`),
/// whose rows are whole 4-element runs, or copied to or from fragments with runs of columns
/// ([`crate::lir::RegisterBlocks::run`]): such copies move 16 (or 8) bytes per access when the
/// launch's shapes allow it (checked uniformly before each copy).
pub(super) fn vector_params(
    k: &Kernel,
    atomic: &[bool],
    selected: &[Option<Selected>],
) -> Vec<usize> {
    let runs = |tile: TileIx| has_runs(selected, tile.0);
    let usable = |p: usize| k.params[p].read_only && !atomic[p];
    let mut out = Vec::new();
    visit::each_stmt(&k.body, &mut |s| {
        if let Stmt::Let { value, .. } = s
            && let Some(read) = lane_read(k, value, &|p| !atomic[p])
            && !out.contains(&read.param)
        {
            out.push(read.param);
        }
    });
    visit::each_stmt(&k.body, &mut |s| {
        if let Stmt::Parallel { vars, body, .. } = s {
            for (p, _, _) in run_reads(k, vars, body, &runs, &usable) {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    });
    visit::each_stmt(&k.body, &mut |s| {
        let (tile, param, load) = match s {
            Stmt::Copy {
                src: Region::Global { param, .. },
                dst: Region::Tile { tile, .. },
                ..
            } => (tile.0, param.0, true),
            Stmt::Copy {
                src: Region::Tile { tile, .. },
                dst: Region::Global { param, .. },
                ..
            } => (tile.0, param.0, false),
            _ => return,
        };
        let (t, p) = (&k.tiles[tile], &k.params[param]);
        // Shared windows are read as vectors (parameters read-only, so a view read from never
        // meets a writable binding of its buffer); fragments with runs of columns are read and
        // written as vectors, the view as writable as the parameter.
        let wanted = if t.scope == Scope::Fragment {
            runs(TileIx(tile))
        } else {
            load && t.shape.last().is_some_and(|d| d % 4 == 0) && p.read_only
        };
        // bf16 views only read: four bf16 share two words, and a vector store of them would
        // need the f32 -> bf16 rounding the scalar path does.
        if wanted
            && !atomic[param]
            && (matches!(p.dtype, DType::F32 | DType::F16 | DType::U32 | DType::I32)
                || (p.dtype == DType::BF16 && p.read_only))
            && !out.contains(&param)
        {
            out.push(param);
        }
    });
    out.sort();
    out
}

//! Matrix-unit selection: for each fragment, the layout the lowering will use on this profile,
//! and why. A fragment becomes a set of cooperative (simdgroup) matrices spread over the
//! threadgroup's subgroups when the profile reports a matrix shape for its gemm's input and
//! accumulator types, its tile divides into that shape, and nothing but pointwise epilogues
//! touches it element by element; otherwise it gets SIMT register blocks. The shapes come from the profile (read
//! from the device), never from a table here: Metal's 8x8, NVIDIA's 16x16.

use crate::Profile;
use crate::analysis::layout::{fragment_layout, fragment_layout_with_rows};
use crate::analysis::rows::{fragments_touched, row_reads, row_statistics};
use crate::ir::{Expr, Kernel, Region, Scope, Stmt, Tile, TileId, visit};
use crate::lir::{FragmentLayout, MatrixTiling, RegisterBlocks, TileIx};

pub mod selected;
mod simt;
pub use selected::Selected;
use simt::{few_lanes_per_row, vector_runs};

/// How `tile` is used: zero fills, gemm accumulations (with the A operand), saves to global;
/// or the first other use, which rules matrix units out.
struct Uses {
    gemm_inputs: Vec<(TileId, TileId, bool)>,
    other: Option<String>,
    /// A pointwise parallel loop reads or writes its elements.
    epilogue: bool,
    /// It is copied to a shared tile.
    to_shared: bool,
}

fn uses(k: &Kernel, tile: TileId) -> Uses {
    let mut u = Uses { gemm_inputs: Vec::new(), other: None, epilogue: false, to_shared: false };
    let is = |r: &Region| matches!(r, Region::Tile { tile: t, .. } if *t == tile);
    visit::each_stmt(&k.body, &mut |s| {
        let bad = match s {
            Stmt::Fill { tile: t, value } if *t == tile => (!matches!(value, Expr::Int(0))
                && *value != Expr::Float(0.0))
            .then(|| "it is filled with a value other than zero".to_string()),
            Stmt::Gemm {
                a: Region::Tile { tile: a, .. },
                b: Region::Tile { tile: b, .. },
                c,
                trans_a,
                ..
            } if *c == tile => {
                u.gemm_inputs.push((*a, *b, *trans_a));
                None
            }
            Stmt::Gemm { a, b, .. } if is(a) || is(b) => Some("it is a gemm operand".into()),
            Stmt::Copy { src, dst: Region::Global { .. }, .. } if is(src) => None,
            // Stored matrix by matrix into threadgroup memory (a split accumulator's stage).
            Stmt::Copy { src, dst: Region::Tile { tile: d, stage: None }, .. }
                if is(src) && k.tiles[d.0].scope == Scope::Shared =>
            {
                u.to_shared = true;
                None
            }
            Stmt::Copy { src, dst, .. } if is(src) || is(dst) => {
                Some("it is copied from global memory or to or from another tile".into())
            }
            Stmt::Reduce { src, dst, .. } if *src == tile || *dst == tile => {
                Some("it is reduced".into())
            }
            _ => None,
        };
        if u.other.is_none() {
            u.other = bad;
        }
    });
    if u.other.is_none() {
        // Element access happens only in parallel loops over the fragment, at the loop's own
        // index (the verifier's rule): a pointwise epilogue, which runs on matrices through
        // scratch, unless the loop also touches another fragment (whose layout may differ).
        visit::each_stmt(&k.body, &mut |s| {
            if let Stmt::Parallel { body, .. } = s
                && u.other.is_none()
            {
                let touched = fragments_touched(k, body);
                if touched.contains(&tile) {
                    u.epilogue = true;
                    if touched.len() > 1 {
                        u.other =
                            Some("a loop touches its elements beside another fragment's".into());
                    }
                }
            }
        });
    }
    u
}

/// The matrix tiling of fragment `tile`, or why it cannot have one.
fn matrix(k: &Kernel, tile: TileId, profile: &Profile) -> Result<MatrixTiling, String> {
    if profile.matrix.is_empty() {
        return Err(format!("profile {} has no matrix units", profile.name));
    }
    if k.tiles[tile.0].shape.len() != 2 {
        return Err("matrix units take 2-D fragments".into());
    }
    let u = uses(k, tile);
    if let Some(why) = u.other {
        return Err(format!("{why}, and matrix fragments are opaque"));
    }
    // A 32x32 f16 gemm in such a loop, on subgroup matrices, came out wrong on an H200 (max
    // error 5.7, no NaN) through WGSL and native SPIR-V alike; SIMT was exact. The trip count's
    // trip through the threadgroup slot is what breaks it: the same loop bounded by a symbol
    // was exact, and wrong once routed through the slot, with or without a subgroup broadcast
    // of the loaded count, and with every thread (not thread 0 alone) storing it.
    if gemm_in_loop_bounded_by_memory(&k.body, tile, false) {
        return Err("its gemm sits in a loop whose trip count is read from memory (cooperative \
                    matrices there gave wrong results on an H200)"
            .into());
    }
    let m = tiling(k, tile, &u, profile)?;
    if u.to_shared && m.k_split > 1 {
        return Err(
            "it is stored to a shared tile, which a K split's partial sums cannot be".into()
        );
    }
    Ok(m)
}

/// Whether a gemm into `tile` lies in a `serial` loop whose trip count reads a parameter
/// (loaded by one thread and shared through `workgroupUniformLoad`).
fn gemm_in_loop_bounded_by_memory(body: &[Stmt], tile: TileId, inside: bool) -> bool {
    body.iter().any(|s| match s {
        Stmt::Gemm { c, .. } => inside && *c == tile,
        Stmt::For { extent, body, .. } => {
            let mut reads = false;
            crate::ir::visit::each_expr(&[Stmt::Fill { tile, value: extent.clone() }], &mut |e| {
                reads |= matches!(e, Expr::LoadParam(..) | Expr::LoadWord(..))
            });
            gemm_in_loop_bounded_by_memory(body, tile, inside || reads)
        }
        other => visit::stmt_bodies(other)
            .into_iter()
            .any(|b| gemm_in_loop_bounded_by_memory(b, tile, inside)),
    })
}

/// Whether `tile` goes on matrix units as it is.
pub(crate) fn fits_matrix_units(k: &Kernel, tile: TileId, profile: &Profile) -> bool {
    matrix(k, tile, profile).is_ok()
}

/// Whether `tile`'s gemms alone would put it on matrix units (without a K split), whatever
/// else reads it: [`split`](super::split) then gives the gemms a matrix twin.
pub(crate) fn gemms_fit_matrix_units(k: &Kernel, tile: TileId, profile: &Profile) -> bool {
    let u = uses(k, tile);
    !gemm_in_loop_bounded_by_memory(&k.body, tile, false)
        && tiling(k, tile, &u, profile).is_ok_and(|m| m.k_split == 1)
}

/// The matrix tiling of `tile`'s gemms (`u.gemm_inputs`), or why there is none.
fn tiling(k: &Kernel, tile: TileId, u: &Uses, profile: &Profile) -> Result<MatrixTiling, String> {
    let t = &k.tiles[tile.0];
    if profile.matrix.is_empty() {
        return Err(format!("profile {} has no matrix units", profile.name));
    }
    let [rows, cols] = t.shape[..] else {
        return Err("matrix units take 2-D fragments".into());
    };
    let Some(&(a, b, trans_a)) = u.gemm_inputs.first() else {
        return Err("it accumulates no gemm".into());
    };
    let at = &k.tiles[a.0];
    if u.gemm_inputs
        .iter()
        .any(|(x, y, _)| k.tiles[x.0].dtype != at.dtype || k.tiles[y.0].dtype != at.dtype)
        || k.tiles[b.0].dtype != at.dtype
    {
        return Err(
            "its gemm inputs have different types (matrix units take one input type)".into()
        );
    }
    let kdim = if trans_a { at.shape[0] } else { at.shape[1] };
    let (input, acc) = (at.dtype.to_string(), t.dtype.to_string());
    let Some(shape) = profile
        .matrix
        .iter()
        .filter(|m| {
            m.mnk[0] == m.mnk[1] && m.mnk[1] == m.mnk[2] && m.input == input && m.accumulator == acc
        })
        .map(|m| m.mnk[0])
        .filter(|s| rows.is_multiple_of(*s) && cols.is_multiple_of(*s) && kdim.is_multiple_of(*s))
        .max()
    else {
        return Err(format!(
            "no square matrix shape reported for {input} x {input} -> {acc} divides {rows}x{cols} with K step {kdim}"
        ));
    };
    if profile.simd_width_min != profile.simd_width {
        return Err(format!(
            "subgroups on profile {} range from {} to {} lanes, so the subgroup count is unknown",
            profile.name, profile.simd_width_min, profile.simd_width
        ));
    }
    if !profile.subgroups
        || profile.simd_width == 0
        || !k.threads.is_multiple_of(profile.simd_width)
    {
        return Err(format!(
            "{} threads are not whole subgroups of {} on profile {}",
            k.threads, profile.simd_width, profile.name
        ));
    }
    let groups = k.threads / profile.simd_width;
    let (mt, nt) = (rows / shape, cols / shape);
    // The squarest grid of all the subgroups over the matrices; failing that, the smallest K
    // split whose grid of the remaining subgroups divides them (each K step's matrices must
    // divide among the split too).
    let grid = |g: u32| {
        (1..=g)
            .filter(|wm| {
                g.is_multiple_of(*wm) && mt.is_multiple_of(*wm) && nt.is_multiple_of(g / wm)
            })
            .min_by_key(|wm| ((mt / wm) as i64 - (nt / (g / wm)) as i64).abs())
    };
    let split = (1..=groups)
        .filter(|ks| groups.is_multiple_of(*ks) && (kdim / shape).is_multiple_of(*ks))
        .find_map(|ks| grid(groups / ks).map(|wm| (wm, ks)));
    let Some((wm, k_split)) = split else {
        return Err(format!(
            "{groups} subgroups cannot split {mt}x{nt} matrices evenly, with or without \
             splitting K steps of {} matrices",
            kdim / shape
        ));
    };
    let g = groups / k_split;
    let (wn, blocks) = (g / wm, [mt / wm, nt / (g / wm)]);
    if blocks[0] * blocks[1] > 16 {
        return Err(format!(
            "each subgroup would hold {} matrices (at most 16 fit in registers)",
            blocks[0] * blocks[1]
        ));
    }
    Ok(MatrixTiling { shape, warps: [wm, wn], blocks, input: at.dtype, scratch: None, k_split })
}

/// The layout of every fragment of `k` on `profile` (None for other tiles). Matrix fragments
/// that are saved to global memory get a shared scratch tile (one matrix per subgroup) through
/// which the save is masked at the parameter's edges.
pub fn select(
    k: &mut Kernel,
    profile: &Profile,
) -> Result<Vec<Option<Selected>>, (String, String)> {
    let mut out = Vec::with_capacity(k.tiles.len());
    let stats = row_statistics(k);
    for i in 0..k.tiles.len() {
        let t = &k.tiles[i];
        if t.scope != Scope::Fragment || stats.iter().any(|(r, _)| *r == i) {
            out.push(None);
            continue;
        }
        let chosen = match matrix(k, TileId(i), profile) {
            Ok(mut m) => {
                // Saves and epilogues visit each matrix through a scratch matrix.
                let saved = visit_saves(k, TileId(i)) || uses(k, TileId(i)).epilogue;
                if saved {
                    let n = k.threads / profile.simd_width * m.shape * m.shape;
                    let mut name = format!("{}_matrix_scratch", k.tiles[i].name);
                    while k.tiles.iter().any(|x| x.name == name) {
                        name.push('_');
                    }
                    let dtype = k.tiles[i].dtype;
                    k.tiles.push(Tile {
                        name,
                        scope: Scope::Shared,
                        dtype,
                        shape: vec![n],
                        stages: 1,
                    });
                    m.scratch = Some(TileIx(k.tiles.len() - 1));
                }
                let reason = format!(
                    "{s}x{s}x{s} {} -> {} matrix units on profile {}{}",
                    m.input,
                    k.tiles[i].dtype,
                    profile.name,
                    if m.k_split > 1 {
                        "; fewer matrices than subgroups, so the subgroups split each K step"
                    } else {
                        ""
                    },
                    s = m.shape
                );
                Selected { layout: FragmentLayout::Matrix(m), reason }
            }
            Err(why) => {
                let t = &k.tiles[i];
                let blocks = fragment_layout(t, k.threads).map_err(|m| (t.name.clone(), m))?;
                Selected { layout: FragmentLayout::Simt(blocks), reason: why }
            }
        };
        out.push(Some(chosen));
    }
    few_lanes_per_row(k, profile, &mut out);
    for &(r, of) in &stats {
        let (name, of_name) = (k.tiles[r].name.clone(), k.tiles[of].name.clone());
        let b = match &out[of] {
            Some(Selected { layout: FragmentLayout::Simt(b), .. }) => *b,
            _ => {
                return Err((
                    name,
                    format!(
                        "is a row statistic of {of_name}, whose rows are opaque on matrix units; \
                         keep it in a shared tile"
                    ),
                ));
            }
        };
        let blocks =
            RegisterBlocks { rows: b.rows, cols: b.thread_cols(), tm: b.tm, tn: 1, run: 1 };
        let reason = format!("read at the row index of loops over {of_name}");
        out[r] = Some(Selected { layout: FragmentLayout::Rows { of: TileIx(of), blocks }, reason });
    }
    same_rows_for_readers(k, &stats, &mut out)?;
    vector_runs(k, &mut out);
    name_twins(k, &mut out);
    Ok(out)
}

/// A statistic read over several fragments of its row count (an online softmax's rescale
/// factor, read over the scores and over the output) is only right where each thread owns the
/// same rows of all of them: every such fragment takes the row block of the fragment the
/// statistic follows.
fn same_rows_for_readers(
    k: &Kernel,
    stats: &[(usize, usize)],
    out: &mut [Option<Selected>],
) -> Result<(), (String, String)> {
    // Fragments whose row block a statistic has fixed: those the statistics follow, then each
    // reader as it is given one.
    let mut fixed: Vec<(usize, u32)> = Vec::new();
    for &(_, of) in stats {
        if let Some(Selected { layout: FragmentLayout::Simt(b), .. }) = &out[of] {
            fixed.push((of, b.tm));
        }
    }
    for (r, reader) in row_reads(k) {
        let Some(&(_, of)) = stats.iter().find(|(s, _)| *s == r) else { continue };
        let want = match &out[of] {
            Some(Selected { layout: FragmentLayout::Simt(b), .. }) => *b,
            _ => continue,
        };
        let (name, of_name, reader_name) =
            (&k.tiles[r].name, &k.tiles[of].name, &k.tiles[reader].name);
        let refuse = |why: String| {
            Err((
                name.clone(),
                format!(
                    "is a row statistic of {of_name} read in a loop over {reader_name}, but {why}; \
                     read it over fragments whose rows can be spread alike"
                ),
            ))
        };
        if let Some(&(_, tm)) = fixed.iter().find(|(f, _)| *f == reader)
            && tm != want.tm
        {
            return refuse(format!(
                "{reader_name} holds {tm} rows per thread for another statistic and {of_name} {}",
                want.tm
            ));
        }
        fixed.push((reader, want.tm));
        match &out[reader] {
            Some(Selected { layout: FragmentLayout::Simt(b), .. }) if b.tm == want.tm => {}
            Some(Selected { layout: FragmentLayout::Simt(_), reason }) => {
                let reason = reason.clone();
                match fragment_layout_with_rows(&k.tiles[reader], k.threads, want.tm) {
                    Ok(blocks) => {
                        let reason = format!(
                            "{reason}; {} rows per thread, as {of_name}, whose row statistic \
                             {name} it reads",
                            want.tm
                        );
                        out[reader] =
                            Some(Selected { layout: FragmentLayout::Simt(blocks), reason });
                    }
                    Err(m) => return refuse(m),
                }
            }
            _ => return refuse(format!("{reader_name} is not in SIMT registers")),
        }
    }
    Ok(())
}

/// A SIMT fragment filled from a matrix fragment through a shared stage (the `split` pass's
/// twin) says so: its products run on matrix units.
fn name_twins(k: &Kernel, out: &mut [Option<Selected>]) {
    let mut copies = Vec::new();
    visit::each_stmt(&k.body, &mut |s| {
        if let Stmt::Copy {
            src: Region::Tile { tile: a, .. },
            dst: Region::Tile { tile: b, .. },
            ..
        } = s
        {
            copies.push((a.0, b.0));
        }
    });
    for &(stage, simt) in &copies {
        let Some((mma, _)) = copies.iter().find(|(m, s)| {
            *s == stage
                && matches!(out[*m], Some(Selected { layout: FragmentLayout::Matrix(_), .. }))
        }) else {
            continue;
        };
        if let Some(Selected { layout: FragmentLayout::Simt(_), reason }) = &mut out[simt] {
            *reason = format!(
                "its gemms run on matrix units in {}, stored through {} ({reason})",
                k.tiles[*mma].name, k.tiles[stage].name
            );
        }
    }
}

fn visit_saves(k: &Kernel, tile: TileId) -> bool {
    let mut saved = false;
    visit::each_stmt(&k.body, &mut |s| {
        if matches!(s, Stmt::Copy { src: Region::Tile { tile: t, .. }, dst: Region::Global { .. }, .. } if *t == tile)
        {
            saved = true;
        }
    });
    saved
}

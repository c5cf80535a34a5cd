//! The verifier: rejects kernels that break the language's rules or the profile's limits, each
//! error naming the op, the tile and the limit.

use crate::ir::{DType, Expr, Kernel, Region, Scope, Stmt, Target, VarKind};
use crate::passes::layout::fragment_layout;
use crate::types::{Ty, assignable, type_of};
use crate::{Error, Profile, Result};

struct Verifier<'a> {
    k: &'a Kernel,
    profile: &'a Profile,
}

/// Tiles loaded anywhere in `e`.
fn tiles_read(e: &Expr, out: &mut Vec<usize>) {
    if let Expr::LoadTile(t, _) = e {
        out.push(t.0);
    }
    for c in e.children() {
        tiles_read(c, out);
    }
}

fn supported(d: DType) -> bool {
    matches!(d, DType::F32 | DType::F16 | DType::I32 | DType::U32)
}

impl Verifier<'_> {
    fn err(&self, op: impl Into<String>, message: impl Into<String>) -> Error {
        Error::Verify { kernel: self.k.name.clone(), op: op.into(), message: message.into() }
    }

    fn region_name(&self, r: &Region) -> String {
        match r {
            Region::Global { param, .. } => self.k.params[param.0].name.clone(),
            Region::Tile { tile, .. } => self.k.tiles[tile.0].name.clone(),
        }
    }

    /// Expressions that steer control flow or address tiles must be the same in every thread.
    fn uniform(&self, op: &str, e: &Expr) -> Result<()> {
        let bad = match e {
            Expr::Var(v) if v.kind == VarKind::Parallel => Some("a parallel index"),
            Expr::LoadTile(..) | Expr::LoadParam(..) => Some("a memory load"),
            _ => None,
        };
        if let Some(what) = bad {
            return Err(self.err(op, format!("uses {what} where a uniform value (symbols, block and loop indices) is required")));
        }
        e.children().into_iter().try_for_each(|c| self.uniform(op, c))
    }

    fn typed(&self, op: &str, e: &Expr) -> Result<Ty> {
        self.check_loads(op, e)?;
        type_of(self.k, e).map_err(|m| self.err(op, m))
    }

    /// Every load in `e` has one coordinate per dimension of what it reads.
    fn check_loads(&self, op: &str, e: &Expr) -> Result<()> {
        let (name, rank, idx) = match e {
            Expr::LoadTile(t, idx) => (&self.k.tiles[t.0].name, self.k.tiles[t.0].shape.len(), idx),
            Expr::LoadParam(p, idx) => {
                (&self.k.params[p.0].name, self.k.params[p.0].shape.len(), idx)
            }
            _ => return e.children().into_iter().try_for_each(|c| self.check_loads(op, c)),
        };
        if idx.len() != rank {
            return Err(self.err(
                op,
                format!("{name} has rank {rank} but is indexed with {} coordinates", idx.len()),
            ));
        }
        idx.iter().try_for_each(|i| self.check_loads(op, i))
    }

    fn writable(&self, op: &str, target: Target) -> Result<()> {
        if let Target::Param(p) = target {
            let param = &self.k.params[p.0];
            if param.read_only {
                return Err(self.err(op, format!("writes {}, a read-only parameter (declared with input); declare it with param to write it", param.name)));
            }
        }
        Ok(())
    }

    fn header(&self) -> Result<()> {
        let k = self.k;
        if k.threads == 0 || k.threads > self.profile.max_threads {
            return Err(self.err(
                "threads",
                format!(
                    "{} threads per threadgroup; profile {} allows 1..={}",
                    k.threads, self.profile.name, self.profile.max_threads
                ),
            ));
        }
        for (i, g) in k.grid.iter().enumerate() {
            self.uniform(&format!("grid[{i}]"), g)?;
        }
        for p in &k.params {
            if !supported(p.dtype) {
                return Err(self.err(
                    format!("param {}", p.name),
                    format!(
                        "element type {} has no SIMT path yet (f32, f16, i32, u32 do)",
                        p.dtype
                    ),
                ));
            }
            if p.shape.is_empty() {
                return Err(self.err(format!("param {}", p.name), "needs at least one dimension"));
            }
        }
        for t in &k.tiles {
            let op = format!("tile {}", t.name);
            if !supported(t.dtype) {
                return Err(self.err(
                    op,
                    format!(
                        "element type {} has no SIMT path yet (f32, f16, i32, u32 do)",
                        t.dtype
                    ),
                ));
            }
            if t.dtype == DType::F16 && !self.profile.f16 {
                return Err(
                    self.err(op, format!("profile {} has no f16 arithmetic", self.profile.name))
                );
            }
            if t.shape.is_empty() || t.shape.contains(&0) {
                return Err(self.err(
                    op,
                    format!("shape {:?} must have at least one dimension and no zero", t.shape),
                ));
            }
            if t.scope == Scope::Fragment {
                fragment_layout(t, k.threads)
                    .map_err(|m| self.err(format!("fragment {}", t.name), m))?;
            }
        }
        Ok(())
    }

    fn copy(&self, src: &Region, dst: &Region) -> Result<()> {
        let op = format!("copy {} -> {}", self.region_name(src), self.region_name(dst));
        let tile_shape = |r: &Region| match r {
            Region::Tile { tile, .. } => {
                Some((&self.k.tiles[tile.0].shape, self.k.tiles[tile.0].scope))
            }
            Region::Global { .. } => None,
        };
        match (src, dst) {
            (Region::Global { .. }, Region::Global { .. }) => {
                return Err(self.err(op, "global to global copies need a tile in between"));
            }
            (Region::Global { param, origin }, Region::Tile { .. })
            | (Region::Tile { .. }, Region::Global { param, origin }) => {
                let p = &self.k.params[param.0];
                let (shape, _) =
                    tile_shape(if matches!(src, Region::Tile { .. }) { src } else { dst })
                        .expect("a tile side");
                if origin.len() != p.shape.len() {
                    return Err(self.err(
                        op,
                        format!(
                            "window origin has {} coordinates; {} has rank {}",
                            origin.len(),
                            p.name,
                            p.shape.len()
                        ),
                    ));
                }
                if shape.len() != p.shape.len() {
                    return Err(self.err(
                        op,
                        format!(
                            "tile rank {} differs from {} rank {}",
                            shape.len(),
                            p.name,
                            p.shape.len()
                        ),
                    ));
                }
                for o in origin {
                    self.uniform(&op, o)?;
                }
                if let Region::Global { param, .. } = dst {
                    self.writable(&op, Target::Param(*param))?;
                }
            }
            (Region::Tile { .. }, Region::Tile { .. }) => {
                let (a, sa) = tile_shape(src).expect("tile");
                let (b, sb) = tile_shape(dst).expect("tile");
                if a != b {
                    return Err(self.err(op, format!("shapes differ: {a:?} vs {b:?}")));
                }
                if sa == Scope::Local || sb == Scope::Local {
                    return Err(
                        self.err(op, "local tiles are per thread; fill them or use parallel")
                    );
                }
            }
        }
        Ok(())
    }

    fn gemm(&self, a: &Region, b: &Region, c: usize, ta: bool, tb: bool) -> Result<()> {
        let op = format!(
            "gemm {} x {} -> {}",
            self.region_name(a),
            self.region_name(b),
            self.k.tiles[c].name
        );
        let tile = |r: &Region| match r {
            Region::Tile { tile, .. } => Ok(&self.k.tiles[tile.0]),
            Region::Global { .. } => Err(self.err(
                op.clone(),
                "operands must be shared tiles; copy the global window into shared first",
            )),
        };
        let (ta_, tb_) = (tile(a)?, tile(b)?);
        let tc = &self.k.tiles[c];
        for t in [ta_, tb_] {
            if t.scope != Scope::Shared || t.shape.len() != 2 {
                return Err(self.err(
                    op,
                    format!(
                        "{} must be a 2-D shared tile (it is {:?} {:?})",
                        t.name, t.scope, t.shape
                    ),
                ));
            }
        }
        if tc.scope != Scope::Fragment || tc.shape.len() != 2 {
            return Err(self.err(op, format!("accumulator {} must be a 2-D fragment", tc.name)));
        }
        let (m, ka) = if ta { (ta_.shape[1], ta_.shape[0]) } else { (ta_.shape[0], ta_.shape[1]) };
        let (kb, n) = if tb { (tb_.shape[1], tb_.shape[0]) } else { (tb_.shape[0], tb_.shape[1]) };
        if ka != kb {
            return Err(self.err(
                op,
                format!(
                    "inner dimensions differ: {} gives K = {ka}, {} gives K = {kb}",
                    ta_.name, tb_.name
                ),
            ));
        }
        if [m, n] != [tc.shape[0], tc.shape[1]] {
            return Err(
                self.err(op, format!("product is [{m}, {n}] but {} is {:?}", tc.name, tc.shape))
            );
        }
        if ta_.dtype != tb_.dtype {
            return Err(self.err(op, format!("input types differ: {} vs {}", ta_.dtype, tb_.dtype)));
        }
        if !matches!(tc.dtype, DType::F32 | DType::F16)
            || (tc.dtype == DType::F16 && ta_.dtype == DType::F32)
        {
            return Err(
                self.err(op, format!("{} inputs cannot accumulate into {}", ta_.dtype, tc.dtype))
            );
        }
        Ok(())
    }

    fn stmts(&self, body: &[Stmt], in_parallel: bool) -> Result<()> {
        for s in body {
            self.stmt(s, in_parallel)?;
        }
        Ok(())
    }

    fn stmt(&self, s: &Stmt, in_parallel: bool) -> Result<()> {
        let k = self.k;
        if in_parallel && !matches!(s, Stmt::Store { .. }) {
            return Err(self.err("parallel", "its body may only store elements"));
        }
        match s {
            Stmt::Copy { src, dst, .. } => self.copy(src, dst),
            Stmt::Fill { tile, value } => {
                let t = &k.tiles[tile.0];
                let op = format!("fill {}", t.name);
                self.typed(&op, value)?;
                self.uniform(&op, value)?;
                assignable(k, value, t.dtype).map_err(|m| self.err(op, m))
            }
            Stmt::Gemm { a, b, c, trans_a, trans_b } => self.gemm(a, b, c.0, *trans_a, *trans_b),
            Stmt::Reduce { src, dst, axis, .. } => {
                let (s_, d) = (&k.tiles[src.0], &k.tiles[dst.0]);
                let op = format!("reduce {} -> {}", s_.name, d.name);
                for t in [s_, d] {
                    if t.scope == Scope::Fragment {
                        return Err(self.err(op, format!("{} is a fragment; reduce works on shared or local tiles (copy the fragment to shared first)", t.name)));
                    }
                }
                if *axis >= s_.shape.len() {
                    return Err(self.err(
                        op,
                        format!("axis {axis} is out of range for rank {}", s_.shape.len()),
                    ));
                }
                let mut want = s_.shape.clone();
                want.remove(*axis);
                if want.is_empty() {
                    want.push(1);
                }
                if d.shape != want {
                    return Err(self.err(
                        op,
                        format!(
                            "reducing {:?} along axis {axis} gives {want:?}, but {} is {:?}",
                            s_.shape, d.name, d.shape
                        ),
                    ));
                }
                if (s_.scope == Scope::Local) != (d.scope == Scope::Local) {
                    return Err(
                        self.err(op, "source and destination must both be shared or both be local")
                    );
                }
                if s_.dtype != d.dtype {
                    return Err(self.err(op, format!("types differ: {} vs {}", s_.dtype, d.dtype)));
                }
                Ok(())
            }
            Stmt::Parallel { extents, body, .. } => {
                if extents.is_empty() || extents.contains(&0) {
                    return Err(self.err(
                        "parallel",
                        format!("extents {extents:?} must be non-empty and non-zero"),
                    ));
                }
                let scope_of = |s: &Stmt| match s {
                    Stmt::Store { target: Target::Tile(t), .. } => {
                        Some(k.tiles[t.0].scope == Scope::Local)
                    }
                    Stmt::Store { .. } => Some(false),
                    _ => None,
                };
                let locals: Vec<bool> = body.iter().filter_map(scope_of).collect();
                if locals.contains(&true) && locals.contains(&false) {
                    return Err(self.err(format!("parallel over {extents:?}"), "stores local tiles and shared/fragment/global memory in one loop; split it"));
                }
                let mut touched = Vec::new();
                for s in body {
                    if let Stmt::Store { target, index, value } = s {
                        if let Target::Tile(t) = target {
                            touched.push(t.0);
                        }
                        for e in index.iter().chain([value]) {
                            tiles_read(e, &mut touched);
                        }
                    }
                }
                for t in touched {
                    let tile = &k.tiles[t];
                    if tile.scope == Scope::Fragment && tile.shape != *extents {
                        return Err(self.err(
                            format!("parallel over {extents:?}"),
                            format!(
                                "touches fragment {} of shape {:?}; a parallel loop over a fragment must cover exactly its shape",
                                tile.name, tile.shape
                            ),
                        ));
                    }
                }
                self.stmts(body, true)
            }
            Stmt::Store { target, index, value } => {
                let (name, dtype, rank) = match target {
                    Target::Tile(t) => {
                        (&k.tiles[t.0].name, k.tiles[t.0].dtype, k.tiles[t.0].shape.len())
                    }
                    Target::Param(p) => {
                        (&k.params[p.0].name, k.params[p.0].dtype, k.params[p.0].shape.len())
                    }
                };
                let op = format!("store {name}");
                self.writable(&op, *target)?;
                if index.len() != rank {
                    return Err(self.err(
                        op,
                        format!(
                            "{name} has rank {rank} but is indexed with {} coordinates",
                            index.len()
                        ),
                    ));
                }
                for i in index {
                    self.typed(&op, i)?;
                }
                self.typed(&op, value)?;
                assignable(k, value, dtype).map_err(|m| self.err(op, m))
            }
            Stmt::For { extent, body, .. } => {
                self.uniform("for", extent)?;
                self.stmts(body, false)
            }
            Stmt::Pipelined { extent, stages, body, .. } => {
                let op = "pipelined";
                self.uniform(op, extent)?;
                if *stages == 0 || *stages > 8 {
                    return Err(self.err(op, format!("num_stages {stages} must be 1..=8")));
                }
                let mut computing = false;
                for s in body {
                    let loads = matches!(s, Stmt::Copy { src: Region::Global { .. }, dst: Region::Tile { tile, .. }, .. } if k.tiles[tile.0].scope == Scope::Shared);
                    if loads && computing {
                        return Err(self.err(op, "copies into shared tiles must come before the compute in a pipelined body"));
                    }
                    computing |= !loads;
                }
                self.stmts(body, false)
            }
            Stmt::If { cond, then, otherwise } => {
                self.uniform("if", cond)?;
                if self.typed("if", cond)? != Ty::Bool {
                    return Err(self.err("if", "condition must be a comparison"));
                }
                self.stmts(then, false)?;
                self.stmts(otherwise, false)
            }
            Stmt::Barrier => Ok(()),
        }
    }
}

/// Checks `kernel` against the language's rules and `profile`'s thread limit.
pub fn verify(kernel: &Kernel, profile: &Profile) -> Result<()> {
    let v = Verifier { k: kernel, profile };
    v.header()?;
    v.stmts(&kernel.body, false)
}

/// Checks planned threadgroup memory (after pipelining sized the stages) against the profile.
pub fn verify_shared_memory(kernel: &Kernel, profile: &Profile) -> Result<()> {
    let shared: Vec<_> = kernel.tiles.iter().filter(|t| t.scope == Scope::Shared).collect();
    let total: u64 = shared.iter().map(|t| t.bytes()).sum();
    if total > profile.max_shared_bytes as u64 {
        let parts: Vec<_> = shared
            .iter()
            .map(|t| {
                format!(
                    "{} {}{:?}{} = {} bytes",
                    t.name,
                    t.dtype,
                    t.shape,
                    if t.stages > 1 { format!(" x{} stages", t.stages) } else { String::new() },
                    t.bytes()
                )
            })
            .collect();
        return Err(Error::Verify {
            kernel: kernel.name.clone(),
            op: "shared memory".into(),
            message: format!(
                "tiles need {total} bytes of threadgroup memory ({}); profile {} allows {}",
                parts.join(", "),
                profile.name,
                profile.max_shared_bytes
            ),
        });
    }
    Ok(())
}

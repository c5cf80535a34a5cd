//! Kernel-level rules: ids belong to this kernel, names are unique, the grid, parameters,
//! scalars and tiles are well formed, and every symbol has an argument that sets it.

use super::Verifier;
use crate::analysis::layout::fragment_layout;
use crate::analysis::rows::{row_statistics, why_not_a_statistic};
use crate::ir::{DType, Expr, Region, Scope, Stmt, Target, TileId, VarKind, visit};
use crate::types::{Ty, type_of};
use crate::{Profile, Result, Site};

/// Element types tiles may have.
pub(crate) fn tile_dtype_ok(d: DType) -> bool {
    matches!(d, DType::F32 | DType::F16 | DType::I32 | DType::U32 | DType::U8 | DType::I8)
}

/// Bytes of immediate data (symbols and scalars, 4 bytes each) every profile can pass.
pub(crate) const IMMEDIATE_BYTES: usize = 128;

impl Verifier<'_> {
    /// Every tile, parameter and scalar id used anywhere is one this kernel declares (a handle
    /// from another kernel's builder would otherwise index out of range).
    pub(crate) fn ids(&self) -> Result<()> {
        let k = self.k;
        let (nt, np, ns) = (k.tiles.len(), k.params.len(), k.scalars.len());
        let foreign = |what: &str, id: usize, have: usize| {
            self.err(
                format!("{what} #{id}"),
                format!(
                    "does not belong to this kernel (it declares {have} {what}s): was its handle made by another kernel's builder?"
                ),
            )
        };
        let mut bad = None;
        let mut check_expr = |e: &Expr| {
            let found = match e {
                Expr::LoadTile(t, _) if t.0 >= nt => Some(("tile", t.0, nt)),
                Expr::LoadParam(p, _) | Expr::LoadWord(p, _) if p.0 >= np => {
                    Some(("parameter", p.0, np))
                }
                Expr::Scalar(s) if s.0 >= ns => Some(("scalar", s.0, ns)),
                _ => None,
            };
            if bad.is_none() {
                bad = found;
            }
        };
        visit::each_expr(&k.body, &mut check_expr);
        for e in k.grid.iter().chain(k.params.iter().flat_map(|p| &p.shape)) {
            fn walk(e: &Expr, f: &mut impl FnMut(&Expr)) {
                f(e);
                e.children().into_iter().for_each(|c| walk(c, f));
            }
            walk(e, &mut check_expr);
        }
        if let Some((what, id, have)) = bad {
            return Err(foreign(what, id, have));
        }
        let mut found = None;
        visit::each_stmt(&k.body, &mut |s| {
            let mut tiles = Vec::new();
            let mut params = Vec::new();
            let mut region = |r: &Region| match r {
                Region::Tile { tile, .. } => tiles.push(tile.0),
                Region::Global { param, .. } => params.push(param.0),
            };
            match s {
                Stmt::Copy { src, dst, .. } => {
                    region(src);
                    region(dst);
                }
                Stmt::Gemm { a, b, c, .. } => {
                    region(a);
                    region(b);
                    tiles.push(c.0);
                }
                Stmt::Fill { tile, .. } => tiles.push(tile.0),
                Stmt::Reduce { src, dst, .. } | Stmt::Cumsum { src, dst, .. } => {
                    tiles.extend([src.0, dst.0])
                }
                Stmt::Store { target: Target::Tile(t), .. } => tiles.push(t.0),
                Stmt::Store { target: Target::Param(p), .. } => params.push(p.0),
                Stmt::AtomicAdd { param, .. } => params.push(param.0),
                _ => {}
            }
            if found.is_none() {
                found =
                    tiles.into_iter().find(|t| *t >= nt).map(|t| ("tile", t, nt)).or_else(|| {
                        params.into_iter().find(|p| *p >= np).map(|p| ("parameter", p, np))
                    });
            }
        });
        match found {
            Some((what, id, have)) => Err(foreign(what, id, have)),
            None => Ok(()),
        }
    }

    /// Names are unique within their kind; generated code never uses them raw, so any text is
    /// fine otherwise.
    pub(crate) fn names(&self) -> Result<()> {
        let k = self.k;
        if k.name.trim().is_empty() {
            return Err(self.err("kernel", "needs a name (it becomes the entry point)"));
        }
        let dup = |what: &str, names: Vec<&str>| -> Result<()> {
            for (i, a) in names.iter().enumerate() {
                if names[..i].contains(a) {
                    return Err(self.err(
                        format!("{what} {a}"),
                        format!("two {what}s are named {a:?}; give each a distinct name"),
                    ));
                }
            }
            Ok(())
        };
        dup("parameter", k.params.iter().map(|p| p.name.as_str()).collect())?;
        dup("tile", k.tiles.iter().map(|t| t.name.as_str()).collect())?;
        let args: Vec<&str> = k
            .params
            .iter()
            .map(|p| p.name.as_str())
            .chain(k.scalars.iter().map(|s| s.name.as_str()))
            .collect();
        dup("argument", args)
    }

    /// An expression of symbols and constants only, of type u32 (grid entries, shapes).
    fn shape_expr(&self, op: &str, e: &Expr) -> Result<()> {
        let bad = match e {
            Expr::Var(v) => Some(match v.kind {
                VarKind::Block(_) => "a block index",
                VarKind::Thread => "the thread index",
                _ => "a loop index",
            }),
            Expr::LoadTile(..) | Expr::LoadParam(..) | Expr::LoadWord(..) => Some("a memory load"),
            Expr::Scalar(_) => Some("a non-u32 scalar argument"),
            _ => None,
        };
        if let Some(what) = bad {
            return Err(
                self.err(op, format!("uses {what}; only symbols and constants are allowed here"))
            );
        }
        e.children().into_iter().try_for_each(|c| self.shape_expr(op, c))?;
        self.expr(op, e)?;
        match type_of(self.k, e).map_err(|m| self.err(op, m))? {
            Ty::Num(DType::U32) | Ty::IntLit => Ok(()),
            t => {
                Err(self
                    .err(op, format!("is {}; it must be a u32 expression", crate::types::name(t))))
            }
        }
    }

    pub(crate) fn header(&self) -> Result<()> {
        let k = self.k;
        let p: &Profile = self.profile;
        if k.threads == 0 || k.threads > p.max_threads {
            return Err(self.err(
                "threads",
                format!(
                    "{} threads per threadgroup; profile {} allows 1..={}",
                    k.threads, p.name, p.max_threads
                ),
            ));
        }
        if k.grid.is_empty() || k.grid.len() > 3 {
            return Err(self.err(
                "grid",
                format!("has {} entries; a grid has 1 to 3 (x, y, z)", k.grid.len()),
            ));
        }
        for (i, g) in k.grid.iter().enumerate() {
            self.shape_expr(&format!("grid[{i}]"), g)?;
        }
        for (i, prm) in k.params.iter().enumerate() {
            self.param_header(prm).map_err(|e| e.at(Site::Param(i)))?;
        }
        for s in &k.scalars {
            if !matches!(s.dtype, DType::F32 | DType::I32 | DType::U32) {
                return Err(self.err(
                    format!("scalar {}", s.name),
                    format!("is {}; scalar arguments are f32, i32 or u32", s.dtype),
                ));
            }
        }
        let stats = row_statistics(k);
        for (i, t) in k.tiles.iter().enumerate() {
            self.tile_header(i, t, &stats).map_err(|e| e.at(Site::Tile(i)))?;
        }
        Ok(())
    }

    /// A buffer parameter's rules: a shape of symbols and constants, a type the profile has.
    fn param_header(&self, prm: &crate::ir::Param) -> Result<()> {
        let p: &Profile = self.profile;
        let op = format!("param {}", prm.name);
        if prm.shape.is_empty() {
            return Err(self.err(op, "needs at least one dimension"));
        }
        if prm.dtype == DType::F16 && !p.f16 {
            return Err(self.err(op, format!("profile {} has no f16 arithmetic", p.name)));
        }
        for (d, e) in prm.shape.iter().enumerate() {
            self.shape_expr(&format!("{op} dimension {d}"), e)?;
        }
        Ok(())
    }

    /// Tile `i`'s rules: a type with a SIMT path, a shape within limits, a fragment layout.
    fn tile_header(&self, i: usize, t: &crate::ir::Tile, stats: &[(usize, usize)]) -> Result<()> {
        let (k, p): (&crate::ir::Kernel, &Profile) = (self.k, self.profile);
        let op = format!("tile {}", t.name);
        if !tile_dtype_ok(t.dtype) {
            return Err(self.err(
                op,
                format!(
                    "element type {} has no SIMT path yet (f32, f16, i32, u32, u8 and i8 do)",
                    t.dtype
                ),
            ));
        }
        if t.dtype == DType::F16 && !p.f16 {
            return Err(self.err(op, format!("profile {} has no f16 arithmetic", p.name)));
        }
        if t.shape.is_empty() || t.shape.contains(&0) {
            return Err(self.err(
                op,
                format!("shape {:?} must have at least one dimension and no zero", t.shape),
            ));
        }
        if t.elements() > (1 << 24) {
            return Err(
                self.err(op, format!("{} elements; a tile holds at most 2^24", t.elements()))
            );
        }
        // Row statistics take the layout of the fragment whose rows they follow.
        if t.scope == Scope::Fragment && !stats.iter().any(|(r, _)| *r == i) {
            fragment_layout(t, k.threads).map_err(|m| {
                let why = if t.shape.len() == 1 {
                    format!("{m}: {}", why_not_a_statistic(k, TileId(i)))
                } else {
                    m
                };
                self.err(format!("fragment {}", t.name), why)
            })?;
        }
        Ok(())
    }

    /// Every symbol used anywhere is set at launch: by a `u32` scalar argument of its name, or
    /// by a parameter dimension that is the bare symbol.
    pub(crate) fn symbols(&self) -> Result<()> {
        let k = self.k;
        let used = visit::symbols(k);
        for s in &k.scalars {
            if s.dtype != DType::U32 && used.contains(&s.name) {
                return Err(self.err(
                    format!("scalar {}", s.name),
                    format!(
                        "is {} but {} is also used as a shape symbol (symbols are u32)",
                        s.dtype, s.name
                    ),
                ));
            }
        }
        for sym in &used {
            let by_scalar = k.scalars.iter().any(|s| s.name == *sym && s.dtype == DType::U32);
            let by_shape = k
                .params
                .iter()
                .any(|p| p.shape.iter().any(|d| matches!(d, Expr::Sym(x) if x == sym)));
            if by_scalar || by_shape {
                continue;
            }
            let inside = k
                .params
                .iter()
                .find_map(|p| p.shape.iter().find(|d| mentions(d, sym)).map(|d| (p, d)));
            let message = match inside {
                Some((p, d)) => format!(
                    "appears in {}'s shape only inside {}, so no buffer shape gives its value; make some dimension exactly {sym} or declare k.scalar({sym:?}, U32)",
                    p.name,
                    k.expr_text(d)
                ),
                None => format!(
                    "is used but no argument sets it: make it a dimension of a parameter's shape or declare k.scalar({sym:?}, U32)"
                ),
            };
            return Err(self.err(format!("symbol {sym}"), message));
        }
        let words = used.len() + k.scalars.iter().filter(|s| s.dtype != DType::U32).count();
        if words * 4 > IMMEDIATE_BYTES {
            return Err(self.err(
                "arguments",
                format!(
                    "{} symbols and scalars need {} bytes of immediate data; at most {IMMEDIATE_BYTES} ({} values) are portable",
                    words,
                    words * 4,
                    IMMEDIATE_BYTES / 4
                ),
            ));
        }
        Ok(())
    }
}

fn mentions(e: &Expr, sym: &str) -> bool {
    matches!(e, Expr::Sym(s) if s == sym) || e.children().into_iter().any(|c| mentions(c, sym))
}

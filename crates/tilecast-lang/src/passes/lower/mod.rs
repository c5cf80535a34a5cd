//! Lowering: the verified, pipelined, fenced IR becomes the [`Lowered`] form. Every choice the
//! back end needs is made here: identifiers, parameter access, vector views, fragment layouts
//! (through `select`), thread distribution of each op, copy plans, reduction strategies and
//! bounds proofs. The back end decides nothing.

mod copy;
mod dist;
mod reduce;
mod typing;
mod vectors;

use crate::ir::{BinOp, DType, Expr, Kernel, MathFn, Region, Scope, Stmt, Target, visit};
use crate::lir::{
    Dist, ETy, ElemRef, Features, GemmLowering, Lowered, MAX_UNROLLED_SLOTS, Named, Op,
    ParamAccess, ParamInfo, ParamIx, Reduce, ReduceStrategy, ScalarInfo, TExpr, TKind, TileInfo,
    TileIx, TileSlot, TileStorage, VectorRead, VectorSource,
};
use crate::passes::ir::select::Selected;
use crate::{Error, Profile, Result};
use dist::parallel_dist;
use typing::Typer;
use vectors::{run_reads, vector_params};

/// A WGSL-safe rendering of a user's name (ASCII letters, digits, `_`).
pub fn ident(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

struct Lowerer<'a> {
    k: &'a Kernel,
    profile: &'a Profile,
    typer: Typer<'a>,
    tiles: &'a [TileInfo],
    vector: &'a [Option<u32>],
    subgroups: bool,
    /// Tiles the lowering adds (reduction partials), numbered after the kernel's own.
    extra: Vec<TileInfo>,
}

impl Lowerer<'_> {
    fn err(&self, op: &str, message: String) -> Error {
        Error::Verify { kernel: self.k.name.clone(), op: op.into(), message, at: None }
    }

    /// A one-element u32 workgroup tile through which a loop's trip count read from memory
    /// reaches every thread as a uniform value (see `Op::For`).
    fn uniform_slot(&mut self, var: crate::ir::Var) -> TileIx {
        let id = self.tiles.len() + self.extra.len();
        let name = self.extra_name(format!("{}_trips", crate::ir::var_name(var)));
        self.extra.push(TileInfo {
            named: Named { name, ident: format!("s{id}_trips") },
            scope: Scope::Shared,
            dtype: DType::U32,
            shape: vec![1],
            stages: 1,
            storage: TileStorage::Workgroup,
            row_pad: 0,
        });
        TileIx(id)
    }

    /// An invariant of the passes before lowering, broken: a compiler bug.
    fn bug(&self, message: String) -> Error {
        Error::Internal { kernel: self.k.name.clone(), pass: "lowering", message }
    }

    fn dist(&self, tile: usize) -> Dist {
        match self.k.tiles[tile].scope {
            Scope::Shared => Dist::Threads,
            Scope::Local => Dist::PerThread,
            Scope::Fragment if self.tiles[tile].matrix().is_some() => Dist::Matrix(TileIx(tile)),
            Scope::Fragment => Dist::Fragment(TileIx(tile)),
        }
    }

    /// A name for a tile the lowering adds, unique among the kernel's and the added ones.
    fn extra_name(&self, base: String) -> String {
        let taken = |n: &str| self.tiles.iter().chain(&self.extra).any(|t| t.named.name == n);
        let mut name = base.clone();
        let mut i = 2;
        while taken(&name) {
            name = format!("{base}{i}");
            i += 1;
        }
        name
    }

    fn u32e(&self, op: &str, e: &Expr) -> Result<crate::lir::TExpr> {
        self.typer.expr(e, ETy::Num(DType::U32)).map_err(|m| self.err(op, m))
    }

    fn slot(&self, op: &str, tile: usize, stage: &Option<Expr>) -> Result<TileSlot> {
        Ok(TileSlot {
            tile: TileIx(tile),
            stage: stage.as_ref().map(|s| self.u32e(op, s)).transpose()?,
        })
    }

    fn block(&mut self, body: &[Stmt]) -> Result<Vec<Op>> {
        body.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Op> {
        let k = self.k;
        Ok(match s {
            Stmt::Barrier => Op::Barrier,
            Stmt::Fill { tile, value } => {
                let t = &k.tiles[tile.0];
                let op = format!("fill {}", t.name);
                let value =
                    self.typer.expr(value, ETy::Num(t.dtype)).map_err(|m| self.err(&op, m))?;
                Op::Fill { tile: (*tile).into(), value, dist: self.dist(tile.0) }
            }
            Stmt::Copy { src, dst, .. } => self.copy(src, dst)?,
            Stmt::Gemm { a, b, c, trans_a, trans_b } => {
                let (Region::Tile { tile: at, stage: ast }, Region::Tile { tile: bt, stage: bst }) =
                    (a, b)
                else {
                    return Err(self.bug("gemm operands must be shared tiles".into()));
                };
                let lowering = match (self.tiles[c.0].blocks(), self.tiles[c.0].matrix()) {
                    (Some(b), _) => GemmLowering::Simt(b),
                    (_, Some(m)) => GemmLowering::Matrix(m),
                    _ => return Err(self.bug("the gemm accumulator has no layout".into())),
                };
                Op::Gemm {
                    a: self.slot("gemm", at.0, ast)?,
                    b: self.slot("gemm", bt.0, bst)?,
                    c: (*c).into(),
                    trans_a: *trans_a,
                    trans_b: *trans_b,
                    lowering,
                }
            }
            Stmt::Reduce { op, src, src_stage, dst, axis, clear } => {
                let strategy = if k.tiles[dst.0].scope == Scope::Fragment {
                    self.lane_reduction(src.0, dst.0)?
                } else if k.tiles[src.0].scope == Scope::Fragment {
                    self.register_reduction(src.0, *op)?
                } else {
                    self.tile_reduction(*op, src.0, dst.0, *axis)
                };
                Op::Reduce(Reduce {
                    op: *op,
                    src: self.slot("reduce", src.0, src_stage)?,
                    dst: (*dst).into(),
                    axis: *axis,
                    clear: *clear,
                    dist: self.dist(src.0),
                    strategy,
                })
            }
            Stmt::Cumsum { src, dst, axis } => Op::Cumsum {
                src: (*src).into(),
                dst: (*dst).into(),
                axis: *axis,
                dist: self.dist(src.0),
            },
            Stmt::Parallel { extents, vars, body } => {
                // A loop over a matrix fragment is an epilogue on its matrices.
                let dist = match parallel_dist(k, body) {
                    Dist::Fragment(f) if self.tiles[f].matrix().is_some() => Dist::Matrix(f),
                    d => d,
                };
                let unrolled = match dist {
                    Dist::Fragment(f) => {
                        self.tiles[f].blocks().is_some_and(|b| b.per_thread() <= MAX_UNROLLED_SLOTS)
                    }
                    _ => false,
                };
                let before = self.typer.extents.len();
                self.typer.extents.extend(vars.iter().copied().zip(extents.iter().copied()));
                let lowered = self.block(body);
                let mut vector_reads = Vec::new();
                if unrolled {
                    let runs = |f: TileIx| self.tiles[f].blocks().is_some_and(|b| b.run > 1);
                    let usable = |p: usize| self.vector[p].is_some();
                    for (p, idx, xor) in run_reads(k, vars, body, &runs, &usable) {
                        let index = self.typer.indices(&idx).map_err(|m| self.err("parallel", m));
                        let tests = self.typer.param_tests(p, &idx);
                        vector_reads.push(vector_read(&vector_reads, p, index?, tests, xor));
                    }
                }
                self.typer.extents.truncate(before);
                Op::Parallel {
                    extents: extents.clone(),
                    vars: vars.clone(),
                    dist,
                    unrolled,
                    vector_reads,
                    body: lowered?,
                }
            }
            Stmt::Let { id, name, value } => {
                let op = format!("let {name}");
                let ty = crate::types::type_of(k, value).map_err(|m| self.err(&op, m))?.settle();
                let typed =
                    self.typer.expr(value, typing::ety(ty)).map_err(|m| self.err(&op, m))?;
                let viewed = |p: usize| self.vector.get(p).is_some_and(|v| v.is_some());
                let typed = vectors::lane_let(k, &self.typer, value, typed, &viewed)
                    .map_err(|m| self.err(&op, m))?;
                Op::Let { id: id.0, name: name.clone(), value: typed }
            }
            Stmt::Store { target, index, value } => {
                let (dtype, name) = match target {
                    Target::Tile(t) => (k.tiles[t.0].dtype, k.tiles[t.0].name.clone()),
                    Target::Param(p) => (k.params[p.0].dtype, k.params[p.0].name.clone()),
                };
                let op = format!("store {name}");
                // u8 and i8 tiles hold each element in a 32-bit slot; a store keeps the
                // value's low 8 bits, as a store to such a parameter does.
                let wrapped = match (target, dtype) {
                    (Target::Tile(_), DType::U8) => value.clone() & 255u32,
                    (Target::Tile(_), DType::I8) => value.clone().signed_bits(0, 8),
                    _ => value.clone(),
                };
                let dtype = match target {
                    Target::Tile(_) => crate::types::loaded(dtype),
                    Target::Param(_) => dtype,
                };
                let value =
                    self.typer.expr(&wrapped, ETy::Num(dtype)).map_err(|m| self.err(&op, m))?;
                let target = match target {
                    Target::Tile(t) if k.tiles[t.0].scope == Scope::Fragment => {
                        ElemRef::FragmentSlot((*t).into())
                    }
                    Target::Tile(t) => ElemRef::Tile(
                        self.typer.tile_elem(t.0, index).map_err(|m| self.err(&op, m))?,
                    ),
                    Target::Param(p) => ElemRef::Param(
                        (*p).into(),
                        self.typer.indices(index).map_err(|m| self.err(&op, m))?,
                        self.typer.param_tests(p.0, index),
                    ),
                };
                Op::Store { target, value }
            }
            Stmt::AtomicAdd { param, index, value } => {
                let p = &k.params[param.0];
                let op = format!("atomic_add {}", p.name);
                Op::AtomicAdd {
                    param: (*param).into(),
                    index: self.typer.indices(index).map_err(|m| self.err(&op, m))?,
                    value: self
                        .typer
                        .expr(value, ETy::Num(p.dtype))
                        .map_err(|m| self.err(&op, m))?,
                }
            }
            Stmt::For { var, extent, body } => {
                // A constant extent bounds the counter for the proofs of windows inside it.
                let before = self.typer.loops.len();
                if let Some(n) = crate::fold::int(extent).and_then(|n| u32::try_from(n).ok()) {
                    self.typer.loops.push((*var, n));
                }
                let body = self.block(body);
                self.typer.loops.truncate(before);
                let uniform_slot = reads_memory(extent).then(|| self.uniform_slot(*var));
                Op::For { var: *var, extent: self.u32e("for", extent)?, uniform_slot, body: body? }
            }
            Stmt::If { cond, then, otherwise } => Op::If {
                cond: self.typer.expr(cond, ETy::Bool).map_err(|m| self.err("if", m))?,
                then: self.block(then)?,
                otherwise: self.block(otherwise)?,
            },
            Stmt::Pipelined { .. } => {
                return Err(
                    self.bug("a pipelined loop is left (the pipelining pass lowers them)".into())
                );
            }
        })
    }
}

/// A read of a run's vector, sharing the load of an earlier read in `earlier` where both load
/// the same coordinates: a partner whose column xor stays inside the aligned four columns loads
/// at its column.
fn vector_read(
    earlier: &[VectorRead],
    param: usize,
    index: Vec<TExpr>,
    tests: Vec<bool>,
    xor: u32,
) -> VectorRead {
    let mut at = index.clone();
    if let Some(TExpr { kind: TKind::Bin(BinOp::BitXor, a, _), .. }) = at.last()
        && xor < 4
    {
        let a = (**a).clone();
        *at.last_mut().expect("a last coordinate") = a;
    }
    let shared = earlier.iter().position(|r| {
        r.param == ParamIx(param) && matches!(&r.source, VectorSource::Load(there) if *there == at)
    });
    let source = match shared {
        Some(j) => VectorSource::Shared(j),
        None => VectorSource::Load(at),
    };
    VectorRead { param: ParamIx(param), index, tests, xor, source }
}

/// Lowers `k` (verified, then rewritten, pipelined and fenced) for `profile`.
pub fn lower(k: &Kernel, profile: &Profile, selected: &[Option<Selected>]) -> Result<Lowered> {
    let symbols = visit::symbols(k);
    let mut scalar_map = Vec::new();
    let mut scalars = Vec::new();
    for (i, s) in k.scalars.iter().enumerate() {
        if s.dtype == DType::U32 {
            scalar_map.push(None);
        } else {
            scalar_map.push(Some(scalars.len()));
            scalars.push(ScalarInfo {
                named: Named { name: s.name.clone(), ident: format!("a{i}_{}", ident(&s.name)) },
                dtype: s.dtype,
            });
        }
    }
    let mut atomic = vec![false; k.params.len()];
    let mut written = vec![false; k.params.len()];
    visit::each_stmt(&k.body, &mut |s| match s {
        Stmt::AtomicAdd { param, .. } => {
            atomic[param.0] = true;
            written[param.0] = true;
        }
        Stmt::Store { target: Target::Param(p), .. } => written[p.0] = true,
        Stmt::Copy { dst: Region::Global { param, .. }, .. } => written[param.0] = true,
        _ => {}
    });
    let vec_params = vector_params(k, &atomic, selected);
    let vector_views: Vec<(u32, ParamIx)> = vec_params
        .iter()
        .enumerate()
        .map(|(i, &p)| ((k.params.len() + i) as u32, ParamIx(p)))
        .collect();
    let mut vector = vec![None; k.params.len()];
    for &(b, p) in &vector_views {
        vector[p.0] = Some(b);
    }
    let typer_syms = symbols.clone();
    let typer = Typer {
        k,
        symbols: &typer_syms,
        scalars: &scalar_map,
        extents: Vec::new(),
        loops: Vec::new(),
    };
    let params = k
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let shape = p
                .shape
                .iter()
                .map(|d| typer.expr(d, ETy::Num(DType::U32)))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|m| Error::Verify {
                    kernel: k.name.clone(),
                    op: format!("param {}", p.name),
                    message: m,
                    at: None,
                })?;
            Ok(ParamInfo {
                named: Named { name: p.name.clone(), ident: format!("g{i}_{}", ident(&p.name)) },
                dtype: p.dtype,
                shape,
                read_only: p.read_only,
                written: written[i],
                access: match p.dtype {
                    d @ (DType::U8 | DType::I8 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2) => {
                        ParamAccess::Packed(d)
                    }
                    _ if atomic[i] => ParamAccess::Atomic,
                    _ => ParamAccess::Plain,
                },
                vector_view: vector[i],
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let tiles = k
        .tiles
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let (prefix, storage) = match t.scope {
                Scope::Shared => ("s", TileStorage::Workgroup),
                Scope::Local => ("l", TileStorage::PerThread),
                Scope::Fragment => {
                    let Some(Some(sel)) = selected.get(i) else {
                        return Err(Error::Internal {
                            kernel: k.name.clone(),
                            pass: "lowering",
                            message: format!(
                                "the selection pass chose no layout for fragment {}",
                                t.name
                            ),
                        });
                    };
                    ("f", TileStorage::Fragment { layout: sel.layout, reason: sel.reason.clone() })
                }
            };
            Ok(TileInfo {
                named: Named {
                    name: t.name.clone(),
                    ident: format!("{prefix}{i}_{}", ident(&t.name)),
                },
                scope: t.scope,
                dtype: t.dtype,
                shape: t.shape.clone(),
                stages: t.stages,
                storage,
                row_pad: 0,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut lw = Lowerer {
        k,
        profile,
        typer,
        tiles: &tiles,
        vector: &vector,
        subgroups: profile.subgroups,
        extra: Vec::new(),
    };
    let body = lw.block(&k.body)?;
    let extra = std::mem::take(&mut lw.extra);
    drop(lw);
    let mut tiles = tiles;
    tiles.extend(extra);
    let mut features = Features {
        f16: k.params.iter().any(|p| p.dtype == DType::F16)
            || k.tiles.iter().any(|t| t.dtype == DType::F16),
        ..Features::default()
    };
    visit::each_expr(&k.body, &mut |e| match e {
        Expr::Math(MathFn::Erf, _) => features.erf = true,
        Expr::Cast(DType::F16, _) | Expr::Bitcast(DType::F16, _) => features.f16 = true,
        Expr::Bin(BinOp::Dot4I8, _, _) => features.dot_product = true,
        _ => {}
    });
    fn uses_subgroups(ops: &[Op]) -> bool {
        ops.iter().any(|o| match o {
            Op::Reduce(r) => match r.strategy {
                ReduceStrategy::Subgroup | ReduceStrategy::SplitSubgroups { .. } => true,
                ReduceStrategy::Registers(g) => g.subgroup_first || g.combine_subgroup,
                ReduceStrategy::Lanes { .. } => true,
                ReduceStrategy::Serial | ReduceStrategy::WorkgroupRows => false,
            },
            Op::For { body, .. } | Op::Parallel { body, .. } => uses_subgroups(body),
            Op::If { then, otherwise, .. } => uses_subgroups(then) || uses_subgroups(otherwise),
            _ => false,
        })
    }
    features.matrix = tiles.iter().any(|t| t.matrix().is_some());
    features.subgroups = uses_subgroups(&body) || features.matrix;
    fn uses_shuffles(ops: &[Op]) -> bool {
        ops.iter().any(|o| match o {
            Op::Reduce(r) => matches!(r.strategy, ReduceStrategy::Lanes { .. }),
            Op::For { body, .. } | Op::Parallel { body, .. } => uses_shuffles(body),
            Op::If { then, otherwise, .. } => uses_shuffles(then) || uses_shuffles(otherwise),
            _ => false,
        })
    }
    features.shuffles = uses_shuffles(&body);
    let g = |i: usize| k.grid.get(i).cloned().unwrap_or(Expr::Int(1));
    Ok(Lowered {
        name: k.name.clone(),
        entry: format!("tc_{}", ident(&k.name)),
        threads: k.threads,
        grid: [g(0), g(1), g(2)],
        params,
        symbols: symbols
            .iter()
            .enumerate()
            .map(|(i, s)| Named { name: s.clone(), ident: format!("n{i}_{}", ident(s)) })
            .collect(),
        scalars,
        tiles,
        vector_views,
        body,
        features,
    })
}

/// Whether `e` reads memory (a parameter or tile element).
fn reads_memory(e: &Expr) -> bool {
    matches!(e, Expr::LoadParam(..) | Expr::LoadWord(..) | Expr::LoadTile(..))
        || e.children().into_iter().any(reads_memory)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::DType::F32;
    use crate::{Kernel, ceil_div, sym};

    /// Lowering a loop the pipelining pass should have removed is a compiler bug, reported as
    /// one: never as a mistake in the kernel.
    #[test]
    fn a_broken_pass_invariant_is_an_internal_error() {
        let n = sym("N");
        let k = Kernel::new("staged").grid([ceil_div(&n, 64u32)]).threads(64);
        let x = k.input("X", F32, [&n]);
        let s = k.shared_named("S", F32, [64]);
        k.pipelined(ceil_div(&n, 64u32), 2, |k, i| k.copy(x.tile([&i * 64u32]), &s));
        let mut ir = k.build();
        let profile = Profile::named("vulkan-lavapipe").unwrap();
        let selected = crate::passes::ir::select::select(&mut ir, &profile).unwrap();
        match lower(&ir, &profile, &selected) {
            Err(e @ Error::Internal { .. }) => {
                let text = e.to_string();
                assert!(text.starts_with("compiler bug in the lowering pass"), "{text}");
                assert!(text.contains("pipelined loop"), "{text}");
            }
            other => panic!("expected an internal error, got {other:?}"),
        }
    }
}

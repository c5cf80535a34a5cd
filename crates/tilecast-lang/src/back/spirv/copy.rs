//! Fills, and copies between memory and tiles, following the plans exactly as the WGSL back
//! end does: fragment copies unrolled over the thread's register block (vector runs where the
//! plan says and the launch allows, unmasked twins inside the parameter), others spread over
//! threads. Copies between tiles are in `tile_copy.rs`.

use rspirv::spirv::{Op, Word};

use super::{Printer, Unsupported};
use crate::back::VectorWindow;
use crate::lir::WindowLoad;
use crate::lir::{CopyPlan, Dist, LoadPath, Op as LOp, ParamIx, TExpr, TileIx, TileSlot};

type R = Result<(), Unsupported>;

impl Printer<'_> {
    pub(crate) fn fill(&mut self, tile: TileIx, value: &TExpr, dist: Dist) -> R {
        if let Dist::Matrix(_) = dist {
            self.fill_matrix(tile);
            return Ok(());
        }
        if let Dist::Workgroup(_) = dist {
            return self.fill_workgroup(tile, value);
        }
        let v = self.expr(value)?;
        let t = &self.l.tiles[tile];
        if let Dist::Fragment(_) = dist {
            for slot in 0..t.blocks().map_or(0, |b| b.per_thread()) {
                let ptr = self.slot_ptr(tile, slot);
                self.b.store(ptr, v, None, []).expect("in a block");
            }
            return Ok(());
        }
        let n = t.elements() * t.stages as u64;
        self.elements(n, dist, |p, e| {
            let at = p.at(tile, e);
            let ptr = p.tile_ptr(tile, at);
            p.b.store(ptr, v, None, []).expect("in a block");
            Ok(())
        })
    }

    /// Coordinates of fragment element (i, j) of the thread's block in a global window.
    fn fragment_coords(
        &mut self,
        tile: TileIx,
        org: &[Word],
        rc: (Word, Word),
        i: u32,
        j: u32,
    ) -> Vec<Word> {
        let b = self.l.tiles[tile].blocks().expect("fragment copies follow SIMT blocks");
        let col = self.add_const(rc.1, b.col_step(j));
        let row = (self.l.tiles[tile].shape.len() == 2).then(|| self.add_const(rc.0, i));
        self.window_coords(org, row, col)
    }

    /// A fragment's register window, loaded or saved (see the WGSL back end's
    /// `fragment_window`: the same paths under the same conditions).
    fn fragment_window(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[Word],
        load: bool,
        plan: &CopyPlan,
    ) -> R {
        if plan.proven {
            return match plan.vector {
                Some(width) => self.fragment_vectors(tile, param, org, load, width),
                None => self.fragment_elements(tile, param, org, load, false),
            };
        }
        let Some(width) = plan.vector else {
            return self.fragment_scalars(tile, param, org, load, plan.interior);
        };
        let aligned = self.vector_cond(param, org, width)?;
        let inside = self.inside_cond(param, org, tile)?;
        let c = self.all(&[aligned, inside]);
        let interior = plan.interior;
        self.if_else(
            c,
            |p| p.fragment_vectors(tile, param, org, load, width),
            |p| p.fragment_scalars(tile, param, org, load, interior),
        )
    }

    fn fragment_scalars(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[Word],
        load: bool,
        interior: bool,
    ) -> R {
        if !interior {
            return self.fragment_elements(tile, param, org, load, true);
        }
        let inside = self.inside_cond(param, org, tile)?;
        self.if_else(
            inside,
            |p| p.fragment_elements(tile, param, org, load, false),
            |p| p.fragment_elements(tile, param, org, load, true),
        )
    }

    /// The unrolled element accesses of a fragment window, masked or not.
    fn fragment_elements(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[Word],
        load: bool,
        masked: bool,
    ) -> R {
        let b = self.l.tiles[tile].blocks().expect("fragment copies follow SIMT blocks");
        let (tk, pk) = (self.tile_kind(tile), self.buffers[param.0].kind);
        let rc = (self.frag_row0(&b), self.frag_col0(&b));
        let tests = vec![masked; org.len()];
        for i in 0..b.tm {
            for j in 0..b.tn {
                let coords = self.fragment_coords(tile, org, rc, i, j);
                let ptr = self.slot_ptr(tile, i * b.tn + j);
                if load {
                    let v = self.param_load(param, &coords, &tests)?;
                    let v = self.convert(v, pk, tk);
                    self.b.store(ptr, v, None, []).expect("in a block");
                } else {
                    let ty = self.ty(tk);
                    let v = self.inst(Op::Load, ty, &[ptr]);
                    let v = self.convert(v, tk, pk);
                    self.param_store(param, &coords, &tests, v)?;
                }
            }
        }
        Ok(())
    }

    /// One unmasked vector access per run of `width` columns the thread owns; loads are all
    /// issued before any register is written.
    fn fragment_vectors(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[Word],
        load: bool,
        width: u32,
    ) -> R {
        if width != 4 {
            return Err(Unsupported(format!("vector width {width}")));
        }
        let b = self.l.tiles[tile].blocks().expect("fragment copies follow SIMT blocks");
        let (tk, pk) = (self.tile_kind(tile), self.buffers[param.0].kind);
        let rc = (self.frag_row0(&b), self.frag_col0(&b));
        let mut runs = Vec::new();
        for i in 0..b.tm {
            for j in (0..b.tn).step_by(width as usize) {
                runs.push((self.fragment_coords(tile, org, rc, i, j), i * b.tn + j));
            }
        }
        let (tty, pty) = (self.ty(tk), self.ty(pk));
        if load {
            let vs: Vec<Word> =
                runs.iter().map(|(c, _)| self.vector_load(param, c, false)).collect();
            for (v, (_, first)) in vs.iter().zip(&runs) {
                for l in 0..width {
                    let x = self.extract(pty, *v, l);
                    let x = self.convert(x, pk, tk);
                    let ptr = self.slot_ptr(tile, first + l);
                    self.b.store(ptr, x, None, []).expect("in a block");
                }
            }
        } else {
            let v4 = self.vec_ty(pk, 4);
            for (coords, first) in &runs {
                let parts: Vec<Word> = (0..width)
                    .map(|l| {
                        let ptr = self.slot_ptr(tile, first + l);
                        let x = self.inst(Op::Load, tty, &[ptr]);
                        self.convert(x, tk, pk)
                    })
                    .collect();
                let v = self.inst(Op::CompositeConstruct, v4, &parts);
                self.vector_store(param, coords, v);
            }
        }
        Ok(())
    }

    /// The vector path's condition: the row length and the window's last origin are multiples
    /// of the width.
    fn vector_cond(
        &mut self,
        param: ParamIx,
        org: &[Word],
        width: u32,
    ) -> Result<Word, Unsupported> {
        let last = org.len() - 1;
        let row_len = self.expr(&self.l.params[param].shape[last].clone())?;
        let (w, zero) = (self.u(width), self.u(0));
        let a = self.uop(Op::UMod, row_len, w);
        let a = self.ucmp(Op::IEqual, a, zero);
        let o = self.uop(Op::UMod, org[last], w);
        let o = self.ucmp(Op::IEqual, o, zero);
        Ok(self.all(&[a, o]))
    }

    /// The unmasked path's condition: the whole window lies inside the parameter.
    fn inside_cond(
        &mut self,
        param: ParamIx,
        org: &[Word],
        tile: TileIx,
    ) -> Result<Word, Unsupported> {
        let extent = self.window(tile, param);
        let mut conds = Vec::new();
        for (d, &o) in org.iter().enumerate() {
            let n = self.expr(&self.l.params[param].shape[d].clone())?;
            conds.push(self.ucmp(Op::ULessThan, o, n));
            let rest = self.uop(Op::ISub, n, o);
            let e = self.u(extent[d]);
            conds.push(self.ucmp(Op::UGreaterThanEqual, rest, e));
        }
        Ok(self.all(&conds))
    }

    /// A window load into a tile (the window's axes set for what it prints).
    pub(crate) fn load(&mut self, w: &WindowLoad) -> R {
        let WindowLoad { param, ref origin, ref axes, ref dst, ref plan } = *w;
        self.axes = axes.clone();
        if let Dist::Workgroup(_) = plan.dist {
            return self.tensor_load(param, origin, dst.tile, plan.proven);
        }
        let org = origin.iter().map(|o| self.expr(o)).collect::<Result<Vec<_>, _>>()?;
        if let Dist::Fragment(_) = plan.dist {
            return self.fragment_window(dst.tile, param, &org, true, plan);
        }
        if let Dist::Matrix(_) = plan.dist {
            return Err(Unsupported("matrix loads".into()));
        }
        let off = self.stage_offset(dst)?;
        let dist = plan.dist;
        match plan.load_path() {
            LoadPath::ProvenVectors { width, steps } => {
                let window = VectorWindow { param, org: &org, tile: dst.tile, width };
                self.unrolled_vector_load(&window, off, steps, false)
            }
            LoadPath::Vectors { width, unrolled } => {
                if width != 4 {
                    return Err(Unsupported(format!("vector width {width}")));
                }
                let cond = self.vector_cond(param, &org, width)?;
                let window = VectorWindow { param, org: &org, tile: dst.tile, width };
                self.if_else(
                    cond,
                    |p| match unrolled {
                        Some((steps, true)) => {
                            let inside = p.inside_cond(param, &org, dst.tile)?;
                            p.if_else(
                                inside,
                                |p| p.unrolled_vector_load(&window, off, steps, false),
                                |p| p.unrolled_vector_load(&window, off, steps, true),
                            )
                        }
                        Some((steps, false)) => p.unrolled_vector_load(&window, off, steps, true),
                        None => p.vector_loop(&window, off, dist),
                    },
                    |p| p.scalar_load(param, &org, dst.tile, off, dist),
                )
            }
            LoadPath::UnrolledElements { steps } => {
                // Every load first, then the stores: the loads are in flight together.
                let shape = self.window(dst.tile, param);
                let threads = self.l.threads;
                let (tk, pk) = (self.tile_kind(dst.tile), self.buffers[param.0].kind);
                let mut loaded = Vec::new();
                for k in 0..steps {
                    let e = self.add_const(self.tid, k * threads);
                    let c = self.coords(e, &shape);
                    let coords = self.plus(&org, &c);
                    let tests = vec![true; org.len()];
                    loaded.push((e, self.param_load(param, &coords, &tests)?));
                }
                for (e, v) in loaded {
                    let at = self.at(dst.tile, e);
                    let idx = self.offset(off, at);
                    let v = self.convert(v, pk, tk);
                    let ptr = self.tile_ptr(dst.tile, idx);
                    self.b.store(ptr, v, None, []).expect("in a block");
                }
                Ok(())
            }
            LoadPath::Elements => self.scalar_load(param, &org, dst.tile, off, dist),
        }
    }

    /// One masked vector load of `window` per iteration of an element loop spread by `dist`,
    /// its lanes stored into the tile at stage offset `off`.
    fn vector_loop(&mut self, window: &VectorWindow<'_, Word>, off: Option<Word>, dist: Dist) -> R {
        let (param, width) = (window.param, window.width);
        let n = self.l.tiles[window.tile].elements();
        let shape = self.window(window.tile, param);
        self.elements(n / width as u64, dist, |p, e| {
            let w = p.u(width);
            let first = p.uop(Op::IMul, e, w);
            let c = p.coords(first, &shape);
            let coords = p.plus(window.org, &c);
            let v = p.vector_load(param, &coords, true);
            p.store_lanes(window, off, first, v);
            Ok(())
        })
    }

    /// The lanes of vector `v`, loaded from `window`'s parameter, into its tile (at stage
    /// offset `off`) from element `first`.
    fn store_lanes(
        &mut self,
        window: &VectorWindow<'_, Word>,
        off: Option<Word>,
        first: Word,
        v: Word,
    ) {
        let tile = window.tile;
        let (tk, pk) = (self.tile_kind(tile), self.buffers[window.param.0].kind);
        // A vector never straddles a padded row: rows are whole vectors.
        let at = self.at(tile, first);
        let base = self.offset(off, at);
        let pty = self.ty(pk);
        for lane in 0..window.width {
            let x = self.extract(pty, v, lane);
            let x = self.convert(x, pk, tk);
            let idx = self.add_const(base, lane);
            let ptr = self.tile_ptr(tile, idx);
            self.b.store(ptr, x, None, []).expect("in a block");
        }
    }

    /// The loads half of unrolled vector loads: `steps` vectors of `window` per thread;
    /// returns each step's first element (row-major in the tile) and vector.
    fn issue_vector_loads(
        &mut self,
        window: &VectorWindow<'_, Word>,
        steps: u32,
        masked: bool,
    ) -> Vec<(Word, Word)> {
        let shape = self.window(window.tile, window.param);
        let threads = self.l.threads;
        let mut out = Vec::new();
        for k in 0..steps {
            let e = self.add_const(self.tid, k * threads);
            let w = self.u(window.width);
            let first = self.uop(Op::IMul, e, w);
            let c = self.coords(first, &shape);
            let coords = self.plus(window.org, &c);
            out.push((first, self.vector_load(window.param, &coords, masked)));
        }
        out
    }

    /// `steps` vector loads of `window` per thread, all issued before any store, into its tile
    /// at stage offset `off`.
    fn unrolled_vector_load(
        &mut self,
        window: &VectorWindow<'_, Word>,
        off: Option<Word>,
        steps: u32,
        masked: bool,
    ) -> R {
        let loaded = self.issue_vector_loads(window, steps, masked);
        for (first, v) in loaded {
            self.store_lanes(window, off, first, v);
        }
        Ok(())
    }

    /// A run of loads the lowering grouped: when every one can take its unmasked vector path,
    /// all their global loads are issued before any store; otherwise each load as usual.
    pub(crate) fn load_group(&mut self, run: &[LOp]) -> R {
        let mut loads = Vec::new();
        for op in run {
            if let LOp::Load(WindowLoad { param, origin, axes, dst, plan }) = op {
                let org = origin.iter().map(|o| self.expr(o)).collect::<Result<Vec<_>, _>>()?;
                loads.push((*param, org, axes.clone(), dst.clone(), *plan));
            }
        }
        let mut conds = Vec::new();
        for (param, org, axes, dst, plan) in loads.iter().filter(|l| !l.4.proven) {
            let width = plan.vector.expect("grouped loads are vectorized");
            self.axes = axes.clone();
            conds.push(self.vector_cond(*param, org, width)?);
            conds.push(self.inside_cond(*param, org, dst.tile)?);
        }
        let fragments = loads.iter().all(|l| matches!(l.4.dist, Dist::Fragment(_)));
        let fast = |p: &mut Self| -> R {
            // Fragment windows: each one's vector path in turn, under the one test.
            if fragments {
                for (param, org, axes, dst, plan) in &loads {
                    p.axes = axes.clone();
                    let width = plan.vector.expect("grouped loads are vectorized");
                    p.fragment_vectors(dst.tile, *param, org, true, width)?;
                }
                return Ok(());
            }
            let mut issued = Vec::new();
            for (param, org, axes, dst, plan) in &loads {
                p.axes = axes.clone();
                let (width, steps) = (plan.vector.unwrap_or(1), plan.unroll.unwrap_or(1));
                if width != 4 {
                    return Err(Unsupported(format!("vector width {width}")));
                }
                let window = VectorWindow { param: *param, org, tile: dst.tile, width };
                let vs = p.issue_vector_loads(&window, steps, false);
                issued.push((window, vs));
            }
            for ((_, _, _, dst, _), (window, vs)) in loads.iter().zip(issued) {
                let off = p.stage_offset(dst)?;
                for (first, v) in vs {
                    p.store_lanes(&window, off, first, v);
                }
            }
            Ok(())
        };
        if conds.is_empty() {
            return fast(self);
        }
        let c = self.all(&conds);
        self.if_else(c, fast, |p| {
            for op in run {
                if let LOp::Load(w) = op {
                    p.load(w)?;
                }
            }
            Ok(())
        })
    }

    /// One element per thread per step, masked at the parameter's bounds.
    fn scalar_load(
        &mut self,
        param: ParamIx,
        org: &[Word],
        tile: TileIx,
        off: Option<Word>,
        dist: Dist,
    ) -> R {
        let n = self.l.tiles[tile].elements();
        let shape = self.window(tile, param);
        let (tk, pk) = (self.tile_kind(tile), self.buffers[param.0].kind);
        self.elements(n, dist, |p, e| {
            let c = p.coords(e, &shape);
            let coords = p.plus(org, &c);
            let v = p.param_load(param, &coords, &vec![true; coords.len()])?;
            let v = p.convert(v, pk, tk);
            let at = p.at(tile, e);
            let idx = p.offset(off, at);
            let ptr = p.tile_ptr(tile, idx);
            p.b.store(ptr, v, None, []).expect("in a block");
            Ok(())
        })
    }

    pub(crate) fn save(
        &mut self,
        src: &TileSlot,
        param: ParamIx,
        origin: &[TExpr],
        plan: &CopyPlan,
    ) -> R {
        let org = origin.iter().map(|o| self.expr(o)).collect::<Result<Vec<_>, _>>()?;
        if let Dist::Fragment(_) = plan.dist {
            return self.fragment_window(src.tile, param, &org, false, plan);
        }
        if let Dist::Matrix(_) = plan.dist {
            return self.save_matrix(src.tile, param, &org, None);
        }
        if let Dist::Workgroup(_) = plan.dist {
            return self.tensor_store(src.tile, param, &org, plan.proven);
        }
        let off = self.stage_offset(src)?;
        if plan.proven {
            self.scalar_save(src.tile, param, &org, off, plan.dist, false)
        } else if plan.interior {
            let inside = self.inside_cond(param, &org, src.tile)?;
            let dist = plan.dist;
            self.if_else(
                inside,
                |p| p.scalar_save(src.tile, param, &org, off, dist, false),
                |p| p.scalar_save(src.tile, param, &org, off, dist, true),
            )
        } else {
            self.scalar_save(src.tile, param, &org, off, plan.dist, true)
        }
    }

    fn scalar_save(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[Word],
        off: Option<Word>,
        dist: Dist,
        masked: bool,
    ) -> R {
        let n = self.l.tiles[tile].elements();
        let shape = self.window(tile, param);
        let (tk, pk) = (self.tile_kind(tile), self.buffers[param.0].kind);
        let tty = self.ty(tk);
        self.elements(n, dist, |p, e| {
            let c = p.coords(e, &shape);
            let coords = p.plus(org, &c);
            let at = p.at(tile, e);
            let idx = p.offset(off, at);
            let ptr = p.tile_ptr(tile, idx);
            let v = p.inst(Op::Load, tty, &[ptr]);
            let v = p.convert(v, tk, pk);
            p.param_store(param, &coords, &vec![masked; coords.len()], v)
        })
    }
}

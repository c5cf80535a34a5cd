//! Fills and copies, following the plans: fragment copies unrolled over the thread's register
//! block, others spread over threads, vectorized where the plan says and the launch allows.

use super::Printer;
use super::names::{frag_col0, frag_row0, ty};
use crate::back::VectorWindow;
use crate::lir::WindowLoad;
use crate::lir::{CopyPlan, Dist, LoadPath, Op, ParamIx, TExpr, TileIx, TileSlot};

impl Printer<'_> {
    pub(crate) fn fill(&mut self, tile: TileIx, value: &TExpr, dist: Dist) {
        if let Dist::Matrix(_) = dist {
            return self.fill_matrix(tile, value);
        }
        let v = self.expr(value);
        let t = &self.l.tiles[tile];
        let name = t.named.ident.clone();
        if let Dist::Fragment(_) = dist {
            // Unrolled: constant register indices keep the fragment in registers.
            for slot in 0..t.blocks().map_or(0, |b| b.per_thread()) {
                self.line(&format!("{name}[{slot}] = {v};"));
            }
            return;
        }
        let n = t.elements() * t.stages as u64;
        let e = self.fresh("e");
        self.open_elements(&e, n, dist);
        let at = self.at(tile, &e);
        self.line(&format!("{name}[{at}] = {v};"));
        self.close();
    }

    /// Coordinates of a fragment element in a global window: (row, col) of the thread's block
    /// element (i, j), offset by the window origin.
    fn fragment_coords(&self, tile: TileIx, org: &[String], i: u32, j: u32) -> String {
        let b = self.l.tiles[tile].blocks().expect("fragment copies follow SIMT blocks");
        let col = format!("c + {}u", b.col_step(j));
        // The window spans the copy's axes; the others stay at the origin.
        let row = (self.l.tiles[tile].shape.len() == 2).then(|| format!("r + {i}u"));
        self.window_coords(org, row, col)
    }

    /// A fragment's register window, loaded or saved; with `plan.vector`, one vector per run of
    /// the thread's columns when the window lies inside and is aligned to the vector;
    /// otherwise element by element, with `plan.interior` an unmasked twin taken when the
    /// whole window lies inside the parameter.
    fn fragment_window(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[String],
        load: bool,
        plan: &CopyPlan,
    ) {
        if plan.proven {
            return match plan.vector {
                Some(width) => self.fragment_vectors(tile, param, org, load, width),
                None => self.fragment_elements(tile, param, org, load, "u"),
            };
        }
        let Some(width) = plan.vector else {
            return self.fragment_scalars(tile, param, org, load, plan.interior);
        };
        let slot = TileSlot { tile, stage: None };
        let aligned = self.vector_cond(param, org, width);
        let inside = self.inside_cond(param, org, &slot);
        self.open(&format!("if ({aligned} && {inside})"));
        self.fragment_vectors(tile, param, org, load, width);
        self.close();
        self.open("else");
        self.fragment_scalars(tile, param, org, load, plan.interior);
        self.close();
    }

    /// The window element by element (see [`Self::fragment_window`]).
    fn fragment_scalars(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[String],
        load: bool,
        interior: bool,
    ) {
        if !interior {
            return self.fragment_elements(tile, param, org, load, "");
        }
        let slot = TileSlot { tile, stage: None };
        let inside = self.inside_cond(param, org, &slot);
        self.open(&format!("if ({inside})"));
        self.fragment_elements(tile, param, org, load, "u");
        self.close();
        self.open("else");
        self.fragment_elements(tile, param, org, load, "");
        self.close();
    }

    /// The unrolled element accesses of a fragment window (`unmasked` is "u" for the
    /// accessors without bounds tests, else "").
    fn fragment_elements(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[String],
        load: bool,
        unmasked: &str,
    ) {
        let b = self.l.tiles[tile].blocks().expect("fragment copies follow SIMT blocks");
        let (tname, tty) = (self.l.tiles[tile].named.ident.clone(), ty(self.l.tiles[tile].dtype));
        let p = &self.l.params[param];
        let pty = ty(p.dtype);
        // Unrolled: constant register indices keep the fragment in registers.
        self.open("");
        self.line(&format!("let r = {};", frag_row0(&b)));
        self.line(&format!("let c = {};", frag_col0(&b)));
        for i in 0..b.tm {
            for j in 0..b.tn {
                let coords = self.fragment_coords(tile, org, i, j);
                let slot = format!("{tname}[{}]", i * b.tn + j);
                let tests = vec![unmasked.is_empty(); org.len()];
                let f = self.accessor(!load, param, &tests);
                if load {
                    self.line(&format!("{slot} = {tty}({f}({coords}));"));
                } else {
                    self.line(&format!("{f}({coords}, {pty}({slot}));"));
                }
            }
        }
        self.close();
    }

    /// One unmasked vector access per run of `width` columns the thread owns (the caller tested
    /// that the window lies inside and is aligned); loads are all issued before any register
    /// is written.
    fn fragment_vectors(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[String],
        load: bool,
        width: u32,
    ) {
        let b = self.l.tiles[tile].blocks().expect("fragment copies follow SIMT blocks");
        let (tname, tty) = (self.l.tiles[tile].named.ident.clone(), ty(self.l.tiles[tile].dtype));
        let p = &self.l.params[param];
        let (pname, pty) = (p.named.ident.clone(), ty(p.dtype));
        let comps = ["x", "y", "z", "w"];
        self.open("");
        self.line(&format!("let r = {};", frag_row0(&b)));
        self.line(&format!("let c = {};", frag_col0(&b)));
        let mut runs = Vec::new();
        for i in 0..b.tm {
            for j in (0..b.tn).step_by(width as usize) {
                runs.push((runs.len(), self.fragment_coords(tile, org, i, j), i * b.tn + j));
            }
        }
        for (n, coords, first) in &runs {
            if load {
                self.line(&format!("let v{n} = ldvu_{pname}({coords});"));
            } else {
                let parts: Vec<String> =
                    (0..width).map(|l| format!("{pty}({tname}[{}])", first + l)).collect();
                self.line(&format!("stvu_{pname}({coords}, vec4<{pty}>({}));", parts.join(", ")));
            }
        }
        if load {
            for (n, _, first) in &runs {
                for (l, comp) in comps.iter().enumerate().take(width as usize) {
                    self.line(&format!("{tname}[{}] = {tty}(v{n}.{comp});", *first as usize + l));
                }
            }
        }
        self.close();
    }

    /// A window load into a tile (the window's axes set for what it prints).
    pub(crate) fn load(&mut self, w: &WindowLoad) {
        let WindowLoad { param, ref origin, ref axes, ref dst, ref plan } = *w;
        self.axes = axes.clone();
        let org: Vec<String> = origin.iter().map(|o| self.expr(o)).collect();
        if let Dist::Fragment(_) = plan.dist {
            return self.fragment_window(dst.tile, param, &org, true, plan);
        }
        let off = self.stage_offset(dst);
        match plan.load_path() {
            LoadPath::ProvenVectors { width, steps } => {
                let window = VectorWindow { param, org: &org, tile: dst.tile, width };
                self.open("");
                self.unrolled_vector_load(&window, &off, steps, "ldvu");
                self.close();
            }
            LoadPath::Vectors { width, unrolled } => {
                let window = VectorWindow { param, org: &org, tile: dst.tile, width };
                let cond = self.vector_cond(param, &org, width);
                self.open(&format!("if ({cond})"));
                match unrolled {
                    Some((steps, true)) => {
                        // The whole window inside the parameter: no per-element bounds tests.
                        let inside = self.inside_cond(param, &org, dst);
                        self.open(&format!("if ({inside})"));
                        self.unrolled_vector_load(&window, &off, steps, "ldvu");
                        self.close();
                        self.open("else");
                        self.unrolled_vector_load(&window, &off, steps, "ldv");
                        self.close();
                    }
                    Some((steps, false)) => {
                        self.unrolled_vector_load(&window, &off, steps, "ldv");
                    }
                    None => self.vector_loop(&window, &off, plan.dist),
                }
                self.close();
                self.open("else");
                self.scalar_load(param, &org, dst.tile, &off, plan.dist);
                self.close();
            }
            LoadPath::UnrolledElements { steps } => {
                // Every load first, then the stores: the loads are in flight together.
                let t = &self.l.tiles[dst.tile];
                let (tname, tty) = (t.named.ident.clone(), ty(t.dtype));
                let shape = self.window(dst.tile, param);
                let pname = self.l.params[param].named.ident.clone();
                let threads = self.l.threads;
                self.open("");
                for k in 0..steps {
                    let e = format!("(tid + {}u)", k * threads);
                    let coords = self.param_coords(&org, &e, &shape, &format!("u{k}c"));
                    self.line(&format!("let v{k} = ld_{pname}({});", coords.join(", ")));
                }
                for k in 0..steps {
                    let at = self.at(dst.tile, &format!("tid + {}u", k * threads));
                    self.line(&format!("{tname}[{off}{at}] = {tty}(v{k});"));
                }
                self.close();
            }
            LoadPath::Elements => self.scalar_load(param, &org, dst.tile, &off, plan.dist),
        }
    }

    /// One masked vector load of `window` per iteration of an element loop spread by `dist`,
    /// its lanes stored into the tile at stage offset `off`.
    fn vector_loop(&mut self, window: &VectorWindow<'_, String>, off: &str, dist: Dist) {
        let (param, width) = (window.param, window.width);
        let t = &self.l.tiles[window.tile];
        let (tname, tty, n) = (t.named.ident.clone(), ty(t.dtype), t.elements());
        let shape = self.window(window.tile, param);
        let pname = self.l.params[param].named.ident.clone();
        let e = self.fresh("e");
        self.open_elements(&e, n / width as u64, dist);
        let first = format!("{e} * {width}u");
        let coords = self.param_coords(window.org, &first, &shape, "c");
        self.line(&format!("let v = ldv_{pname}({});", coords.join(", ")));
        let at = self.at(window.tile, &first);
        for (lane, comp) in ["x", "y", "z", "w"].iter().enumerate().take(width as usize) {
            self.line(&format!("{tname}[{off}{at} + {lane}u] = {tty}(v.{comp});"));
        }
        self.close();
    }

    /// `steps` vector loads of `window` per thread, all issued before any store, into its tile
    /// at stage offset `off` (`accessor` is `ldv`, masked, or `ldvu` for windows known to lie
    /// inside the parameter).
    fn unrolled_vector_load(
        &mut self,
        window: &VectorWindow<'_, String>,
        off: &str,
        steps: u32,
        accessor: &str,
    ) {
        let firsts = self.issue_vector_loads(window, steps, accessor, "");
        self.store_vector_loads(window, off, &firsts, "");
    }

    /// The loads half: `let {prefix}v{k} = ...;` for each step; returns each step's first
    /// element (row-major in the tile).
    fn issue_vector_loads(
        &mut self,
        window: &VectorWindow<'_, String>,
        steps: u32,
        accessor: &str,
        prefix: &str,
    ) -> Vec<String> {
        let (width, org) = (window.width, window.org);
        let shape = self.window(window.tile, window.param);
        let pname = self.l.params[window.param].named.ident.clone();
        let threads = self.l.threads;
        let mut firsts = Vec::new();
        for k in 0..steps {
            let first = format!("(tid + {}u) * {width}u", k * threads);
            let coords = self.param_coords(org, &first, &shape, &format!("{prefix}u{k}c"));
            self.line(&format!("let {prefix}v{k} = {accessor}_{pname}({});", coords.join(", ")));
            firsts.push(first);
        }
        firsts
    }

    /// The stores half: each loaded vector into `window`'s tile at stage offset `off`.
    fn store_vector_loads(
        &mut self,
        window: &VectorWindow<'_, String>,
        off: &str,
        firsts: &[String],
        prefix: &str,
    ) {
        let t = &self.l.tiles[window.tile];
        let (tname, tty) = (t.named.ident.clone(), ty(t.dtype));
        for (k, first) in firsts.iter().enumerate() {
            // A vector never straddles a padded row: rows are whole vectors.
            let at = self.at(window.tile, first);
            let lanes = window.width as usize;
            for (lane, comp) in ["x", "y", "z", "w"].iter().enumerate().take(lanes) {
                self.line(&format!("{tname}[{off}{at} + {lane}u] = {tty}({prefix}v{k}.{comp});"));
            }
        }
    }

    /// The vector path's condition: the row length and the window's last origin are multiples
    /// of the width.
    fn vector_cond(&mut self, param: ParamIx, org: &[String], width: u32) -> String {
        let last = org.len() - 1;
        let row_len = self.expr(&self.l.params[param].shape[last].clone());
        format!("{row_len} % {width}u == 0u && ({}) % {width}u == 0u", org[last])
    }

    /// The unmasked path's condition: the whole window lies inside the parameter.
    fn inside_cond(&mut self, param: ParamIx, org: &[String], dst: &TileSlot) -> String {
        // A window of lower rank than the parameter is one element deep along other axes.
        let extent = self.window(dst.tile, param);
        let dims: Vec<String> =
            (0..org.len()).map(|d| self.expr(&self.l.params[param].shape[d].clone())).collect();
        let inside: Vec<String> = (0..org.len())
            .map(|d| {
                let (o, n) = (&org[d], &dims[d]);
                format!("{o} < {n} && {n} - ({o}) >= {}u", extent[d])
            })
            .collect();
        inside.join(" && ")
    }

    /// A run of loads the lowering grouped (`CopyPlan::issue_with_next`): when every one can
    /// take its unmasked vector path, all their global loads are issued before any store, so
    /// the run waits for memory once; otherwise each load as usual.
    pub(crate) fn load_group(&mut self, run: &[Op]) {
        let mut loads = Vec::new();
        for op in run {
            if let Op::Load(WindowLoad { param, origin, axes, dst, plan }) = op {
                let org: Vec<String> = origin.iter().map(|o| self.expr(o)).collect();
                loads.push((*param, org, axes.clone(), dst.clone(), *plan));
            }
        }
        let mut conds = Vec::new();
        for (param, org, axes, dst, plan) in loads.iter().filter(|l| !l.4.proven) {
            let width = plan.vector.expect("grouped loads are vectorized");
            self.axes = axes.clone();
            conds.push(self.vector_cond(*param, org, width));
            conds.push(self.inside_cond(*param, org, dst));
        }
        let proven = conds.is_empty();
        self.open(&if proven { String::new() } else { format!("if ({})", conds.join(" && ")) });
        // Fragment windows: each one's vector path in turn, under the one test.
        if loads.iter().all(|l| matches!(l.4.dist, Dist::Fragment(_))) {
            for (param, org, axes, dst, plan) in &loads {
                self.axes = axes.clone();
                let width = plan.vector.expect("grouped loads are vectorized");
                self.fragment_vectors(dst.tile, *param, org, true, width);
            }
            self.close();
            if !proven {
                self.open("else");
                for op in run {
                    if let Op::Load(w) = op {
                        self.load(w);
                    }
                }
                self.close();
            }
            return;
        }
        let mut issued = Vec::new();
        for (n, (param, org, axes, dst, plan)) in loads.iter().enumerate() {
            self.axes = axes.clone();
            let (width, steps) = (plan.vector.unwrap_or(1), plan.unroll.unwrap_or(1));
            let window = VectorWindow { param: *param, org, tile: dst.tile, width };
            let firsts = self.issue_vector_loads(&window, steps, "ldvu", &format!("g{n}"));
            issued.push((window, firsts));
        }
        for (n, ((_, _, _, dst, _), (window, firsts))) in loads.iter().zip(&issued).enumerate() {
            let off = self.stage_offset(dst);
            self.store_vector_loads(window, &off, firsts, &format!("g{n}"));
        }
        self.close();
        if proven {
            return;
        }
        self.open("else");
        for op in run {
            if let Op::Load(w) = op {
                self.load(w);
            }
        }
        self.close();
    }

    /// One element per thread per step; the accessor masks at the parameter's bounds.
    fn scalar_load(&mut self, param: ParamIx, org: &[String], tile: TileIx, off: &str, dist: Dist) {
        let t = &self.l.tiles[tile];
        let (tname, tty, n) = (t.named.ident.clone(), ty(t.dtype), t.elements());
        let shape = self.window(tile, param);
        let pname = self.l.params[param].named.ident.clone();
        let e = self.fresh("e");
        self.open_elements(&e, n, dist);
        let coords = self.param_coords(org, &e, &shape, "c");
        let at = self.at(tile, &e);
        self.line(&format!("{tname}[{off}{at}] = {tty}(ld_{pname}({}));", coords.join(", ")));
        self.close();
    }

    pub(crate) fn save(
        &mut self,
        src: &TileSlot,
        param: ParamIx,
        origin: &[TExpr],
        plan: &CopyPlan,
    ) {
        let org: Vec<String> = origin.iter().map(|o| self.expr(o)).collect();
        if let Dist::Fragment(_) = plan.dist {
            return self.fragment_window(src.tile, param, &org, false, plan);
        }
        if let Dist::Matrix(_) = plan.dist {
            return self.save_matrix(src.tile, param, &org, None);
        }
        let off = self.stage_offset(src);
        if plan.proven {
            self.scalar_save(src, param, &org, &off, plan.dist, "stu");
        } else if plan.interior {
            let inside = self.inside_cond(param, &org, src);
            self.open(&format!("if ({inside})"));
            self.scalar_save(src, param, &org, &off, plan.dist, "stu");
            self.close();
            self.open("else");
            self.scalar_save(src, param, &org, &off, plan.dist, "st");
            self.close();
        } else {
            self.scalar_save(src, param, &org, &off, plan.dist, "st");
        }
    }

    /// One element per thread per step through `accessor` (`st`, masked, or `stu`).
    fn scalar_save(
        &mut self,
        src: &TileSlot,
        param: ParamIx,
        org: &[String],
        off: &str,
        dist: Dist,
        accessor: &str,
    ) {
        let t = &self.l.tiles[src.tile];
        let (tname, n) = (t.named.ident.clone(), t.elements());
        let shape = self.window(src.tile, param);
        let p = &self.l.params[param];
        let pty = ty(p.dtype);
        let e = self.fresh("e");
        self.open_elements(&e, n, dist);
        let coords = self.param_coords(org, &e, &shape, "c");
        let at = self.at(src.tile, &e);
        let f = self.accessor(true, param, &vec![accessor == "st"; org.len()]);
        self.line(&format!("{f}({}, {pty}({tname}[{off}{at}]));", coords.join(", ")));
        self.close();
    }

    pub(crate) fn copy_tiles(&mut self, src: &TileSlot, dst: &TileSlot, dist: Dist) {
        if let Dist::Matrix(_) = dist {
            return self.store_matrices(src.tile, dst);
        }
        let (so, doff) = (self.stage_offset(src), self.stage_offset(dst));
        let (st, dt) = (&self.l.tiles[src.tile], &self.l.tiles[dst.tile]);
        let (sn, dn, dty) = (st.named.ident.clone(), dt.named.ident.clone(), ty(dt.dtype));
        let (sfrag, dfrag) = (st.blocks().is_some(), dt.blocks().is_some());
        if let Dist::Fragment(f) = dist
            && self.l.tiles[f].row_statistic()
        {
            // A row statistic and a [rows] shared tile: each thread its rows; to memory, only
            // each row's first thread.
            let b = self.l.tiles[f].blocks().expect("row statistics have blocks");
            self.open("");
            self.line(&format!("let r = {};", frag_row0(&b)));
            if sfrag {
                self.open(&format!("if (({}) == 0u)", frag_col0(&b)));
            }
            for i in 0..b.tm {
                let (from, to) = if sfrag {
                    (format!("{sn}[{i}u]"), format!("{dn}[{doff}r + {i}u]"))
                } else {
                    (format!("{sn}[{so}r + {i}u]"), format!("{dn}[{i}u]"))
                };
                self.line(&format!("{to} = {dty}({from});"));
            }
            if sfrag {
                self.close();
            }
            return self.close();
        }
        if let Dist::Fragment(f) = dist {
            // Unrolled: constant register indices keep the fragment in registers.
            let b = self.l.tiles[f].blocks().expect("fragment copies follow SIMT blocks");
            self.open("");
            self.line(&format!("let r = {};", frag_row0(&b)));
            self.line(&format!("let c = {};", frag_col0(&b)));
            // The shared side's rows step by its pitch (padding included).
            let pitch = if sfrag { dt.row_pitch() } else { st.row_pitch() };
            for i in 0..b.tm {
                for j in 0..b.tn {
                    let lin = format!("(r + {i}u) * {pitch}u + c + {}u", b.col_step(j));
                    let slot = format!("{}u", i * b.tn + j);
                    let (from, to) = match (sfrag, dfrag) {
                        (true, true) => (format!("{sn}[{slot}]"), format!("{dn}[{slot}]")),
                        (true, false) => (format!("{sn}[{slot}]"), format!("{dn}[{doff}{lin}]")),
                        _ => (format!("{sn}[{so}{lin}]"), format!("{dn}[{slot}]")),
                    };
                    self.line(&format!("{to} = {dty}({from});"));
                }
            }
            self.close();
        } else {
            let n = st.elements();
            let e = self.fresh("e");
            self.open_elements(&e, n, dist);
            let (sat, dat) = (self.at(src.tile, &e), self.at(dst.tile, &e));
            self.line(&format!("{dn}[{doff}{dat}] = {dty}({sn}[{so}{sat}]);"));
            self.close();
        }
    }
}

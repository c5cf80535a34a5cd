//! The WGSL back end's entry point: the per-tile declarations and the body, wrapped in the
//! module the prelude prints around them.

use super::{Printer, names, prelude};
use crate::lir::{Lowered, TileIx, TileStorage};

/// Prints WGSL for `l`.
pub fn write(l: &Lowered) -> String {
    let mut p = Printer::new(l, 1);
    p.line("let bx = wg.x;");
    p.line("let by = wg.y;");
    p.line("let bz = wg.z;");
    for (i, t) in l.tiles.iter().enumerate() {
        if t.matrix().is_some() {
            p.declare_matrix(TileIx(i));
            continue;
        }
        let n = match &t.storage {
            TileStorage::Fragment { .. } => t.blocks().map_or(0, |b| b.per_thread() as u64),
            TileStorage::PerThread => t.elements(),
            // Workgroup-scope matrices are made for the native back end only.
            TileStorage::Workgroup
            | TileStorage::WorkgroupMatrix { .. }
            | TileStorage::WorkgroupRows { .. }
            | TileStorage::Unused => continue,
        };
        p.line(&format!("var {}: array<{}, {n}>;", t.named.ident, names::ty(t.dtype)));
    }
    p.ops(&l.body);
    let body = std::mem::take(&mut p.out);
    prelude::module(l, &body, &p.accessors)
}

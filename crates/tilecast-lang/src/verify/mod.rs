//! The verifier: rejects kernels that break the language's rules or the profile's limits, each
//! error naming the op, the tile and the limit. Everything after it (passes, back end) may assume
//! a verified kernel: ids in range, names unique, every symbol settable, expressions typed.

mod expr;
mod header;
mod held;
mod stmt;
mod window;

use crate::ir::{Kernel, Region, Scope};
use crate::{Error, Profile, Result};

pub(crate) struct Verifier<'a> {
    pub(crate) k: &'a Kernel,
    pub(crate) profile: &'a Profile,
    /// Per tile: a local tile held alike in every thread (`held.rs`), found on first use.
    held: std::cell::OnceCell<Vec<bool>>,
}

impl Verifier<'_> {
    pub(crate) fn err(&self, op: impl Into<String>, message: impl Into<String>) -> Error {
        Error::Verify {
            kernel: self.k.name.clone(),
            op: op.into(),
            message: message.into(),
            at: None,
        }
    }

    pub(crate) fn region_name(&self, r: &Region) -> String {
        match r {
            Region::Global { param, .. } => self.k.param_label(param.0),
            Region::Tile { tile, .. } => self.k.tile_label(tile.0),
        }
    }
}

/// Checks `kernel` against the language's rules and `profile`'s limits.
pub fn verify(kernel: &Kernel, profile: &Profile) -> Result<()> {
    let v = Verifier { k: kernel, profile, held: Default::default() };
    v.ids()?;
    v.names()?;
    v.header()?;
    v.symbols()?;
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
            at: None,
        });
    }
    Ok(())
}

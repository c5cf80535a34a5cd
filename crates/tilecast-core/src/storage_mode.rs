//! Where a buffer's memory lives.

use std::fmt;

/// Where a buffer's memory lives and how the host reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageMode {
    /// GPU-only memory. Host access goes through staging copies (`upload`, `download`).
    Private,
    /// GPU memory the host maps directly: zero-copy, coherent host views that wait for GPU work.
    Shared,
    /// A host copy plus a GPU copy. Host writes reach the GPU after `did_modify_range`; GPU writes
    /// reach the host copy after `synchronize`.
    Managed,
}

impl StorageMode {
    /// The lowercase name, as `TILECAST_STORAGE_MODE` spells it.
    pub const fn name(self) -> &'static str {
        match self {
            StorageMode::Private => "private",
            StorageMode::Shared => "shared",
            StorageMode::Managed => "managed",
        }
    }

    /// Parses `private`, `shared` or `managed`, ignoring case and surrounding whitespace.
    pub fn parse(value: &str) -> Option<StorageMode> {
        match value.trim().to_ascii_lowercase().as_str() {
            "private" => Some(StorageMode::Private),
            "shared" => Some(StorageMode::Shared),
            "managed" => Some(StorageMode::Managed),
            _ => None,
        }
    }

    /// True when the host can view the buffer's memory without a staging copy.
    pub const fn is_host_visible(self) -> bool {
        !matches!(self, StorageMode::Private)
    }
}

impl fmt::Display for StorageMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

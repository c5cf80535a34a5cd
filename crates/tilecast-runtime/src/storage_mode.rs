//! Storage modes and the process-wide default read from `TILECAST_STORAGE_MODE`.

use std::fmt;
use std::sync::OnceLock;

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

/// The environment variable that sets the process default.
pub const STORAGE_MODE_ENV: &str = "TILECAST_STORAGE_MODE";

/// The default when the environment says nothing (or nothing valid).
pub const BUILTIN_STORAGE_MODE: StorageMode = StorageMode::Private;

/// Resolves a raw environment value to a mode, plus a warning when the value is not a mode.
/// An empty (or all-whitespace) value means unset, as for every `TILECAST_*` variable.
pub fn resolve_storage_mode(raw: Option<&str>) -> (StorageMode, Option<String>) {
    match raw.filter(|v| !v.trim().is_empty()) {
        None => (BUILTIN_STORAGE_MODE, None),
        Some(v) => match StorageMode::parse(v) {
            Some(mode) => (mode, None),
            None => (
                BUILTIN_STORAGE_MODE,
                Some(format!(
                    "{STORAGE_MODE_ENV}={v:?} is not private, shared or managed; keeping the \
                     default, {BUILTIN_STORAGE_MODE}"
                )),
            ),
        },
    }
}

/// The process-wide default storage mode. `TILECAST_STORAGE_MODE` is read on the first call only,
/// so the mode cannot change under live buffers; an unknown value warns once (through `log`,
/// or on stderr when no logger is set) and keeps the built-in default.
pub fn default_storage_mode() -> StorageMode {
    static MODE: OnceLock<StorageMode> = OnceLock::new();
    *MODE.get_or_init(|| {
        let raw = std::env::var(STORAGE_MODE_ENV).ok();
        let (mode, warning) = resolve_storage_mode(raw.as_deref());
        if let Some(w) = warning {
            crate::warn(&w);
        }
        mode
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_ignores_case_and_space() {
        assert_eq!(StorageMode::parse("Shared"), Some(StorageMode::Shared));
        assert_eq!(StorageMode::parse(" MANAGED\n"), Some(StorageMode::Managed));
        assert_eq!(StorageMode::parse("private"), Some(StorageMode::Private));
        assert_eq!(StorageMode::parse("gpu"), None);
        assert_eq!(StorageMode::parse(""), None);
    }

    #[test]
    fn resolve_warns_on_unknown_and_keeps_default() {
        assert_eq!(resolve_storage_mode(None), (StorageMode::Private, None));
        assert_eq!(resolve_storage_mode(Some("shared")), (StorageMode::Shared, None));
        let (mode, warning) = resolve_storage_mode(Some("fast"));
        assert_eq!(mode, StorageMode::Private);
        assert!(warning.unwrap().contains("\"fast\""));
    }

    #[test]
    fn an_empty_value_means_unset_like_every_other_variable() {
        assert_eq!(resolve_storage_mode(Some("")), (StorageMode::Private, None));
        assert_eq!(resolve_storage_mode(Some("  ")), (StorageMode::Private, None));
    }
}

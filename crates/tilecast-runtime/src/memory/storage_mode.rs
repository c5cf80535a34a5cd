//! Storage modes and the process-wide default read from `TILECAST_STORAGE_MODE`.

use std::sync::OnceLock;

pub use tilecast_core::StorageMode;

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

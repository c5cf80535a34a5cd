//! The backend pipeline cache, persisted to disk so a second process skips driver compiles.
//!
//! File layout (little endian): magic `TCPC`, format version, the adapter's cache key, the set
//! of pipeline keys compiled into the data, wgpu's opaque cache data, and an xxh3 checksum of
//! everything before it. A file that is truncated, corrupt, from another format version or from
//! another adapter/driver is ignored with a warning; deleting the directory is always safe.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::{Device, warn};

const MAGIC: &[u8; 4] = b"TCPC";
const VERSION: u32 = 1;

/// The environment variable that moves the cache directory.
pub const CACHE_DIR_ENV: &str = "TILECAST_CACHE_DIR";

/// Where the persisted cache stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiskCacheStatus {
    /// The backend has no pipeline cache (only Vulkan has one in wgpu), or no directory exists.
    Unsupported,
    /// No file existed yet.
    Empty,
    /// A file was loaded with this many bytes of backend data and pipeline keys.
    Loaded {
        /// Bytes of backend cache data.
        bytes: usize,
        /// Pipelines recorded in it.
        pipelines: usize,
    },
    /// A file existed but was ignored, for this reason.
    Rejected(String),
}

pub(crate) struct DiskCache {
    pub(crate) path: PathBuf,
    adapter_key: String,
    pub(crate) cache: wgpu::PipelineCache,
    pub(crate) status: DiskCacheStatus,
    loaded_keys: HashSet<u64>,
    compiled_keys: Mutex<HashSet<u64>>,
}

/// The cache directory: `TILECAST_CACHE_DIR`, else the OS cache directory's `tilecast/`.
pub fn default_cache_dir() -> Option<PathBuf> {
    match std::env::var_os(CACHE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::cache_dir().map(|d| d.join("tilecast")),
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    }
}

/// Parses a cache file; `Err` says why it cannot be used.
fn parse(bytes: &[u8], adapter_key: &str) -> Result<(HashSet<u64>, Vec<u8>), String> {
    if bytes.len() < 12 {
        return Err("file is truncated".into());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != sum {
        return Err("checksum mismatch (corrupt or truncated file)".into());
    }
    let mut r = Reader(body);
    if r.take(4) != Some(MAGIC.as_slice()) {
        return Err("not a tilecast pipeline cache".into());
    }
    if r.u32() != Some(VERSION) {
        return Err("written by another tilecast cache format".into());
    }
    let key_len = r.u32().ok_or("file is truncated")? as usize;
    let key = r.take(key_len).ok_or("file is truncated")?;
    if key != adapter_key.as_bytes() {
        return Err(format!(
            "written for another adapter or driver ({})",
            String::from_utf8_lossy(key)
        ));
    }
    let n = r.u32().ok_or("file is truncated")?;
    let keys =
        (0..n).map(|_| r.u64()).collect::<Option<HashSet<u64>>>().ok_or("file is truncated")?;
    let len = r.u64().ok_or("file is truncated")? as usize;
    let data = r.take(len).ok_or("file is truncated")?.to_vec();
    Ok((keys, data))
}

impl DiskCache {
    /// Opens (or starts) the cache for `device` under `dir`; `None` when the backend has none.
    pub(crate) fn open(device: &Device, dir: &Path) -> Option<DiskCache> {
        if !device.capabilities().features.pipeline_cache {
            return None;
        }
        let adapter_key = wgpu::util::pipeline_cache_key(&device.wgpu_adapter().get_info())?;
        let file: String = adapter_key
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
            .collect();
        let path = dir.join(format!("pipelines-{file}.tcpc"));
        let (status, loaded_keys, data) = match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                (DiskCacheStatus::Empty, HashSet::new(), None)
            }
            Err(e) => {
                let why = format!("cannot read: {e}");
                warn(&format!("ignoring pipeline cache {}: {why}", path.display()));
                (DiskCacheStatus::Rejected(why), HashSet::new(), None)
            }
            Ok(bytes) => match parse(&bytes, &adapter_key) {
                Ok((keys, data)) => (
                    DiskCacheStatus::Loaded { bytes: data.len(), pipelines: keys.len() },
                    keys,
                    Some(data),
                ),
                Err(why) => {
                    warn(&format!("ignoring pipeline cache {}: {why}", path.display()));
                    (DiskCacheStatus::Rejected(why), HashSet::new(), None)
                }
            },
        };
        let wd = device.wgpu_device();
        // SAFETY: `data` is only ever bytes that `PipelineCache::get_data` returned for an
        // adapter with this same `pipeline_cache_key` (checked above, with a checksum against
        // corruption); wgpu validates its own header again and `fallback` starts an empty cache
        // if the driver rejects the data.
        let cache = unsafe {
            wd.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                label: Some("tilecast pipeline cache"),
                data: data.as_deref(),
                fallback: true,
            })
        };
        Some(DiskCache {
            path,
            adapter_key,
            cache,
            status,
            loaded_keys,
            compiled_keys: Mutex::new(HashSet::new()),
        })
    }

    /// Records that the pipeline `key` was compiled through the cache; true when the loaded
    /// file already held it (a disk-cache hit).
    pub(crate) fn record(&self, key: u64) -> bool {
        self.compiled_keys.lock().unwrap_or_else(|p| p.into_inner()).insert(key);
        self.loaded_keys.contains(&key)
    }

    /// Writes the cache file atomically (temporary file, then rename). Returns bytes written.
    pub(crate) fn save(&self) -> std::io::Result<usize> {
        let Some(data) = self.cache.get_data() else {
            return Ok(0);
        };
        let keys: Vec<u64> = {
            let compiled = self.compiled_keys.lock().unwrap_or_else(|p| p.into_inner());
            compiled.union(&self.loaded_keys).copied().collect()
        };
        let mut out = Vec::with_capacity(data.len() + 64 + keys.len() * 8);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.adapter_key.len() as u32).to_le_bytes());
        out.extend_from_slice(self.adapter_key.as_bytes());
        out.extend_from_slice(&(keys.len() as u32).to_le_bytes());
        for k in &keys {
            out.extend_from_slice(&k.to_le_bytes());
        }
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&data);
        let sum = xxhash_rust::xxh3::xxh3_64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // Unique per process and save, so concurrent saves never write one temporary file.
        static SAVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = self.path.with_extension(format!("tmp{}-{n}", std::process::id()));
        std::fs::write(&tmp, &out)?;
        std::fs::rename(&tmp, &self.path)?;
        Ok(out.len())
    }
}

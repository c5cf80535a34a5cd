//! Autotuning of the gemm family: the candidate tiles worth timing on a device, and the file the
//! winners persist in (beside the pipeline cache), keyed by device, kernel, input type and
//! shape class. `tilecast bench --tune` times the candidates and records the fastest that
//! passes its check; later runs of `tilecast bench` use the recorded choice unless given tiles.
//!
//! The file is plain text, one choice per line: `device/kernel/dtype/class<TAB>BMxBNxBK threads
//! stages`, so it can be read, diffed and edited by hand.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tilecast_lang::{DType, Profile};

use crate::gemm::GemmConfig;
use crate::registry::{Bound, Entry, Problem};
use crate::{Error, Result};

/// The tuning file's name inside the cache directory.
pub const FILE_NAME: &str = "gemm-tuning.txt";

/// Rows at or below which a problem counts as decode-shaped (skinny tiles win there).
pub const SKINNY_ROWS: usize = 64;

/// The shape class a tuned choice applies to: `m<=64` (decode-shaped, any N and K), else each
/// of M, N, K rounded to the nearest power of two (`m4096n4096k4096`; 4000^3 shares 4096^3's
/// class, 1024^3 has its own: the best tiles differ with the number of threadgroups).
pub fn shape_class(m: usize, n: usize, k: usize) -> String {
    if m <= SKINNY_ROWS {
        return "m<=64".into();
    }
    let round = |x: usize| {
        let up = x.max(1).next_power_of_two();
        if up - x > x - up / 2 { up / 2 } else { up }
    };
    format!("m{}n{}k{}", round(m), round(n), round(k))
}

/// The key of one choice: device, kernel, input type and shape class.
pub fn key(device: &str, kernel: &str, input: DType, [m, n, k]: [usize; 3]) -> String {
    format!("{device}/{kernel}/{input}/{}", shape_class(m, n, k))
}

/// The key of `p`'s choice on `device` and its M, N and K, when `entry` belongs to the gemm
/// family (its problems have M, N and K and take tiles), else `None`.
pub fn key_for(device: &str, entry: &Entry, p: &Problem) -> Option<(String, [usize; 3])> {
    let dim = |name: &str| entry.dims.iter().position(|d| *d == name).map(|i| p.dims[i]);
    match (entry.bound, dim("M"), dim("N"), dim("K")) {
        (Bound::Compute, Some(m), Some(n), Some(k)) => {
            Some((key(device, entry.name, p.dtype, [m, n, k]), [m, n, k]))
        }
        _ => None,
    }
}

/// The tiles worth timing for `input` on `profile` for an `m x n` output, the default
/// ([`GemmConfig::for_shape`]) first. On matrix units: square-ish tiles over 4 or 8 subgroups and K steps of 16 to 64 (or,
/// decode-shaped, skinny tiles over 1 to 4 subgroups); otherwise SIMT register-blocked tiles.
/// Candidates that do not compile for the device (threadgroup memory, say) are for the caller
/// to skip.
pub fn candidates(
    profile: &Profile,
    input: DType,
    output: DType,
    m: usize,
    n: usize,
) -> Vec<GemmConfig> {
    let base = GemmConfig::for_shape(profile, input, output, m, n);
    // Tiles as the tuning file writes them (`BMxBNxBK threads stages`), except that matrix
    // tiles count subgroups (times the subgroup width below) where SIMT tiles count threads.
    let matrix = base.bk >= 16;
    let grid = if matrix && m <= SKINNY_ROWS {
        "16x32x128 2 1, 16x32x64 2 1, 16x16x128 1 1, 16x64x128 4 1, 32x32x64 2 1, 32x64x64 4 1"
    } else if matrix {
        "128x128x32 4 1, 128x128x16 4 1, 128x128x64 4 1, 128x128x32 8 1, 128x256x32 8 1, \
         256x128x32 8 1, 64x128x32 2 1, 64x64x32 4 1"
    } else {
        "128x128x8 256 2, 64x128x8 128 2, 128x64x8 128 2, 128x128x16 256 2, 128x128x8 256 3, \
         64x64x8 64 2"
    };
    let sg = if matrix { profile.simd_width.max(1) } else { 1 };
    let mut out = vec![base];
    let simt = GemmConfig { input, output, ..GemmConfig::default() };
    let tiles = grid.split(", ").map(|t| {
        let (bm, bn, bk, threads, stages) = parse_choice(t).expect("the candidates parse");
        GemmConfig { bm, bn, bk, threads: threads * sg, stages, ..base }
    });
    // The SIMT default last: kernels that keep SIMT tiles by default (batched_gemm) compare
    // against it, and it runs everywhere.
    for c in tiles.chain([simt]) {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Tuned choices, read from and written to one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tuning {
    path: Option<PathBuf>,
    choices: BTreeMap<String, GemmConfig>,
}

impl Tuning {
    /// The choices recorded under `dir` (none if the file does not exist yet; `None` keeps them
    /// in memory only). A line that does not parse is an error naming the file and line.
    pub fn load(dir: Option<&Path>) -> Result<Tuning> {
        let path = dir.map(|d| d.join(FILE_NAME));
        let mut t = Tuning { path: path.clone(), choices: BTreeMap::new() };
        let Some(path) = path else { return Ok(t) };
        let text = match std::fs::read_to_string(&path) {
            Ok(s) => s,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(t),
            Err(e) => return Err(file_error(&path, &e.to_string())),
        };
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let parsed = line.split_once('\t').and_then(|(k, v)| Some((k, parse_choice(v)?)));
            match parsed {
                Some((k, (bm, bn, bk, threads, stages))) => {
                    t.choices.insert(
                        k.to_string(),
                        GemmConfig { bm, bn, bk, threads, stages, ..GemmConfig::default() },
                    );
                }
                None => {
                    return Err(file_error(
                        &path,
                        &format!(
                            "line {} is not `key<TAB>BMxBNxBK threads stages`: {line:?}",
                            i + 1
                        ),
                    ));
                }
            }
        }
        Ok(t)
    }

    /// The recorded tiles for `key` (types are the caller's: only the tiling is recorded).
    pub fn get(&self, key: &str, input: DType, output: DType) -> Option<GemmConfig> {
        self.choices.get(key).map(|c| GemmConfig { input, output, ..*c })
    }

    /// Records `cfg` for `key`.
    pub fn set(&mut self, key: &str, cfg: &GemmConfig) {
        self.choices.insert(key.to_string(), *cfg);
    }

    /// Where the choices are written, if anywhere.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Writes every choice to the file (creating its directory).
    pub fn save(&self) -> Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        let mut text = String::from(
            "# tilecast gemm tuning: key<TAB>BMxBNxBK threads stages (written by tilecast bench --tune)\n",
        );
        for (k, c) in &self.choices {
            text.push_str(&format!("{k}\t{}x{}x{} {} {}\n", c.bm, c.bn, c.bk, c.threads, c.stages));
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| file_error(path, &e.to_string()))?;
        }
        std::fs::write(path, text).map_err(|e| file_error(path, &e.to_string()))
    }
}

fn parse_choice(v: &str) -> Option<(u32, u32, u32, u32, u32)> {
    let mut parts = v.split_whitespace();
    let tile: Vec<u32> = parts.next()?.split('x').map(|x| x.parse().ok()).collect::<Option<_>>()?;
    let threads = parts.next()?.parse().ok()?;
    let stages = parts.next()?.parse().ok()?;
    match (tile.as_slice(), parts.next()) {
        ([bm, bn, bk], None) if [*bm, *bn, *bk, threads, stages].iter().all(|&x| x > 0) => {
            Some((*bm, *bn, *bk, threads, stages))
        }
        _ => None,
    }
}

fn file_error(path: &Path, message: &str) -> Error {
    Error::Tuning { path: path.to_path_buf(), message: message.to_string() }
}

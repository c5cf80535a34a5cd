//! The attention family: flash attention forward over a prompt ([`prefill`]) and decode
//! attention against a KV cache, contiguous or paged, split over the sequence with a merge pass
//! ([`decode`]). [`AttentionConfig::choose`] is the one place the block sizes are decided.

pub mod decode;
pub mod entries;
mod key_rows;
mod online;
pub mod prefill;

use tilecast_lang::{DType, Profile, compile};

use crate::error::{Error, Result};

pub use prefill::attention;

/// Checks a paged cache's block table `table[B, per_seq]` and lengths `lens[B]` against a pool
/// of `pool` pages of `page` tokens: each sequence fits its row of the table, and every page
/// it uses is inside the pool. The kernels cannot report a bad index (a page past the pool
/// would read as zeros), so engines handing tilecast their own tables run this first (the
/// Python operation does).
pub fn check_block_table(
    table: &[u32],
    lens: &[u32],
    per_seq: usize,
    pool: usize,
    page: usize,
) -> std::result::Result<(), String> {
    if table.len() != lens.len() * per_seq {
        return Err(format!(
            "the block table holds {} entries; {} sequences of {per_seq} pages need {}",
            table.len(),
            lens.len(),
            lens.len() * per_seq
        ));
    }
    for (b, &len) in lens.iter().enumerate() {
        let used = (len as usize).div_ceil(page);
        if used > per_seq {
            return Err(format!(
                "sequence {b} has {len} tokens: {used} pages of {page}, but its block table row holds {per_seq}"
            ));
        }
        if let Some((i, &pg)) =
            table[b * per_seq..][..used].iter().enumerate().find(|(_, pg)| **pg as usize >= pool)
        {
            return Err(format!(
                "block table entry [{b}, {i}] is page {pg}, past the cache's {pool} pages"
            ));
        }
    }
    Ok(())
}

/// Largest head size: a `[bm, D]` accumulator and the K/V blocks must fit one threadgroup.
pub const MAX_HEAD_DIM: usize = 256;

/// Block sizes of the prefill kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionConfig {
    /// Query rows per threadgroup.
    pub bm: u32,
    /// Keys per pipelined block.
    pub bn: u32,
    /// Head size.
    pub d: u32,
    /// K/V buffers in flight.
    pub stages: u32,
    /// Threads per threadgroup.
    pub threads: u32,
    /// Columns of each of the accumulator's (and V block's) column chunks: `d` for one
    /// accumulator, less to hold it as several matrices of that width.
    pub acc_columns: u32,
    /// Element type of Q, K, V and O.
    pub input: DType,
}

/// A head size the kernels take: a multiple of 16 up to [`MAX_HEAD_DIM`].
pub fn check_head_dim(d: usize) -> std::result::Result<(), String> {
    if d == 0 || !d.is_multiple_of(16) || d > MAX_HEAD_DIM {
        return Err(format!(
            "head size D = {d} is not supported: it must be a multiple of 16 from 16 to {MAX_HEAD_DIM}"
        ));
    }
    Ok(())
}

impl AttentionConfig {
    /// The largest blocks whose tiles fit the profile's threadgroup memory and put both
    /// products on matrix units (where the profile has them; else the largest that fit), tried
    /// in order:
    /// 64 query rows (a 64x64 score block, two K/V stages) down to 8 rows and 8 keys (what a
    /// 256-wide bf16 head, staged as f32, leaves room for in 32 KiB). Each candidate is compiled: the compiler's own accounting of
    /// threadgroup memory (padding and scratch included) decides, not an estimate here.
    pub fn choose(d: usize, input: DType, profile: &Profile, lse: bool) -> Result<AttentionConfig> {
        check_head_dim(d)
            .map_err(|message| Error::Problem { kernel: "attention".into(), message })?;
        // Where the native back end holds the whole kernel on workgroup-scope matrices: the
        // blocks of `WORKGROUP_BLOCKS` for this head size.
        if profile.workgroup_matrix.is_some() {
            let (bm, bn, threads, acc_columns) = workgroup_blocks(d);
            let cfg =
                AttentionConfig { bm, bn, d: d as u32, stages: 1, threads, acc_columns, input };
            if let Ok(c) = compile(&prefill::attention(&cfg, lse), profile)
                && c.native_lowered().is_some()
            {
                return Ok(cfg);
            }
        }
        let (mut last, mut fallback) = (None, None);
        for (bm, bn, stages, threads) in CANDIDATES {
            let d = d as u32;
            let cfg = AttentionConfig { bm, bn, d, stages, threads, acc_columns: d, input };
            match compile(&prefill::attention(&cfg, true), profile) {
                Ok(c) if both_products_on_matrix_units(&c, profile) => return Ok(cfg),
                Ok(_) => fallback = fallback.or(Some(cfg)),
                Err(e) => last = Some(e),
            }
        }
        fallback.ok_or_else(|| Error::Compile(last.expect("there are candidates")))
    }
}

impl std::fmt::Display for AttentionConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} query rows x {} keys per block, head size {}, {} K/V stage(s), {} threads",
            self.bm, self.bn, self.d, self.stages, self.threads
        )?;
        if self.acc_columns < self.d {
            write!(f, ", accumulator in chunks of {} columns", self.acc_columns)?;
        }
        Ok(())
    }
}

/// Whether the compiler put both products of an attention kernel on matrix units (the scores
/// through their matrix twin, `scores_mma`), or the profile has none to put them on.
pub(crate) fn both_products_on_matrix_units(
    c: &tilecast_lang::Compiled,
    profile: &Profile,
) -> bool {
    if profile.matrix.is_empty() {
        return true;
    }
    let on = |name: &str| c.matrix_fragments().iter().any(|f| f == name);
    on("scores_mma") && (on("acc") || on("acc0"))
}

/// Query rows, keys per block, threads and accumulator chunk width of the prefill kernel on
/// workgroup-scope matrices, by head size, the fastest measured on an H200 (f16, causal): 256 x
/// 64 over 512 threads for heads up to 64 (8x16x1024^2: 183 us, against 199 for 128 x 64), 128
/// x 64 over 256 up to 128 (4x32x4096^2: 3.07 ms, against 3.37 for 128 x 32 and 8.60 for 64 x
/// 64 over 128), 128 x 32 over 256 for wider ones (8x16x1024^2 D256: 0.87 ms, against 1.46
/// for 128 x 16), their accumulator as chunks of 128 columns where that divides the head (813 us
/// against 855 whole; 64 columns 929-933 us).
fn workgroup_blocks(d: usize) -> (u32, u32, u32, u32) {
    let d = d as u32;
    match d {
        0..=64 => (256, 64, 512, d),
        65..=128 => (128, 64, 256, d),
        _ if d.is_multiple_of(128) => (128, 32, 256, 128),
        _ => (128, 32, 256, d),
    }
}

/// (bm, bn, stages, threads), largest first, in the order of measured speed where several fit
/// (1x32x2048x2048x128 causal f16: 32x32 in 1.98 ms against 2.69 for 64x32); 256-wide heads
/// take 16x32 on 128 threads with the scores SIMT, faster than 64 threads with the scores on
/// matrix units. The smallest blocks take fewer threads so every thread still holds a score.
const CANDIDATES: [(u32, u32, u32, u32); 13] = [
    (64, 64, 2, 128),
    (32, 64, 1, 256),
    (64, 32, 1, 256),
    (32, 32, 1, 128),
    (64, 32, 2, 128),
    (64, 32, 1, 128),
    (64, 16, 2, 128),
    (64, 16, 1, 128),
    (16, 32, 1, 128),
    (16, 16, 1, 128),
    (8, 16, 1, 64),
    (8, 8, 1, 64),
    (8, 8, 1, 32),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::decode::merge_pass;

    /// Metal without a Mac: for every head size, the f16 prefill kernel's MSL runs both
    /// products on 8x8 simdgroup matrices (the scores through their matrix twin) within 32 KiB.
    #[test]
    fn metal_runs_both_products_on_simdgroup_matrices() {
        let p = Profile::named("metal-apple7").unwrap();
        for d in [64usize, 96, 128, 256] {
            let cfg = AttentionConfig::choose(d, DType::F16, &p, true).unwrap();
            let c = compile(&attention(&cfg, true), &p).unwrap();
            assert!(both_products_on_matrix_units(&c, &p), "D {d}: {}", c.ir_lowered());
            assert!(c.shared_bytes() <= 32768, "D {d}: {} bytes", c.shared_bytes());
            let msl = tilecast_lang::back::emit::msl(&c).unwrap();
            assert!(msl.contains("simdgroup_multiply_accumulate"), "D {d}");
            assert!(msl.contains("simdgroup_store(") && msl.contains("scores_stage"), "D {d}");
        }
        // And on NVIDIA's 16x16 cooperative matrices, in 48 KiB (256-wide heads keep the
        // scores SIMT there: 16-row blocks split K over 128 threads, which ran faster).
        let p = Profile::named("vulkan-nvidia").unwrap();
        for d in [64usize, 96, 128] {
            let cfg = AttentionConfig::choose(d, DType::F16, &p, true).unwrap();
            let c = compile(&attention(&cfg, false), &p).unwrap();
            assert!(both_products_on_matrix_units(&c, &p), "D {d}: {}", c.ir_lowered());
            assert!(c.wgsl().contains("coopStoreT("), "D {d}");
        }
    }

    /// The decode step's structure on NVIDIA's profile, contiguous and paged: K and V rows
    /// load as vectors, both under one test, and the loop over blocks holds no barrier (its
    /// scores are reductions in a row's lanes).
    #[test]
    fn decode_blocks_stream_through_registers_without_barriers() {
        let p = Profile::named("vulkan-nvidia").unwrap();
        for page in [None, Some(16)] {
            let shape = decode::DecodeShape {
                batch: 1,
                kv_heads: 8,
                group_rows: 4,
                len: 32768,
                d: 128,
                page,
            };
            let cfg = decode::DecodeConfig::choose(shape, DType::F16, &p).unwrap();
            let c = compile(&decode::split_pass(&cfg), &p).unwrap();
            let ir = c.ir_lowered().to_string();
            let lines: Vec<&str> = ir.lines().collect();
            let start = lines.iter().position(|l| l.starts_with("  for ")).expect("a block loop");
            let body: Vec<&str> =
                lines[start + 1..].iter().take_while(|l| l.starts_with("    ")).copied().collect();
            let text = body.join("\n");
            assert!(!text.contains("barrier"), "{page:?}: {text}");
            assert!(text.contains("issued with the next load"), "{page:?}: {text}");
            assert!(text.contains("vec4 when the row length"), "{page:?}: {text}");
            assert!(text.contains("lanes per row exchanging within a subgroup"), "{page:?}");
        }
    }

    /// On NVIDIA's profile the prefill kernel (f16 and bf16, every head size) runs on
    /// workgroup-scope matrices end to end: scores, probabilities, accumulator and row
    /// statistics are matrices of the whole threadgroup, nothing in threadgroup memory, row sums
    /// on the matrix units, masks only on the blocks that need them, 256-wide heads'
    /// accumulators in two chunks. Where its WGSL would
    /// overflow threadgroup memory only the native module runs it. The logsumexp variant saves
    /// its statistic from a matrix too. Other profiles keep today's path.
    #[test]
    fn prefill_runs_on_workgroup_matrices_where_the_profile_has_them() {
        let p = Profile::named("vulkan-nvidia").unwrap();
        for input in [DType::F16, DType::BF16] {
            for d in [64usize, 96, 128, 256] {
                let cfg = AttentionConfig::choose(d, input, &p, false).unwrap();
                assert_eq!((cfg.bm, cfg.stages), (if d <= 64 { 256 } else { 128 }, 1));
                let c = compile(&attention(&cfg, false), &p).unwrap();
                let native = c.native_lowered().unwrap_or_else(|| panic!("{input} D {d}"));
                assert_eq!(c.shared_bytes(), 0, "{input} D {d}");
                for expected in [
                    "reduce_max scores axis 1 -> block_max  [block_max as one workgroup-scope matrix, one matrix row reduction",
                    "gemm probs x ones += block_sum  [one multiply-add of workgroup-scope matrices]",
                    "copy scores -> probs  [workgroup-scope matrices: the accumulator converted",
                    "copy rescale -> rescale_x",
                ] {
                    assert!(native.contains(expected), "{input} D {d}: {expected}\n{native}");
                }
                // Two loops over key blocks; only the second (diagonal, ragged) masks.
                assert_eq!(native.matches("  for ").count(), 2, "{native}");
                // 256-wide heads hold the accumulator as two matrices of 128 columns, which
                // share one spread of the rescale factor per block (and one at the end).
                let chunks = if d == 256 { 2 } else { 1 };
                assert_eq!(cfg.acc_columns, d as u32 / chunks, "{input} D {d}");
                let spread = format!("copy rescale -> rescale_x{} ", cfg.acc_columns);
                assert_eq!(native.matches(&spread).count(), 3, "{input} D {d}: {native}");
                assert_eq!(native.contains("+= acc1"), d == 256, "{input} D {d}");
                assert_eq!(native.matches("scores[own], -inf)").count(), 1, "{native}");
                assert!(!native.contains("-> threadgroup memory"), "{native}");
                assert!(c.native_spirv().is_ok());
                if d >= 128 {
                    assert!(c.native_only().is_some(), "{input} D {d}: WGSL overflows");
                }
            }
        }
        let lse = AttentionConfig::choose(128, DType::F16, &p, true).unwrap();
        let native =
            compile(&attention(&lse, true), &p).unwrap().native_lowered().unwrap().to_string();
        assert!(native.contains("save stat_out -> LSE[bz, by, (bx * 128) ..]"), "{native}");
        let lp = Profile::named("vulkan-lavapipe").unwrap();
        let cfg = AttentionConfig::choose(128, DType::F16, &lp, false).unwrap();
        assert!(compile(&attention(&cfg, false), &lp).unwrap().native_lowered().is_none());
    }

    #[test]
    fn block_tables_are_checked() {
        // Two sequences of 3 pages of 16 in a pool of 6.
        let table = [0, 5, 2, 4, 1, 3];
        assert_eq!(check_block_table(&table, &[48, 33], 3, 6, 16), Ok(()));
        // The second sequence uses only its first page: entry [1, 1] = 9 is not read.
        assert_eq!(check_block_table(&[0, 5, 2, 4, 9, 9], &[40, 16], 3, 6, 16), Ok(()));
        let past = check_block_table(&[0, 5, 2, 4, 6, 3], &[48, 20], 3, 6, 16).unwrap_err();
        assert_eq!(past, "block table entry [1, 1] is page 6, past the cache's 6 pages");
        let long = check_block_table(&table, &[49, 1], 3, 6, 16).unwrap_err();
        assert!(long.contains("sequence 0 has 49 tokens: 4 pages of 16"), "{long}");
        let short = check_block_table(&table[..5], &[1, 1], 3, 6, 16).unwrap_err();
        assert!(short.contains("holds 5 entries"), "{short}");
    }

    #[test]
    fn kernels_compile_everywhere() {
        for name in Profile::NAMES {
            let p = Profile::named(name).unwrap();
            for input in [DType::F16, DType::BF16] {
                for d in [64usize, 96, 128, 256] {
                    let cfg = AttentionConfig::choose(d, input, &p, true)
                        .unwrap_or_else(|e| panic!("{name} {input} {d}: {e}"));
                    eprintln!("{name} {input} d{d}: {cfg:?}");
                    for page in [None, Some(16)] {
                        let shape = decode::DecodeShape {
                            batch: 1,
                            kv_heads: 8,
                            group_rows: 4,
                            len: 4096,
                            d,
                            page,
                        };
                        let dc = decode::DecodeConfig::choose(shape, input, &p)
                            .unwrap_or_else(|e| panic!("{name} {input} {d} {page:?}: {e}"));
                        eprintln!("  decode {page:?}: {dc}");
                        compile(&merge_pass(&dc), &p)
                            .unwrap_or_else(|e| panic!("{name} {input} {d} merge: {e}"));
                    }
                }
            }
        }
    }

    /// Both caches load a group ahead; a paged one reads its page indices a group before
    /// that, and the strategy line says so.
    #[test]
    fn decode_reads_page_indices_ahead_of_the_loads_ahead() {
        let p = Profile::named("vulkan-nvidia").unwrap();
        for (page, pages_ahead) in [(None, None), (Some(16), Some(2))] {
            let shape = decode::DecodeShape {
                batch: 1,
                kv_heads: 8,
                group_rows: 4,
                len: 4096,
                d: 128,
                page,
            };
            let cfg = decode::DecodeConfig::choose(shape, DType::F16, &p).unwrap();
            assert_eq!(cfg.pages_ahead(), pages_ahead, "{cfg}");
            assert!(cfg.to_string().contains("a group ahead"), "{cfg}");
            assert_eq!(cfg.to_string().contains("page indices 2 groups ahead"), page.is_some());
        }
    }

    /// Decode loads no more key blocks together than a split has: short caches take one or
    /// two, long ones four (contiguous and paged).
    #[test]
    fn decode_loads_no_more_blocks_together_than_a_split_has() {
        let p = Profile::named("vulkan-nvidia").unwrap();
        for (len, page, expected) in [
            (1, None, 1),
            (16, None, 1),
            (77, None, 2),
            (1024, None, 2),
            (2048, None, 4),
            (32768, None, 4),
            (16, Some(16), 1),
            (512, Some(16), 2),
            (32768, Some(16), 4),
        ] {
            let shape =
                decode::DecodeShape { batch: 1, kv_heads: 8, group_rows: 4, len, d: 128, page };
            let cfg = decode::DecodeConfig::choose(shape, DType::F16, &p).unwrap();
            let per_split = len.div_ceil(cfg.bn as usize).div_ceil(cfg.splits as usize);
            assert!(cfg.stages as usize <= per_split.max(1), "L {len} {page:?}: {cfg}");
            assert_eq!(cfg.stages, expected, "L {len} {page:?}: {cfg}");
        }
    }
}

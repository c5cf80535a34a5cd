//! The gemm family's tiles: [`GemmConfig`] and the constructors that pick tiles for a profile
//! and problem shape, and the shape of the family's decision ([`GemmStrategy`]).
//! [`super::strategy`] makes that decision; nothing else decides a gemm's tiles.

use std::fmt;

use tilecast_lang::DType;

/// Tile configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmConfig {
    /// Rows of C per threadgroup.
    pub bm: u32,
    /// Columns of C per threadgroup.
    pub bn: u32,
    /// K per pipeline step.
    pub bk: u32,
    /// Threads per threadgroup.
    pub threads: u32,
    /// Pipeline stages.
    pub stages: u32,
    /// Element type of A and B.
    pub input: DType,
    /// Element type of the accumulator and C.
    pub output: DType,
}

/// The default is the fastest SIMT tiles of a sweep (`tilecast bench --tile --threads
/// --stages`): 128x128x8 tiles, 256 threads with 8x8 register blocks, 2 stages.
impl Default for GemmConfig {
    fn default() -> GemmConfig {
        GemmConfig {
            bm: 128,
            bn: 128,
            bk: 8,
            threads: 256,
            stages: 2,
            input: DType::F16,
            output: DType::F32,
        }
    }
}

impl GemmConfig {
    /// The default for `input` -> `output` on `profile`: where the profile reports a square
    /// matrix shape for these types, tiles the selection pass puts on matrix units (K steps of
    /// 32, 128x128 with 4 subgroups of 4x4 matrices, or 64x64 with 4 where threadgroup memory
    /// is 32 KiB), one stage; otherwise the SIMT default. 128x128x32 over 4 subgroups was the
    /// fastest of the sweep (f16 4096^3: 0.69 ms against 0.80 for the next, 128x128x16).
    pub fn for_profile(
        profile: &tilecast_lang::Profile,
        input: DType,
        output: DType,
    ) -> GemmConfig {
        let simt = GemmConfig { input, output, ..GemmConfig::default() };
        if !has_matrix_units(profile, input, output) {
            return simt;
        }
        let small = profile.max_shared_bytes < 48 * 1024;
        let (tile, bk, groups) = if small { (64, 16, 4) } else { (128, 32, 4) };
        GemmConfig {
            bm: tile,
            bn: tile,
            bk,
            threads: groups * profile.simd_width,
            stages: 1,
            ..simt
        }
    }
}

impl GemmConfig {
    /// [`for_profile`](Self::for_profile) for a problem with `m` rows. Decode-like problems
    /// (m <= 64) on matrix units get tiles 32 columns wide, 16 rows for m <= 32 and 64 rows
    /// above, with one subgroup per 16x16 of the tile and K steps of 128 (64 for 64-row tiles
    /// where threadgroup memory is 32 KiB): the fastest decode tiles measured (f16
    /// 16x4096x4096: 36.5 us for 16x32x128 against 42.0 for 16x16x128). 32-row tiles are not
    /// used: they were slower than 16-row ones. [`for_shape`](Self::for_shape) adds the K
    /// split for 16-row tiles.
    pub fn for_problem(
        profile: &tilecast_lang::Profile,
        input: DType,
        output: DType,
        m: usize,
    ) -> GemmConfig {
        let base = GemmConfig::for_profile(profile, input, output);
        if !has_matrix_units(profile, input, output) || m > 64 {
            return base;
        }
        let bm = if m <= 32 { 16 } else { 64 };
        let small = profile.max_shared_bytes < 48 * 1024;
        let bk = if bm > 16 && small { 64 } else { 128 };
        GemmConfig { bm, bn: 32, bk, threads: bm / 8 * profile.simd_width, ..base }
    }
}

/// Threadgroups below which 128x128 matrix tiles leave the GPU idle: two at once on each of
/// 132 multiprocessors (an H100 or H200).
const SMALL_GRID: usize = 256;

impl GemmConfig {
    /// [`for_problem`](Self::for_problem) for an `m x n` output: where 128x128 matrix tiles
    /// would make fewer than 256 threadgroups, 64x64 tiles over the same 4 subgroups keep more
    /// of the GPU busy (`mid_rows` picks their K steps and subgroups). Where
    /// the skinny decode tiles would also make fewer than 256 threadgroups, each gets 8
    /// subgroups and K steps of 256: the selection pass then splits each K step over 4
    /// subgroups per matrix (a K split), so more loads are in flight (f16 16x4096x4096: 28.0 to
    /// 22.5 us). With more threadgroups the split is slower, so those keep the skinny tiles
    /// with wider columns: 16-row ones take 16x64x64 over 4 subgroups (one matrix each),
    /// 64-row ones 64x64x32 over the same 8 subgroups.
    pub fn for_shape(
        profile: &tilecast_lang::Profile,
        input: DType,
        output: DType,
        m: usize,
        n: usize,
    ) -> GemmConfig {
        let c = GemmConfig::for_problem(profile, input, output, m);
        let grid = m.div_ceil(c.bm as usize) * n.div_ceil(c.bn as usize);
        if (c.bm, c.bn) == (128, 128) && grid < SMALL_GRID {
            return Self::mid_rows(c, profile, input, m, n);
        }

        if c.bm == 16 && grid < SMALL_GRID {
            // 32 KiB of threadgroup memory (Metal) holds 256-deep K steps of f16, not of f32.
            let small = profile.max_shared_bytes < 48 * 1024;
            let bk = if small && staged_type(input).size() > 2 { 128 } else { 256 };
            return GemmConfig { bk, threads: 8 * profile.simd_width, ..c };
        }
        if c.bm == 16 {
            return GemmConfig { bn: 64, bk: 64, threads: 4 * profile.simd_width, ..c };
        }
        if c.bm == 64 && c.bn == 32 && grid >= SMALL_GRID {
            return GemmConfig { bn: 64, bk: 32, ..c };
        }
        c
    }
}

impl GemmConfig {
    /// Tiles where 128x128 ones would make too few threadgroups (more than 64 rows: batches of
    /// prompt tokens, small square gemms), chosen by how many 64x64 tiles the output holds. A
    /// few (up to 192) take 64x64 tiles with 128-deep K steps over 8 subgroups, so each
    /// threadgroup has more loads in flight; up to 384, 64x64x64 over 4 subgroups; more,
    /// 64x128x32 over 8. Each beat 64x64x32 tiles over 4 subgroups (f16 128x4096x4096: 55.0
    /// us against 111.6). Matrix units with 2-byte staging only (f32 tiles twice the size keep
    /// 64x64x32); 32 KiB of threadgroup memory (Metal) halves the first case's K steps (where a
    /// profile starts from 128x128 tiles).
    fn mid_rows(
        c: GemmConfig,
        profile: &tilecast_lang::Profile,
        input: DType,
        m: usize,
        n: usize,
    ) -> GemmConfig {
        let base = GemmConfig { bm: 64, bn: 64, ..c };
        if c.bk < 16 || staged_type(input).size() != 2 {
            return base;
        }
        let small = profile.max_shared_bytes < 48 * 1024;
        let sg = profile.simd_width;
        let tiles = m.div_ceil(64) * n.div_ceil(64);
        if tiles <= 192 {
            GemmConfig { bk: if small { 64 } else { 128 }, threads: 8 * sg, ..base }
        } else if tiles <= 384 {
            GemmConfig { bk: 64, threads: 4 * sg, ..base }
        } else {
            GemmConfig { bn: 128, bk: 32, threads: 8 * sg, ..base }
        }
    }
}

/// Whether `profile` reports a square matrix shape for `input` (as staged) x `input` ->
/// `output` (what the selection pass needs to put the accumulator on matrix units).
pub(crate) fn has_matrix_units(
    profile: &tilecast_lang::Profile,
    input: DType,
    output: DType,
) -> bool {
    let input = staged_type(input);
    profile.simd_width > 0
        && profile.matrix.iter().any(|m| {
            m.mnk[0] == m.mnk[1]
                && m.mnk[1] == m.mnk[2]
                && m.input == input.to_string()
                && m.accumulator == output.to_string()
        })
}

/// The arithmetic type a stored input is staged in by [`gemm`] and [`scaled_gemm`]. fp8
/// decodes exactly to f16 (every e4m3 and e5m2 value, subnormals included, is an f16), so fp8
/// gemms run on f16 matrix units where the device has them. bf16 decodes exactly to f32: its
/// range is f32's, and f16 would overflow to inf past 65504 or flush small values, so plain
/// conversion to f16 is never used; [`super::bf16::bf16_gemm`] scales rows and columns into
/// f16's range first.
pub(crate) fn staged_type(input: DType) -> DType {
    match input {
        DType::BF16 => DType::F32,
        DType::F8E4M3 | DType::F8E5M2 => DType::F16,
        d => d,
    }
}

impl GemmConfig {
    /// The tiles [`super::bf16`]'s kernels take where the f16 gemm of the same problem takes
    /// `f16`: their windows are staged through registers (scaled there), so 128x128 tiles take
    /// K steps of 16 (4096^3: 2.81 ms against 4.56 with 32), and 16-row decode tiles without a
    /// K split take 16x64x64 over 4 subgroups; 64-row decode tiles and the K split stay as for
    /// f16. Where threadgroup memory is 32 KiB (Metal) the K steps of the K split and of 64-row
    /// tiles are halved: the scale search's scratch comes on top of the f16 tiles.
    pub fn for_bf16(f16: GemmConfig, profile: &tilecast_lang::Profile) -> GemmConfig {
        let c = GemmConfig { input: DType::BF16, ..f16 };
        let small = profile.max_shared_bytes < 48 * 1024;
        match (c.bm, c.bn, c.bk) {
            (16, 32, 256) if small => GemmConfig { bk: 128, ..c },
            (64, 64, 32) if small => GemmConfig { bn: 32, bk: 64, ..c },
            (128, 128, 32) => GemmConfig { bk: 16, ..c },
            // `mid_rows`'s deep K steps leave no room for the scale search's scratch.
            (64, 64, 128) => GemmConfig { bk: if small { 32 } else { 64 }, ..c },
            (64, 64, 64) if small => GemmConfig { bk: 32, ..c },
            (16, 32, 128) => GemmConfig { bn: 64, bk: 64, threads: c.threads * 2, ..c },
            // Many 64-row tiles: 64x32x128 is faster than f16's 64x64x32 for bf16.
            (64, 64, 32) => GemmConfig { bn: 32, bk: 128, ..c },
            _ => c,
        }
    }
}

/// Whether bf16 gemms run on `profile`'s f16 matrix units (through [`super::bf16`]) instead
/// of the SIMT path with f32 staging.
pub fn bf16_on_matrix_units(profile: &tilecast_lang::Profile) -> bool {
    has_matrix_units(profile, DType::F16, DType::F32)
}

/// The way a gemm-family problem runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmPath {
    /// One launch on SIMT tiles: the profile has no matrix units for these types.
    Simt,
    /// One launch with the accumulator on matrix units.
    Matrix,
    /// bf16 in one launch on f16 matrix units: each threadgroup searches its rows' and
    /// columns' power-of-two scales and stages scaled f16 (decode-shaped gemms, where a pass
    /// over B costs more than the search).
    Bf16Scaled,
    /// bf16 operands converted once to f16 copies scaled by powers of two (scratch buffers),
    /// then the f16 kernel unscales in its epilogue.
    Bf16Converted,
    /// fp8 operands decoded once to f16 copies (exact), then the f16 scaled kernel.
    Fp8Decoded,
    /// Quantized weights (`qgemm`) decoded in each K step into threadgroup tiles.
    QuantFused,
    /// Quantized weights (`qgemm`) decoded once to an f16 copy (scratch), then the f16 kernel.
    QuantDecoded,
}

impl GemmPath {
    /// The name `emit` and `bench --json` print.
    pub fn name(self) -> &'static str {
        match self {
            GemmPath::Simt => "simt",
            GemmPath::Matrix => "matrix",
            GemmPath::Bf16Scaled => "bf16-scaled",
            GemmPath::Bf16Converted => "bf16-converted",
            GemmPath::Fp8Decoded => "fp8-decoded",
            GemmPath::QuantFused => "quant-fused",
            GemmPath::QuantDecoded => "quant-decoded",
        }
    }
}

/// A decided gemm: the path and the tiles its (last) kernel runs. How each K step is split
/// among the subgroups of a matrix block follows from the tiles and threads and is decided by
/// the selection pass (`k_split` in `emit --target ir`'s lowered listing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmStrategy {
    /// The way it runs.
    pub path: GemmPath,
    /// Tiles, threads, stages and the types of the kernel that does the multiplication.
    pub tiles: GemmConfig,
    /// Whether the profile has matrix units for the tiles' staged types.
    pub matrix_units: bool,
    /// On workgroup-scope matrices (the native SPIR-V back end on NVIDIA): the kernel is
    /// built with M, N and K fixed at the problem's, which the driver needs to run it fast.
    pub workgroup_matrix: bool,
}

impl fmt::Display for GemmStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.tiles;
        write!(
            f,
            "{}: tiles {}x{}x{}, {} threads, {} stage(s), {} x {} -> {}{}",
            self.path.name(),
            t.bm,
            t.bn,
            t.bk,
            t.threads,
            t.stages,
            t.input,
            t.input,
            t.output,
            if self.workgroup_matrix {
                " on workgroup-scope matrices (shape fixed)"
            } else if self.matrix_units {
                " on matrix units"
            } else {
                ""
            }
        )
    }
}

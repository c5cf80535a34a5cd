//! The quantized linear's decision, pinned: for a spread of shapes, formats, profiles and
//! caller's tiles, the path and tiles it takes, written down from `qlinear::gemm::plan` before
//! the decision moved into [`super::strategy::decide`] (issue 37), so that move provably
//! changed nothing; and the `qgemm` entry's plan runs what `decide` chose.

use tilecast_lang::DType::{F16, F32};
use tilecast_lang::Profile;

use super::config::{GemmConfig, GemmPath, GemmStrategy};
use super::strategy::{GemmKind, decide};
use crate::qlinear::WeightFormat::{self, Mlx8, Q4_0, Q4K};
use crate::registry::{Options, Problem, Strategy};
use GemmPath::{QuantDecoded as Decoded, QuantFused as Fused};

const NV: &str = "vulkan-nvidia";
const LP: &str = "vulkan-lavapipe";
const AP: &str = "metal-apple7";

/// The caller chose the workgroup-scope tile of `vulkan-nvidia`.
const WG: Option<GemmConfig> =
    Some(GemmConfig { bm: 128, bn: 256, bk: 32, threads: 256, stages: 1, input: F16, output: F32 });

/// The caller chose other tiles (K steps shorter than a unit: rounded up).
const OWN: Option<GemmConfig> =
    Some(GemmConfig { bm: 64, bn: 64, bk: 16, threads: 128, stages: 2, input: F16, output: F32 });

/// A case: shape `MxNxK`, format, profile, caller's tiles; then the path, the tiles
/// `[bm, bn, bk, threads, stages]`, matrix units, workgroup-scope matrices.
type Case =
    (&'static str, WeightFormat, &'static str, Option<GemmConfig>, GemmPath, [u32; 5], bool, bool);

/// What the code decided before the move (f16 activations, MLX groups of 64).
#[rustfmt::skip]
const CASES: &[Case] = &[
        ("1x4096x4096", Q4_0, NV, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("8x14336x4096", Q4_0, NV, None, Fused, [16, 64, 64, 128, 1], true, false),
        ("16x4096x4096", Q4_0, NV, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("33x37x96", Q4_0, NV, None, Fused, [64, 32, 128, 256, 1], true, false),
        ("33x37x96", Q4_0, NV, WG, Fused, [128, 256, 32, 256, 1], true, false),
        ("33x37x96", Q4_0, NV, OWN, Fused, [64, 64, 32, 128, 1], true, false),
        ("64x4096x14336", Q4_0, NV, None, Fused, [64, 32, 128, 256, 1], true, false),
        ("128x14336x4096", Q4_0, NV, None, Fused, [64, 128, 32, 256, 1], true, false),
        ("255x4096x4096", Q4_0, NV, None, Fused, [64, 64, 64, 128, 1], true, false),
        ("256x4096x4096", Q4_0, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("256x14336x4096", Q4_0, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("300x37x96", Q4_0, NV, None, Decoded, [64, 64, 128, 256, 1], true, false),
        ("512x14336x4096", Q4_0, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("512x14336x4096", Q4_0, NV, WG, Decoded, [128, 256, 32, 256, 1], true, true),
        ("512x14336x4096", Q4_0, NV, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("1024x1024x1024", Q4_0, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("4096x14336x4096", Q4_0, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("4000x4096x4096", Q4_0, NV, None, Decoded, [128, 128, 32, 128, 1], true, false),
        ("4000x4096x4096", Q4_0, NV, WG, Decoded, [128, 256, 32, 256, 1], true, true),
        ("4000x4096x4096", Q4_0, NV, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("4096x4096x14336", Q4_0, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("1x4096x4096", Q4K, NV, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("8x14336x4096", Q4K, NV, None, Fused, [16, 64, 64, 128, 1], true, false),
        ("16x4096x4096", Q4K, NV, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("33x37x96", Q4K, NV, None, Fused, [64, 32, 128, 256, 1], true, false),
        ("33x37x96", Q4K, NV, WG, Fused, [128, 256, 64, 256, 1], true, false),
        ("33x37x96", Q4K, NV, OWN, Fused, [64, 64, 64, 128, 1], true, false),
        ("64x4096x14336", Q4K, NV, None, Fused, [64, 32, 128, 256, 1], true, false),
        ("128x14336x4096", Q4K, NV, None, Fused, [64, 128, 64, 256, 1], true, false),
        ("255x4096x4096", Q4K, NV, None, Fused, [64, 64, 64, 128, 1], true, false),
        ("256x4096x4096", Q4K, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("256x14336x4096", Q4K, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("300x37x96", Q4K, NV, None, Decoded, [64, 64, 128, 256, 1], true, false),
        ("512x14336x4096", Q4K, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("512x14336x4096", Q4K, NV, WG, Decoded, [128, 256, 32, 256, 1], true, true),
        ("512x14336x4096", Q4K, NV, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("1024x1024x1024", Q4K, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("4096x14336x4096", Q4K, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("4000x4096x4096", Q4K, NV, None, Decoded, [128, 128, 32, 128, 1], true, false),
        ("4000x4096x4096", Q4K, NV, WG, Decoded, [128, 256, 32, 256, 1], true, true),
        ("4000x4096x4096", Q4K, NV, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("4096x4096x14336", Q4K, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("1x4096x4096", Mlx8, NV, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("8x14336x4096", Mlx8, NV, None, Fused, [16, 64, 64, 128, 1], true, false),
        ("16x4096x4096", Mlx8, NV, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("33x37x96", Mlx8, NV, None, Fused, [64, 32, 128, 256, 1], true, false),
        ("33x37x96", Mlx8, NV, WG, Fused, [128, 256, 32, 256, 1], true, false),
        ("33x37x96", Mlx8, NV, OWN, Fused, [64, 64, 32, 128, 1], true, false),
        ("64x4096x14336", Mlx8, NV, None, Fused, [64, 32, 128, 256, 1], true, false),
        ("128x14336x4096", Mlx8, NV, None, Fused, [64, 128, 32, 256, 1], true, false),
        ("255x4096x4096", Mlx8, NV, None, Fused, [64, 64, 64, 128, 1], true, false),
        ("256x4096x4096", Mlx8, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("256x14336x4096", Mlx8, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("300x37x96", Mlx8, NV, None, Decoded, [64, 64, 128, 256, 1], true, false),
        ("512x14336x4096", Mlx8, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("512x14336x4096", Mlx8, NV, WG, Decoded, [128, 256, 32, 256, 1], true, true),
        ("512x14336x4096", Mlx8, NV, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("1024x1024x1024", Mlx8, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("4096x14336x4096", Mlx8, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("4000x4096x4096", Mlx8, NV, None, Decoded, [128, 128, 32, 128, 1], true, false),
        ("4000x4096x4096", Mlx8, NV, WG, Decoded, [128, 256, 32, 256, 1], true, true),
        ("4000x4096x4096", Mlx8, NV, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("4096x4096x14336", Mlx8, NV, None, Decoded, [128, 256, 32, 256, 1], true, true),
        ("1x4096x4096", Q4_0, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("8x14336x4096", Q4_0, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("16x4096x4096", Q4_0, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("33x37x96", Q4_0, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("33x37x96", Q4_0, LP, WG, Fused, [128, 256, 32, 256, 1], false, false),
        ("33x37x96", Q4_0, LP, OWN, Fused, [64, 64, 32, 128, 1], false, false),
        ("64x4096x14336", Q4_0, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("128x14336x4096", Q4_0, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("255x4096x4096", Q4_0, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("256x4096x4096", Q4_0, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("256x14336x4096", Q4_0, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("300x37x96", Q4_0, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("512x14336x4096", Q4_0, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("512x14336x4096", Q4_0, LP, WG, Decoded, [128, 256, 32, 256, 1], false, false),
        ("512x14336x4096", Q4_0, LP, OWN, Decoded, [64, 64, 16, 128, 2], false, false),
        ("1024x1024x1024", Q4_0, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("4096x14336x4096", Q4_0, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("4000x4096x4096", Q4_0, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("4000x4096x4096", Q4_0, LP, WG, Decoded, [128, 256, 32, 256, 1], false, false),
        ("4000x4096x4096", Q4_0, LP, OWN, Decoded, [64, 64, 16, 128, 2], false, false),
        ("4096x4096x14336", Q4_0, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("1x4096x4096", Q4K, LP, None, Fused, [64, 64, 64, 256, 1], false, false),
        ("8x14336x4096", Q4K, LP, None, Fused, [64, 64, 64, 256, 1], false, false),
        ("16x4096x4096", Q4K, LP, None, Fused, [64, 64, 64, 256, 1], false, false),
        ("33x37x96", Q4K, LP, None, Fused, [64, 64, 64, 256, 1], false, false),
        ("33x37x96", Q4K, LP, WG, Fused, [128, 256, 64, 256, 1], false, false),
        ("33x37x96", Q4K, LP, OWN, Fused, [64, 64, 64, 128, 1], false, false),
        ("64x4096x14336", Q4K, LP, None, Fused, [64, 64, 64, 256, 1], false, false),
        ("128x14336x4096", Q4K, LP, None, Fused, [64, 64, 64, 256, 1], false, false),
        ("255x4096x4096", Q4K, LP, None, Fused, [64, 64, 64, 256, 1], false, false),
        ("256x4096x4096", Q4K, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("256x14336x4096", Q4K, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("300x37x96", Q4K, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("512x14336x4096", Q4K, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("512x14336x4096", Q4K, LP, WG, Decoded, [128, 256, 32, 256, 1], false, false),
        ("512x14336x4096", Q4K, LP, OWN, Decoded, [64, 64, 16, 128, 2], false, false),
        ("1024x1024x1024", Q4K, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("4096x14336x4096", Q4K, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("4000x4096x4096", Q4K, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("4000x4096x4096", Q4K, LP, WG, Decoded, [128, 256, 32, 256, 1], false, false),
        ("4000x4096x4096", Q4K, LP, OWN, Decoded, [64, 64, 16, 128, 2], false, false),
        ("4096x4096x14336", Q4K, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("1x4096x4096", Mlx8, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("8x14336x4096", Mlx8, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("16x4096x4096", Mlx8, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("33x37x96", Mlx8, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("33x37x96", Mlx8, LP, WG, Fused, [128, 256, 32, 256, 1], false, false),
        ("33x37x96", Mlx8, LP, OWN, Fused, [64, 64, 32, 128, 1], false, false),
        ("64x4096x14336", Mlx8, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("128x14336x4096", Mlx8, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("255x4096x4096", Mlx8, LP, None, Fused, [64, 64, 32, 256, 1], false, false),
        ("256x4096x4096", Mlx8, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("256x14336x4096", Mlx8, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("300x37x96", Mlx8, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("512x14336x4096", Mlx8, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("512x14336x4096", Mlx8, LP, WG, Decoded, [128, 256, 32, 256, 1], false, false),
        ("512x14336x4096", Mlx8, LP, OWN, Decoded, [64, 64, 16, 128, 2], false, false),
        ("1024x1024x1024", Mlx8, LP, None, Decoded, [64, 64, 8, 256, 2], false, false),
        ("4096x14336x4096", Mlx8, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("4000x4096x4096", Mlx8, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("4000x4096x4096", Mlx8, LP, WG, Decoded, [128, 256, 32, 256, 1], false, false),
        ("4000x4096x4096", Mlx8, LP, OWN, Decoded, [64, 64, 16, 128, 2], false, false),
        ("4096x4096x14336", Mlx8, LP, None, Decoded, [128, 128, 8, 256, 2], false, false),
        ("1x4096x4096", Q4_0, AP, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("8x14336x4096", Q4_0, AP, None, Fused, [16, 64, 64, 128, 1], true, false),
        ("16x4096x4096", Q4_0, AP, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("33x37x96", Q4_0, AP, None, Fused, [64, 32, 64, 256, 1], true, false),
        ("33x37x96", Q4_0, AP, WG, Fused, [128, 256, 32, 256, 1], true, false),
        ("33x37x96", Q4_0, AP, OWN, Fused, [64, 64, 32, 128, 1], true, false),
        ("64x4096x14336", Q4_0, AP, None, Fused, [64, 32, 64, 256, 1], true, false),
        ("128x14336x4096", Q4_0, AP, None, Fused, [64, 64, 32, 128, 1], true, false),
        ("255x4096x4096", Q4_0, AP, None, Fused, [64, 64, 32, 128, 1], true, false),
        ("256x4096x4096", Q4_0, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("256x14336x4096", Q4_0, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("300x37x96", Q4_0, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("512x14336x4096", Q4_0, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("512x14336x4096", Q4_0, AP, WG, Decoded, [128, 256, 32, 256, 1], true, false),
        ("512x14336x4096", Q4_0, AP, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("1024x1024x1024", Q4_0, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("4096x14336x4096", Q4_0, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("4000x4096x4096", Q4_0, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("4000x4096x4096", Q4_0, AP, WG, Decoded, [128, 256, 32, 256, 1], true, false),
        ("4000x4096x4096", Q4_0, AP, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("4096x4096x14336", Q4_0, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("1x4096x4096", Q4K, AP, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("8x14336x4096", Q4K, AP, None, Fused, [16, 64, 64, 128, 1], true, false),
        ("16x4096x4096", Q4K, AP, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("33x37x96", Q4K, AP, None, Fused, [64, 32, 64, 256, 1], true, false),
        ("33x37x96", Q4K, AP, WG, Fused, [128, 256, 64, 256, 1], true, false),
        ("33x37x96", Q4K, AP, OWN, Fused, [64, 64, 64, 128, 1], true, false),
        ("64x4096x14336", Q4K, AP, None, Fused, [64, 32, 64, 256, 1], true, false),
        ("128x14336x4096", Q4K, AP, None, Fused, [64, 64, 64, 128, 1], true, false),
        ("255x4096x4096", Q4K, AP, None, Fused, [64, 64, 64, 128, 1], true, false),
        ("256x4096x4096", Q4K, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("256x14336x4096", Q4K, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("300x37x96", Q4K, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("512x14336x4096", Q4K, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("512x14336x4096", Q4K, AP, WG, Decoded, [128, 256, 32, 256, 1], true, false),
        ("512x14336x4096", Q4K, AP, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("1024x1024x1024", Q4K, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("4096x14336x4096", Q4K, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("4000x4096x4096", Q4K, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("4000x4096x4096", Q4K, AP, WG, Decoded, [128, 256, 32, 256, 1], true, false),
        ("4000x4096x4096", Q4K, AP, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("4096x4096x14336", Q4K, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("1x4096x4096", Mlx8, AP, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("8x14336x4096", Mlx8, AP, None, Fused, [16, 64, 64, 128, 1], true, false),
        ("16x4096x4096", Mlx8, AP, None, Fused, [16, 32, 256, 256, 1], true, false),
        ("33x37x96", Mlx8, AP, None, Fused, [64, 32, 64, 256, 1], true, false),
        ("33x37x96", Mlx8, AP, WG, Fused, [128, 256, 32, 256, 1], true, false),
        ("33x37x96", Mlx8, AP, OWN, Fused, [64, 64, 32, 128, 1], true, false),
        ("64x4096x14336", Mlx8, AP, None, Fused, [64, 32, 64, 256, 1], true, false),
        ("128x14336x4096", Mlx8, AP, None, Fused, [64, 64, 32, 128, 1], true, false),
        ("255x4096x4096", Mlx8, AP, None, Fused, [64, 64, 32, 128, 1], true, false),
        ("256x4096x4096", Mlx8, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("256x14336x4096", Mlx8, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("300x37x96", Mlx8, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("512x14336x4096", Mlx8, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("512x14336x4096", Mlx8, AP, WG, Decoded, [128, 256, 32, 256, 1], true, false),
        ("512x14336x4096", Mlx8, AP, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("1024x1024x1024", Mlx8, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("4096x14336x4096", Mlx8, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("4000x4096x4096", Mlx8, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
        ("4000x4096x4096", Mlx8, AP, WG, Decoded, [128, 256, 32, 256, 1], true, false),
        ("4000x4096x4096", Mlx8, AP, OWN, Decoded, [64, 64, 16, 128, 2], true, false),
        ("4096x4096x14336", Mlx8, AP, None, Decoded, [64, 64, 16, 128, 1], true, false),
];

/// The strategy a case expects.
fn expected(&(_, _, _, _, path, [bm, bn, bk, threads, stages], units, wg): &Case) -> GemmStrategy {
    let tiles = GemmConfig { bm, bn, bk, threads, stages, input: F16, output: F32 };
    GemmStrategy { path, tiles, matrix_units: units, workgroup_matrix: wg }
}

/// A case's problem: f16 activations, its format, MLX groups of 64, the caller's tiles.
fn problem(&(shape, format, _, chosen, ..): &Case) -> Problem {
    let dims = shape.split('x').map(|d| d.parse().unwrap()).collect();
    let options = Options { format: Some(format), group: Some(64), ..Options::default() };
    Problem { gemm: chosen, options, ..Problem::new(dims, F16) }
}

#[test]
fn every_pinned_case_decides_as_before() {
    for case in CASES {
        let (shape, format, profile, chosen, ..) = case;
        let got = decide(GemmKind::Quantized, &problem(case), &Profile::named(profile).unwrap());
        let want = expected(case);
        assert_eq!(got, want, "{shape} {format} on {profile}, tiles {chosen:?}: {got}");
    }
}

#[test]
fn the_qgemm_entry_runs_the_decided_strategy() {
    let entry = crate::lookup("qgemm").unwrap();
    for case in CASES {
        let (shape, format, profile, ..) = case;
        let plan = entry.plan(&problem(case), &Profile::named(profile).unwrap()).unwrap();
        let want = expected(case);
        assert_eq!(plan.strategy, Strategy::Gemm(want), "{shape} {format} on {profile}");
        let launches = if want.path == Fused { 1 } else { 2 };
        assert_eq!(plan.launches.len(), launches, "{shape} {format} on {profile}");
    }
}

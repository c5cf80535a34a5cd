//! RoPE's frequencies and the `Cos`/`Sin` tables the library's rope kernels read
//! (`[positions, head_dim / 2]`, f32), with Llama 3's frequency scaling.

use crate::config::LlamaConfig;

/// The rotation frequency of each pair of a head, `theta^(-2i / head_dim)`, scaled as the
/// config's `rope_scaling` says: wavelengths shorter than `original / high_freq_factor` are
/// kept, longer than `original / low_freq_factor` divided by `factor`, and those between
/// blended linearly in `original / wavelength` (Llama 3.1 and 3.2); or divided by the config's
/// per-pair factors where it has them (a GGUF file's `rope_freqs`).
pub fn inv_freq(cfg: &LlamaConfig) -> Vec<f64> {
    let half = cfg.head_dim / 2;
    (0..half)
        .map(|i| {
            let f = cfg.rope_theta.powf(-((2 * i) as f64) / cfg.head_dim as f64);
            if let Some(factors) = &cfg.rope_freq_factors {
                return f / factors.get(i).copied().unwrap_or(1.0);
            }
            let Some(s) = cfg.rope_scaling else { return f };
            let original = s.original_max_position_embeddings as f64;
            let wavelength = 2.0 * std::f64::consts::PI / f;
            if wavelength < original / s.high_freq_factor {
                f
            } else if wavelength > original / s.low_freq_factor {
                f / s.factor
            } else {
                let smooth = (original / wavelength - s.low_freq_factor)
                    / (s.high_freq_factor - s.low_freq_factor);
                (1.0 - smooth) * f / s.factor + smooth * f
            }
        })
        .collect()
}

/// `Cos` and `Sin` for positions `0..positions`, row-major `[positions, head_dim / 2]`:
/// angle `p * inv_freq[i]`, computed in f64 and rounded once.
pub fn tables(cfg: &LlamaConfig, positions: usize) -> (Vec<f32>, Vec<f32>) {
    let freqs = inv_freq(cfg);
    let mut cos = Vec::with_capacity(positions * freqs.len());
    let mut sin = Vec::with_capacity(positions * freqs.len());
    for p in 0..positions {
        for f in &freqs {
            let a = p as f64 * f;
            cos.push(a.cos() as f32);
            sin.push(a.sin() as f32);
        }
    }
    (cos, sin)
}

//! Reading Llama checkpoints: a single file and an index of shards load and check; every
//! mistake a real download can have (missing, misshapen, mistyped or truncated tensors, an
//! index naming the wrong shard, another architecture, an unknown RoPE scaling) is an error
//! naming the file and the tensor. Llama 3 RoPE frequencies against the formula's regimes.

use std::path::Path;

use safetensors::Dtype;
use safetensors::tensor::TensorView;
use tilecast_llm::{Checkpoint, Error, LlamaConfig, WeightType, rope};

mod common;
use common::*;

#[test]
fn a_single_file_loads_and_checks() {
    let dir = scratch("single");
    let cfg = config();
    let ts = weights(&cfg, Dtype::F16, keep);
    write(&dir.join("model.safetensors"), &ts, Dtype::F16);
    let c = Checkpoint::open(&dir).unwrap();
    assert_eq!(c.check_llama(&cfg).unwrap(), WeightType::F16);
    // Tied embeddings: no lm_head, and every tensor named, with its own bytes.
    assert_eq!(c.names().count(), 2 + 9 * 2);
    let t = c.get("model.layers.1.mlp.down_proj.weight").unwrap();
    assert_eq!(t.shape, &[64, 96]);
    assert_eq!(t.bytes.len(), 64 * 96 * 2);
    assert_eq!(&t.bytes[..4], &[0, 1, 2, 3]);
}

#[test]
fn shards_listed_by_an_index_load_and_check() {
    let dir = scratch("shards");
    let cfg = config();
    let ts = weights(&cfg, Dtype::BF16, keep);
    let (a, b) = ts.split_at(ts.len() / 2);
    write(&dir.join("model-00001-of-00002.safetensors"), a, Dtype::BF16);
    write(&dir.join("model-00002-of-00002.safetensors"), b, Dtype::BF16);
    let map: serde_json::Map<String, serde_json::Value> = a
        .iter()
        .map(|t| (t.0.clone(), "model-00001-of-00002.safetensors".into()))
        .chain(b.iter().map(|t| (t.0.clone(), "model-00002-of-00002.safetensors".into())))
        .collect();
    let index = serde_json::json!({"metadata": {"total_size": 0}, "weight_map": map});
    std::fs::write(dir.join("model.safetensors.index.json"), index.to_string()).unwrap();
    let c = Checkpoint::open(&dir).unwrap();
    assert_eq!(c.check_llama(&cfg).unwrap(), WeightType::BF16);
    let t = c.get("model.norm.weight").unwrap();
    assert!(t.file.ends_with("model-00002-of-00002.safetensors"), "{}", t.file.display());

    // An index that places a tensor in a shard without it.
    let mut wrong = map.clone();
    wrong.insert(a[0].0.clone(), "model-00002-of-00002.safetensors".into());
    let index = serde_json::json!({"weight_map": wrong});
    std::fs::write(dir.join("model.safetensors.index.json"), index.to_string()).unwrap();
    let e = Checkpoint::open(&dir).err().expect("a misplaced tensor");
    let msg = e.to_string();
    assert!(matches!(e, Error::Format { .. }), "{msg}");
    assert!(msg.contains("model-00002-of-00002.safetensors") && msg.contains(&a[0].0), "{msg}");
}

#[test]
fn a_missing_misshapen_or_mistyped_tensor_is_named() {
    let cfg = config();
    let dir = scratch("missing");
    let ts = weights(&cfg, Dtype::F16, |n, s| {
        (n != "model.layers.1.self_attn.k_proj.weight").then(|| (n.to_string(), s))
    });
    write(&dir.join("model.safetensors"), &ts, Dtype::F16);
    let e = Checkpoint::open(&dir).unwrap().check_llama(&cfg).unwrap_err();
    assert!(matches!(e, Error::MissingTensor { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("model.layers.1.self_attn.k_proj.weight") && msg.contains("[32, 64]"),
        "{msg}"
    );
    assert!(msg.contains("model.safetensors"), "{msg}");

    let dir = scratch("misshapen");
    let ts = weights(&cfg, Dtype::F16, |n, s| {
        Some((
            n.to_string(),
            if n == "model.layers.0.mlp.up_proj.weight" { vec![64, 96] } else { s },
        ))
    });
    write(&dir.join("model.safetensors"), &ts, Dtype::F16);
    let msg = Checkpoint::open(&dir).unwrap().check_llama(&cfg).unwrap_err().to_string();
    assert!(msg.contains("model.layers.0.mlp.up_proj.weight is shape [64, 96]"), "{msg}");
    assert!(msg.contains("expected shape [96, 64]"), "{msg}");

    // One tensor of another type than the rest.
    let dir = scratch("mixed");
    let mut ts = weights(&cfg, Dtype::F16, keep);
    let last = ts.pop().unwrap();
    let bf: Vec<(String, Vec<usize>, Vec<u8>)> = vec![last.clone()];
    let views: Vec<(String, TensorView)> = ts
        .iter()
        .map(|(n, s, b)| (n.clone(), TensorView::new(Dtype::F16, s.clone(), b).unwrap()))
        .chain(
            bf.iter()
                .map(|(n, s, b)| (n.clone(), TensorView::new(Dtype::BF16, s.clone(), b).unwrap())),
        )
        .collect();
    std::fs::write(dir.join("model.safetensors"), safetensors::serialize(views, None).unwrap())
        .unwrap();
    let msg = Checkpoint::open(&dir).unwrap().check_llama(&cfg).unwrap_err().to_string();
    assert!(msg.contains(&last.0) && msg.contains("BF16") && msg.contains("expected F16"), "{msg}");

    // Integer tensors are not weights.
    let dir = scratch("int");
    let bytes = vec![0u8; 16];
    let views = vec![(
        "model.norm.weight".to_string(),
        TensorView::new(Dtype::I32, vec![4], &bytes).unwrap(),
    )];
    std::fs::write(dir.join("model.safetensors"), safetensors::serialize(views, None).unwrap())
        .unwrap();
    let e = Checkpoint::open(&dir).err().expect("an I32 tensor");
    assert!(
        matches!(e, Error::Unsupported { .. }) && e.to_string().contains("model.norm.weight"),
        "{e}"
    );
}

#[test]
fn a_truncated_or_absent_file_is_an_error_naming_it() {
    let cfg = config();
    let dir = scratch("truncated");
    let ts = weights(&cfg, Dtype::F16, keep);
    let path = dir.join("model.safetensors");
    write(&path, &ts, Dtype::F16);
    let full = std::fs::read(&path).unwrap();
    std::fs::write(&path, &full[..full.len() - 100]).unwrap();
    let e = Checkpoint::open(&dir).err().expect("a truncated file");
    assert!(
        matches!(e, Error::Format { .. }) && e.to_string().contains("model.safetensors"),
        "{e}"
    );

    let e = Checkpoint::open(&scratch("absent")).err().expect("no weights");
    assert!(matches!(e, Error::Io { .. }) && e.to_string().contains("model.safetensors"), "{e}");
}

#[test]
fn configs_of_other_models_or_scalings_are_refused() {
    let path = Path::new("some/config.json");
    let other = CONFIG
        .replace("LlamaForCausalLM", "MistralForCausalLM")
        .replace("\"llama\"", "\"mistral\"");
    let msg = LlamaConfig::from_json(&other, path).unwrap_err().to_string();
    assert!(msg.contains("some/config.json") && msg.contains("MistralForCausalLM"), "{msg}");

    let yarn = CONFIG.replace("\"llama3\"", "\"yarn\"");
    let msg = LlamaConfig::from_json(&yarn, path).unwrap_err().to_string();
    assert!(msg.contains("rope_scaling type \"yarn\""), "{msg}");

    let heads = CONFIG.replace("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3");
    let msg = LlamaConfig::from_json(&heads, path).unwrap_err().to_string();
    assert!(
        msg.contains("num_attention_heads 4 is not a multiple of num_key_value_heads 3"),
        "{msg}"
    );

    let missing = CONFIG.replace("\"vocab_size\": 100,", "");
    let msg = LlamaConfig::from_json(&missing, path).unwrap_err().to_string();
    assert!(msg.contains("vocab_size is missing"), "{msg}");

    let cfg = config();
    assert_eq!((cfg.head_dim, cfg.num_kv_heads, cfg.tie_word_embeddings), (16, 2, true));
}

#[test]
fn llama3_frequencies_keep_short_stretch_long_and_blend_between() {
    let cfg = config();
    let s = cfg.rope_scaling.unwrap();
    let f = rope::inv_freq(&cfg);
    assert_eq!(f.len(), 8);
    let original = s.original_max_position_embeddings as f64;
    let (mut kept, mut stretched, mut blended) = (0, 0, 0);
    for (i, got) in f.iter().enumerate() {
        let base = 500000f64.powf(-(2.0 * i as f64) / 16.0);
        let wavelength = 2.0 * std::f64::consts::PI / base;
        if wavelength < original / 4.0 {
            assert_eq!(*got, base);
            kept += 1;
        } else if wavelength > original {
            assert!((got - base / 8.0).abs() <= 1e-15 * base, "pair {i}");
            stretched += 1;
        } else {
            // Between the two: strictly between the stretched and the kept frequency.
            assert!(*got > base / 8.0 && *got < base, "pair {i}: {got} vs {base}");
            blended += 1;
        }
    }
    assert!(kept > 0 && stretched > 0 && blended > 0, "{kept} {stretched} {blended}");
    let (cos, sin) = rope::tables(&cfg, 3);
    assert_eq!(cos.len(), 3 * 8);
    assert_eq!((cos[0], sin[0]), (1.0, 0.0));
    assert!((cos[8 + 1] as f64 - f[1].cos()).abs() < 1e-7);
    assert!((sin[16 + 2] as f64 - (2.0 * f[2]).sin()).abs() < 1e-7);
}

/// A change to one tensor of a written checkpoint: (name, dtype, shape) to (dtype, shape).
type Edit<'a> = dyn Fn(&str, Dtype, Vec<usize>) -> (Dtype, Vec<usize>) + 'a;

/// An MLX-quantized checkpoint (`mlx-lm`'s layout): each matrix's packed levels (U32 `[out,
/// in * bits / 32]`) with scales and biases (`[out, in / group]`) check against the config; a
/// misshapen or mistyped part, and a quantization the kernels do not read, are errors naming
/// the file and the tensor or field.
#[test]
fn mlx_quantized_checkpoints_check_their_levels_scales_and_biases() {
    let quantized = CONFIG.replace(
        r#""tie_word_embeddings": true"#,
        r#""tie_word_embeddings": true, "quantization": {"group_size": 32, "bits": 4}"#,
    );
    let cfg = LlamaConfig::from_json(&quantized, Path::new("config.json")).unwrap();
    let q = cfg.quantization.expect("parsed");
    assert_eq!((q.bits, q.group), (4, 32));
    // Each matrix as three tensors; `edit` may change a tensor's (name, dtype, shape).
    let write_mlx = |dir: &Path, edit: &Edit<'_>| {
        let mut tensors: Vec<(String, Dtype, Vec<usize>)> = Vec::new();
        for (n, s) in tilecast_llm::weights::llama_tensors(&cfg) {
            if s.len() == 2 {
                let base = n.strip_suffix(".weight").unwrap();
                tensors.push((n.clone(), Dtype::U32, vec![s[0], s[1] / 8]));
                for part in ["scales", "biases"] {
                    tensors.push((format!("{base}.{part}"), Dtype::F16, vec![s[0], s[1] / 32]));
                }
            } else {
                tensors.push((n, Dtype::F16, s));
            }
        }
        let owned: Vec<(String, Dtype, Vec<usize>, Vec<u8>)> = tensors
            .into_iter()
            .map(|(n, d, s)| {
                let (d, s) = edit(&n, d, s);
                let bytes = vec![0u8; s.iter().product::<usize>() * d.bitsize() / 8];
                (n, d, s, bytes)
            })
            .collect();
        let views: Vec<(String, TensorView)> = owned
            .iter()
            .map(|(n, d, s, b)| (n.clone(), TensorView::new(*d, s.clone(), b).unwrap()))
            .collect();
        std::fs::write(dir.join("model.safetensors"), safetensors::serialize(views, None).unwrap())
            .unwrap();
    };
    let dir = scratch("mlx");
    write_mlx(&dir, &|_, d, s| (d, s));
    let c = Checkpoint::open(&dir).unwrap();
    assert_eq!(c.check_llama(&cfg).unwrap(), WeightType::F16);
    assert!(c.is_quantized(&cfg, "model.layers.0.mlp.up_proj.weight"));
    assert!(!c.is_quantized(&config(), "model.layers.0.mlp.up_proj.weight"));
    assert_eq!(c.get("model.embed_tokens.weight").unwrap().dtype, WeightType::U32);

    let up = "model.layers.1.mlp.up_proj";
    write_mlx(&dir, &|n, d, s| if n == format!("{up}.scales") { (d, vec![96, 4]) } else { (d, s) });
    let msg = Checkpoint::open(&dir).unwrap().check_llama(&cfg).unwrap_err().to_string();
    assert!(
        msg.contains(&format!("{up}.scales is shape [96, 4]")) && msg.contains("[96, 2]"),
        "{msg}"
    );
    write_mlx(&dir, &|n, d, s| if n == format!("{up}.weight") { (Dtype::F16, s) } else { (d, s) });
    let msg = Checkpoint::open(&dir).unwrap().check_llama(&cfg).unwrap_err().to_string();
    assert!(msg.contains(&format!("{up}.weight is F16")) && msg.contains("U32"), "{msg}");

    for (entry, want) in [
        (r#"{"group_size": 32, "bits": 3}"#, "quantization.bits is 3"),
        (r#"{"group_size": 48, "bits": 4}"#, "quantization.group_size is 48"),
        (r#"{"group_size": 32, "bits": 4, "mode": "nvfp4"}"#, r#"quantization mode "nvfp4""#),
        (r#"{"bits": 4}"#, "quantization.group_size is missing"),
    ] {
        let json = CONFIG.replace(
            r#""tie_word_embeddings": true"#,
            &format!(r#""tie_word_embeddings": true, "quantization": {entry}"#),
        );
        let msg =
            LlamaConfig::from_json(&json, Path::new("x/config.json")).unwrap_err().to_string();
        assert!(msg.contains(want) && msg.contains("x/config.json"), "{msg}");
    }
}

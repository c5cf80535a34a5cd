//! GGUF files' metadata read as a Llama config, and the files tilecast-llm refuses, each with
//! the key or tensor named. The files are written here with gguf-rs-lib's builder; no GPU is
//! needed (the decoder's runs on GGUF files are in the Python tests).

use std::path::PathBuf;

use gguf_rs_lib::format::metadata::MetadataValue;
use gguf_rs_lib::prelude::GGUFBuilder;
use tilecast_llm::gguf::GgufFile;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("tilecast-gguf-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Metadata of a 2-layer model (hidden 64, 4 heads of 16, 2 KV heads), with `edit` applied:
/// `Some(value)` sets a key, `None` drops it.
fn metadata(edit: &[(&str, Option<MetadataValue>)]) -> Vec<(String, MetadataValue)> {
    let mut kv: Vec<(String, MetadataValue)> = vec![
        ("general.architecture".into(), MetadataValue::String("llama".into())),
        ("llama.block_count".into(), MetadataValue::U32(2)),
        ("llama.embedding_length".into(), MetadataValue::U32(64)),
        ("llama.feed_forward_length".into(), MetadataValue::U32(96)),
        ("llama.attention.head_count".into(), MetadataValue::U32(4)),
        ("llama.attention.head_count_kv".into(), MetadataValue::U32(2)),
        ("llama.attention.layer_norm_rms_epsilon".into(), MetadataValue::F32(1e-5)),
        ("llama.rope.freq_base".into(), MetadataValue::F32(500000.0)),
        ("llama.rope.dimension_count".into(), MetadataValue::U32(16)),
        ("llama.context_length".into(), MetadataValue::U32(8192)),
    ];
    for (key, value) in edit {
        kv.retain(|(k, _)| k != key);
        if let Some(v) = value {
            kv.push((key.to_string(), v.clone()));
        }
    }
    kv
}

/// A file of `metadata`, a `[300, 64]` f32 embedding table, and `rope_freqs` where given.
fn write(name: &str, kv: Vec<(String, MetadataValue)>, rope_freqs: Option<Vec<f32>>) -> PathBuf {
    let mut b = GGUFBuilder::new();
    for (k, v) in kv {
        b = b.add_metadata(k, v);
    }
    b = b.add_f32_tensor("token_embd.weight", vec![64, 300], vec![0.5; 64 * 300]).unwrap();
    if let Some(f) = rope_freqs {
        b = b.add_f32_tensor("rope_freqs.weight", vec![f.len() as u64], f).unwrap();
    }
    let path = dir().join(name);
    b.build_to_file(&path).unwrap();
    path
}

fn config_error(name: &str, edit: &[(&str, Option<MetadataValue>)]) -> String {
    let path = write(name, metadata(edit), None);
    let e = GgufFile::open(&path).and_then(|f| f.config()).unwrap_err().to_string();
    assert!(e.contains(&path.display().to_string()), "{e}");
    e
}

#[test]
fn metadata_becomes_the_config() {
    let factors: Vec<f32> = (0..8).map(|i| 1.0 + i as f32).collect();
    let path = write("good.gguf", metadata(&[]), Some(factors.clone()));
    let f = GgufFile::open(&path).unwrap();
    let c = f.config().unwrap();
    assert_eq!(
        (c.hidden_size, c.intermediate_size, c.num_layers, c.num_heads, c.num_kv_heads),
        (64, 96, 2, 4, 2)
    );
    assert_eq!((c.head_dim, c.vocab_size, c.max_position_embeddings), (16, 300, 8192));
    assert_eq!(c.rope_theta, 500000.0);
    assert!((c.rms_norm_eps - 1e-5).abs() < 1e-9);
    // No output.weight: the embedding table is the output projection.
    assert!(c.tie_word_embeddings);
    let want: Vec<f64> = factors.iter().map(|&x| x as f64).collect();
    assert_eq!(c.rope_freq_factors.as_deref(), Some(&want[..]));
    // The rotary frequencies are divided by them.
    let freqs = tilecast_llm::rope::inv_freq(&c);
    assert!((freqs[3] - 500000f64.powf(-6.0 / 16.0) / 4.0).abs() < 1e-12);
    assert_eq!(f.get("token_embd.weight").unwrap().shape, vec![300, 64]);
}

#[test]
fn what_the_decoder_cannot_run_is_an_error_naming_the_key() {
    let e = config_error(
        "arch.gguf",
        &[("general.architecture", Some(MetadataValue::String("gpt2".into())))],
    );
    assert!(e.contains("general.architecture is \"gpt2\""), "{e}");
    let e = config_error("layers.gguf", &[("llama.block_count", None)]);
    assert!(e.contains("llama.block_count is missing"), "{e}");
    let e =
        config_error("kv.gguf", &[("llama.attention.head_count_kv", Some(MetadataValue::U32(3)))]);
    assert!(e.contains("head_count 4 is not a multiple of head_count_kv 3"), "{e}");
    let e =
        config_error("rotary.gguf", &[("llama.rope.dimension_count", Some(MetadataValue::U32(8)))]);
    assert!(e.contains("rotates part of a 16-wide head"), "{e}");
    let e = config_error(
        "scaling.gguf",
        &[("llama.rope.scaling.type", Some(MetadataValue::String("linear".into())))],
    );
    assert!(e.contains("llama.rope.scaling.type \"linear\""), "{e}");
    let e = config_error(
        "width.gguf",
        &[("llama.embedding_length", Some(MetadataValue::String("64".into())))],
    );
    assert!(
        e.contains("llama.embedding_length is the string \"64\"; expected a positive integer"),
        "{e}"
    );
}

#[test]
fn bad_files_and_tensors_are_errors() {
    let path =
        write("zero-freq.gguf", metadata(&[]), Some(vec![1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]));
    let e = GgufFile::open(&path).and_then(|f| f.config()).unwrap_err().to_string();
    assert!(e.contains("rope_freqs.weight holds 0; frequency divisors must be positive"), "{e}");
    let path = write("short-freq.gguf", metadata(&[]), Some(vec![1.0; 5]));
    let e = GgufFile::open(&path).and_then(|f| f.config()).unwrap_err().to_string();
    assert!(e.contains("tensor rope_freqs.weight is [5]"), "{e}");
    // Cut inside the tensor data.
    let good = std::fs::read(write("whole.gguf", metadata(&[]), None)).unwrap();
    let cut = dir().join("cut.gguf");
    std::fs::write(&cut, &good[..good.len() - 100]).unwrap();
    let e = GgufFile::open(&cut).err().unwrap().to_string();
    assert!(e.contains("truncated"), "{e}");
    // Not GGUF at all.
    let junk = dir().join("junk.gguf");
    std::fs::write(&junk, b"not a model").unwrap();
    let e = GgufFile::open(&junk).err().unwrap().to_string();
    assert!(e.contains("junk.gguf") && e.contains("GGUF"), "{e}");
    // A missing tensor names itself and what it was wanted for.
    let f = GgufFile::open(&dir().join("whole.gguf")).unwrap();
    let e = f.tensor("blk.0.attn_q.weight", "a weight matrix").err().unwrap().to_string();
    assert!(e.contains("tensor blk.0.attn_q.weight is missing (a weight matrix)"), "{e}");
}

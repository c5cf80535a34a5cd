//! Uploading a checkpoint: every tensor lands in a device buffer from the pool with its own
//! bytes, F16 and BF16; progress counts up to the total; a name the checkpoint lacks is an
//! error naming it.

use safetensors::Dtype;
use tilecast_llm::weights::llama_tensors;
use tilecast_llm::{Checkpoint, DeviceWeights, Error};
use tilecast_runtime::{BufferPool, Device, StorageMode};

mod common;
use common::*;

#[test]
fn every_tensor_reaches_the_device_with_its_bytes() {
    let device = Device::new().unwrap();
    let pool = BufferPool::new(&device, StorageMode::Private, 64 << 20);
    let cfg = config();
    for (dtype, name) in [(Dtype::F16, "f16"), (Dtype::BF16, "bf16")] {
        let dir = scratch(&format!("upload-{name}"));
        let ts = weights(&cfg, dtype, keep);
        write(&dir.join("model.safetensors"), &ts, dtype);
        let c = Checkpoint::open(&dir).unwrap();
        let names: Vec<String> = llama_tensors(&cfg).into_iter().map(|(n, _)| n).collect();
        let mut seen = Vec::new();
        let w =
            DeviceWeights::upload(&c, names.iter().map(String::as_str), &pool, |done, total| {
                seen.push((done, total))
            })
            .unwrap();
        let total: u64 = ts.iter().map(|t| t.2.len() as u64).sum();
        assert_eq!(w.bytes(), total);
        assert_eq!(seen.len(), ts.len());
        assert_eq!(seen.last(), Some(&(total, total)));
        assert!(seen.windows(2).all(|p| p[0].0 < p[1].0), "progress only grows: {seen:?}");
        for (n, shape, bytes) in &ts {
            let b = w.get(n).unwrap();
            assert_eq!(b.shape(), shape.as_slice(), "{n}");
            let back: Vec<u8> = match dtype {
                Dtype::F16 => bytemuck::cast_slice(&b.download::<half::f16>().unwrap()).to_vec(),
                _ => bytemuck::cast_slice(&b.download::<half::bf16>().unwrap()).to_vec(),
            };
            assert_eq!(&back, bytes, "{n}");
        }
    }
}

#[test]
fn a_tensor_the_checkpoint_lacks_is_named() {
    let device = Device::new().unwrap();
    let pool = BufferPool::new(&device, StorageMode::Private, 1 << 20);
    let cfg = config();
    let dir = scratch("upload-missing");
    write(&dir.join("model.safetensors"), &weights(&cfg, Dtype::F16, keep), Dtype::F16);
    let c = Checkpoint::open(&dir).unwrap();
    let e = DeviceWeights::upload(&c, ["model.norm.weight", "lm_head.weight"], &pool, |_, _| {})
        .err()
        .expect("tied embeddings have no lm_head");
    assert!(
        matches!(e, Error::MissingTensor { .. }) && e.to_string().contains("lm_head.weight"),
        "{e}"
    );
}

/// A loaded model uploads each weight once: the pool's peak bytes in use are the
/// checkpoint's f16 bytes (tied embeddings: the table serves the lm head), whether or not the
/// projections stack.
#[test]
fn a_loaded_model_holds_each_weight_once() {
    let device = Device::new().unwrap();
    let cfg = config();
    let dir = scratch("model-once");
    let ts = weights(&cfg, Dtype::F16, keep);
    write(&dir.join("model.safetensors"), &ts, Dtype::F16);
    std::fs::write(dir.join("config.json"), CONFIG).unwrap();
    let model = tilecast_llm::Model::load_hf(&dir, &device, |_, _| {}).unwrap();
    let total: u64 = ts.iter().map(|t| t.2.len() as u64).sum();
    let in_use = model.pool().stats().peak_in_use_bytes;
    // Allocations round up to the device's alignment: at most 256 bytes a tensor.
    assert!(
        in_use >= total && in_use <= total + 256 * ts.len() as u64,
        "{in_use} bytes for {total}"
    );
}

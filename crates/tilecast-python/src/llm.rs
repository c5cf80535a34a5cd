//! `tilecast.llm`: a Llama model (crate `tilecast-llm`) loaded on the package's device, with a
//! prefill and a decode step that return each pass's logits as a tilecast buffer (DLPack
//! 1.1: `np.from_dlpack(logits)`, `torch.from_dlpack(logits)`). Each call runs to completion
//! before it returns, so the logits are ready to read.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tilecast_llm::session::DecodeActs;
use tilecast_llm::{Error, Model, Session};
use tilecast_runtime::{DType, Stream, SyncType};

use crate::buffer::PyBuffer;
use crate::device::shared_device;

/// The Python exception for a decoder error: OSError for files that cannot be read,
/// ValueError for a model or request tilecast-llm refuses, RuntimeError for GPU failures.
fn llm_to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Io { .. } => PyOSError::new_err(msg),
        Error::Kernel { .. } | Error::Runtime { .. } | Error::Device { .. } => {
            PyRuntimeError::new_err(msg)
        }
        _ => PyValueError::new_err(msg),
    }
}

/// A Llama model on the device and its generation state: `prefill` starts a batch of
/// sequences, each `decode` steps them by one token.
#[pyclass(module = "tilecast", name = "Llm", unsendable)]
pub struct PyLlm {
    model: Arc<Model>,
    capacity: usize,
    /// The session of the last prefill's batch size, kept for the next prefill of that size
    /// (its kernels stay loaded).
    session: Option<(Session, DecodeActs)>,
    stream: Stream,
}

/// Loads a GGUF file or a Hugging Face checkpoint directory; `capacity` positions (prompt
/// and generated tokens) per sequence are allocated in the KV cache at each batch size used.
#[pyfunction]
#[pyo3(signature = (path, capacity = 4096))]
pub fn llm_load(path: PathBuf, capacity: usize) -> PyResult<PyLlm> {
    if capacity == 0 {
        return Err(PyValueError::new_err("capacity must be at least 1 position"));
    }
    let device = shared_device()?;
    let model = Model::load(&path, &device, |_, _| {}).map_err(llm_to_py)?;
    Ok(PyLlm { model: Arc::new(model), capacity, session: None, stream: Stream::new(&device) })
}

impl PyLlm {
    /// The last pass's logits, copied into a buffer of their own, once the stream is done.
    fn finish(&mut self) -> PyResult<PyBuffer> {
        let (session, _) = self
            .session
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("no session: prefill first"))?;
        let latest = session
            .latest_logits()
            .ok_or_else(|| PyRuntimeError::new_err("the session keeps no logits"))?;
        let device = self.model.device();
        let out = device.alloc(DType::F32, latest.shape()).map_err(crate::errors::to_py)?;
        self.stream
            .copy(latest, 0, &out, 0, latest.byte_len())
            .and_then(|_| self.stream.synchronize(SyncType::CommitAndWait))
            .map_err(crate::errors::to_py)?;
        Ok(PyBuffer { inner: out })
    }
}

#[pymethods]
impl PyLlm {
    /// Runs the prompts `ids` (`[batch][tokens]`, every row the same length) from position 0,
    /// forgetting any earlier sequences, and returns the logits of each row's last position,
    /// `[batch, vocab]` f32.
    fn prefill(&mut self, ids: Vec<Vec<u32>>) -> PyResult<PyBuffer> {
        let batch = ids.len();
        let len = ids.first().map_or(0, Vec::len);
        if batch == 0 || len == 0 || ids.iter().any(|r| r.len() != len) {
            return Err(PyValueError::new_err(format!(
                "prefill takes rows of token ids of one length; got rows of {:?}",
                ids.iter().map(Vec::len).collect::<Vec<_>>()
            )));
        }
        if self.session.as_ref().is_none_or(|(s, _)| s.batch() != batch) {
            self.session = None;
            let mut s =
                Session::new(self.model.clone(), batch, self.capacity, self.capacity, false)
                    .map_err(llm_to_py)?;
            s.keep_latest_logits().map_err(llm_to_py)?;
            let acts = s.decode_acts().map_err(llm_to_py)?;
            self.session = Some((s, acts));
        }
        let (session, _) = self.session.as_mut().expect("made above");
        session.reset();
        let flat: Vec<u32> = ids.concat();
        session.prefill(&mut self.stream, &flat).map_err(llm_to_py)?;
        self.finish()
    }

    /// One step: each sequence's next token in (`ids`, one per sequence; `None` for the greedy
    /// pick the GPU made from the last logits), the logits of the new position out, `[batch,
    /// vocab]` f32.
    #[pyo3(signature = (ids = None))]
    fn decode(&mut self, ids: Option<Vec<u32>>) -> PyResult<PyBuffer> {
        let (session, acts) = self
            .session
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("decode before prefill: no sequences yet"))?;
        session.decode_with(&mut self.stream, acts, ids.as_deref()).map_err(llm_to_py)?;
        self.finish()
    }

    /// The greedy picks so far, `[batch][steps]` (the first from the prompt's logits).
    fn tokens(&mut self) -> PyResult<Vec<Vec<u32>>> {
        let Some((session, _)) = self.session.as_ref() else { return Ok(Vec::new()) };
        let rows = session.tokens(&mut self.stream).map_err(llm_to_py)?;
        let batch = session.batch();
        Ok((0..batch).map(|b| rows.iter().map(|r| r[b]).collect()).collect())
    }

    /// The model's sizes: `hidden_size`, `num_layers`, `num_heads`, `num_kv_heads`,
    /// `head_dim`, `intermediate_size`, `vocab_size`, and the cache's `capacity`.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = &self.model.config;
        let d = PyDict::new(py);
        d.set_item("hidden_size", c.hidden_size)?;
        d.set_item("num_layers", c.num_layers)?;
        d.set_item("num_heads", c.num_heads)?;
        d.set_item("num_kv_heads", c.num_kv_heads)?;
        d.set_item("head_dim", c.head_dim)?;
        d.set_item("intermediate_size", c.intermediate_size)?;
        d.set_item("vocab_size", c.vocab_size)?;
        d.set_item("capacity", self.capacity)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let c = &self.model.config;
        format!(
            "Llm({} layers, hidden {}, vocab {}, {:.2} GB of weights)",
            c.num_layers,
            c.hidden_size,
            c.vocab_size,
            self.model.weight_bytes() as f64 / 1e9
        )
    }
}

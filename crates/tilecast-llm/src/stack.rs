//! Matrices that multiply the same activations, stacked by rows into one allocation: Q, K and
//! V; gate and up. A one-row pass (decode at batch 1) multiplies a stack in one launch and
//! finds each part's output at an offset of the stacked output; passes of more rows use each
//! part as a view. Stacking needs every part to start, in the weights and in a one-row output,
//! at an offset the device can bind; where one does not, the parts stay separate allocations.

use tilecast_kernels::qlinear::WeightFormat;
use tilecast_runtime::{BufferPool, DType};

use crate::error::{Error, Result};
use crate::model::Matrix;

/// A stack and its parts, each a view of it.
pub struct Stack {
    /// The stacked matrix `[sum of rows, cols]`.
    pub whole: Matrix,
    /// The parts, in order.
    pub parts: Vec<Matrix>,
}

/// Whether parts of `rows` rows of `cols` columns in `format` can stack on a device binding
/// storage at multiples of `align` bytes: each part's first weight row and first element of
/// a one-row f16 output at such an offset.
pub fn fits(rows: &[usize], cols: usize, format: Option<WeightFormat>, align: u64) -> bool {
    let row_bytes = match format {
        Some(f) => f.row_bytes(cols),
        None => cols * 2,
    } as u64;
    let mut start = 0u64;
    rows.iter().all(|&n| {
        let ok = (start * row_bytes).is_multiple_of(align) && (start * 2).is_multiple_of(align);
        start += n as u64;
        ok
    })
}

/// An allocation of the stacked matrix from `pool`, and a view for each part (to upload into).
pub fn alloc(
    pool: &BufferPool,
    rows: &[usize],
    cols: usize,
    format: Option<WeightFormat>,
) -> Result<Stack> {
    let total: usize = rows.iter().sum();
    let (dtype, width) = match format {
        Some(f) => (DType::U8, f.row_bytes(cols)),
        None => (DType::F16, cols),
    };
    let err =
        |source| Error::Runtime { what: format!("allocating a stack of {rows:?} rows"), source };
    let whole = pool.alloc(dtype, &[total, width]).map_err(err)?;
    let mut parts = Vec::with_capacity(rows.len());
    let mut start = 0;
    for &n in rows {
        let view = whole
            .slice_view((start * width * dtype.size()) as u64, n * width)
            .and_then(|v| v.reshape(&[n, width]))
            .map_err(err)?;
        parts.push(Matrix { buffer: view, format, affine: None });
        start += n;
    }
    Ok(Stack { whole: Matrix { buffer: whole, format, affine: None }, parts })
}

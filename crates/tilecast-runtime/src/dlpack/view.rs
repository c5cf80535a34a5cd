//! A buffer seen through a shape and element strides: the layout a DLPack tensor describes.
//!
//! Invariant: every element a [`StridedView`] can address lies inside its buffer; this is checked
//! once, when the view is made. Strides are in elements and non-negative (the runtime's kernels
//! only take contiguous buffers, so strided views are for exchange, not for launches).

use crate::{Buffer, Error, Result};

/// The most dimensions a strided view (and an imported DLPack tensor) may have.
pub const MAX_DIMS: usize = 32;

/// A buffer with a shape and element strides over its elements.
#[derive(Clone, Debug)]
pub struct StridedView {
    buffer: Buffer,
    shape: Vec<usize>,
    strides: Vec<usize>,
}

/// Row-major element strides of `shape`.
pub fn row_major_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].saturating_mul(shape[i + 1]);
    }
    strides
}

/// One past the largest element index `shape` with `strides` reaches, or `None` on overflow.
fn reach(shape: &[usize], strides: &[usize]) -> Option<usize> {
    shape.iter().zip(strides).try_fold(1usize, |r, (&e, &s)| r.checked_add((e - 1).checked_mul(s)?))
}

impl Buffer {
    /// This buffer as a contiguous, row-major strided view.
    pub fn as_strided(&self) -> StridedView {
        StridedView {
            buffer: self.clone(),
            shape: self.shape().to_vec(),
            strides: row_major_strides(self.shape()),
        }
    }

    /// A view of this buffer's elements with `shape` and element `strides` (one per dimension).
    /// Every extent must be at least 1 and every addressed element must lie inside the buffer.
    pub fn strided(&self, shape: &[usize], strides: &[usize]) -> Result<StridedView> {
        let bad = |reason: String| Error::Dlpack { what: "strided view", reason };
        if shape.len() != strides.len() {
            return Err(bad(format!(
                "shape {shape:?} has {} dimensions but strides {strides:?} has {}",
                shape.len(),
                strides.len()
            )));
        }
        if shape.len() > MAX_DIMS {
            return Err(bad(format!("{} dimensions; at most {MAX_DIMS}", shape.len())));
        }
        if shape.contains(&0) {
            return Err(Error::EmptyView { what: "strided view" });
        }
        match reach(shape, strides) {
            Some(r) if r <= self.len() => Ok(StridedView {
                buffer: self.clone(),
                shape: shape.to_vec(),
                strides: strides.to_vec(),
            }),
            r => Err(bad(format!(
                "shape {shape:?} with strides {strides:?} reaches element {} but the buffer \
                 holds {} elements",
                r.map_or_else(|| "beyond 2^64".to_string(), |r| (r - 1).to_string()),
                self.len()
            ))),
        }
    }
}

impl StridedView {
    /// The buffer viewed.
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    /// Extents.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Element strides, one per dimension.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// Elements from the first to one past the last addressed element: the part of the buffer
    /// an export must cover.
    pub fn reach(&self) -> usize {
        reach(&self.shape, &self.strides).expect("checked when the view was made")
    }

    /// True when the view is the buffer itself in row-major order.
    pub fn is_contiguous(&self) -> bool {
        self.strides == row_major_strides(&self.shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_and_reach() {
        assert_eq!(row_major_strides(&[3, 5, 7]), vec![35, 7, 1]);
        assert_eq!(row_major_strides(&[]), Vec::<usize>::new());
        assert_eq!(reach(&[3, 5], &[5, 1]), Some(15));
        assert_eq!(reach(&[3, 5], &[1, 3]), Some(15)); // column-major
        assert_eq!(reach(&[2, 2], &[0, 1]), Some(2)); // broadcast row
        assert_eq!(reach(&[], &[]), Some(1));
        assert_eq!(reach(&[2, usize::MAX], &[1, 2]), None);
    }
}

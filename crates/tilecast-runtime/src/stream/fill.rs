//! Fills: zero fills through the API's clear, other values through a small built-in kernel
//! over the view's words.

use super::Stream;
use super::dispatch::{Builtin, CommandKind, words_view};
use crate::memory::{WORD, align_down, align_up};
use crate::{Buffer, Element, Error, Result};

const FILL: Builtin = Builtin {
    label: "tilecast fill",
    wgsl: FILL_WGSL,
    entry: "fill_words",
    unit: WORD,
    kind: CommandKind::Fill,
};

impl Stream {
    /// The word range a fill of `buffer` writes: its view, which must start on a word and end on
    /// one (or at the end of the allocation, whose padding may be written).
    fn fill_range(&self, buffer: &Buffer) -> Result<(u64, u64)> {
        let start = buffer.byte_offset();
        let end = start + buffer.byte_len();
        let padded_end =
            if end == buffer.allocation_byte_len() { align_up(end, WORD) } else { end };
        if !start.is_multiple_of(WORD) || !padded_end.is_multiple_of(WORD) {
            return Err(Error::InvalidCommand {
                what: "fill".into(),
                reason: format!(
                    "view covers bytes {start}..{end} of its allocation; fills write whole 4-byte words"
                ),
            });
        }
        if !buffer.device().inner_eq(&self.device) {
            return Err(Error::InvalidCommand {
                what: "fill".into(),
                reason: "the buffer belongs to another device".into(),
            });
        }
        Ok((start, padded_end - start))
    }

    /// Sets every byte of `buffer`'s view to zero. Ends the open compute pass.
    pub fn fill_zero(&mut self, buffer: &Buffer) -> Result<()> {
        self.refuse_in_capture("fill")?;
        let (start, size) = self.fill_range(buffer)?;
        self.retain([buffer], &|| "fill".to_string())?;
        self.end_pass();
        self.open_encoder().clear_buffer(buffer.wgpu_buffer(), start, Some(size));
        self.counters.fills += 1;
        self.after_command(size);
        Ok(())
    }

    /// Sets every element of `buffer`'s view to `value` (of the buffer's dtype). A zero value
    /// is a [`fill_zero`](Self::fill_zero); others run a built-in kernel in the open pass.
    pub fn fill<T: Element>(&mut self, buffer: &Buffer, value: T) -> Result<()> {
        self.refuse_in_capture("fill")?;
        buffer.check_dtype::<T>("fill")?;
        let bytes = bytemuck::bytes_of(&value);
        if bytes.iter().all(|&b| b == 0) {
            return self.fill_zero(buffer);
        }
        let (start, size) = self.fill_range(buffer)?;
        let mut word = [0u8; 4];
        for (i, w) in word.iter_mut().enumerate() {
            *w = bytes[i % bytes.len()];
        }
        // Bind just the words of each chunk, from the nearest offset the device can bind at; a
        // chunk stays within the device's binding size (128 MiB on lavapipe).
        self.run_builtin(&FILL, size, |k, done, n, align| {
            let at = start + done;
            let bind_start = align_down(at, align);
            let words = (n / WORD) as u32;
            k.set_buffer(0, &words_view(buffer, bind_start, at + n)?)?
                .set_scalar(0, ((at - bind_start) / WORD) as u32)?
                .set_scalar(1, words)?
                .set_scalar(2, u32::from_le_bytes(word))?;
            Ok(words)
        })
    }
}

const FILL_WGSL: &str = r#"
struct Fill { start: u32, count: u32, pattern: u32 }
var<immediate> fill: Fill;
@group(0) @binding(0) var<storage, read_write> words: array<u32>;

@compute @workgroup_size(256)
fn fill_words(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let i = g.x + g.y * n.x * 256u;
    if (i < fill.count) {
        words[fill.start + i] = fill.pattern;
    }
}
"#;

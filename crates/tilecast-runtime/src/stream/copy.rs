//! Device-to-device copies: through the API's copy engine, or through a compute kernel. On some
//! GPUs `copy_buffer_to_buffer` moves a fraction of what a plain vector-load kernel does (H200,
//! Vulkan: 837 GB/s against 4007), so a stream may copy 16-byte-aligned ranges with `copy_vec4`
//! instead. Which path `Stream::copy` takes is [`CopyPath`]; `Auto` follows the device's
//! measured choice ([`Device::calibrate_copies`](crate::Device::calibrate_copies)).

use super::Stream;
use super::dispatch::{Builtin, CommandKind, words_view};
use crate::memory::{WORD, align_down};
use crate::{Buffer, Error, Result};

/// Which engine a device-to-device copy uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyPath {
    /// The kernel for copies of at least the device's measured threshold (never, until
    /// [`Device::calibrate_copies`](crate::Device::calibrate_copies) or
    /// [`Device::set_copy_kernel_min_bytes`](crate::Device::set_copy_kernel_min_bytes) sets one).
    Auto,
    /// `copy_buffer_to_buffer` (the API's copy engine path).
    Builtin,
    /// The `copy_vec4` kernel for the 16-byte-aligned part, where both ranges start on 16 bytes
    /// of their allocations; the rest (or a misaligned copy) takes the built-in path.
    Kernel,
}

/// Bytes per vector.
const VEC: u64 = 16;

const COPY: Builtin = Builtin {
    label: "tilecast copy",
    wgsl: COPY_WGSL,
    entry: "copy_vec4",
    unit: VEC,
    kind: CommandKind::Copy,
};

const COPY_WGSL: &str = r#"
struct Copy { src: u32, dst: u32, count: u32 }
var<immediate> copy: Copy;
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@compute @workgroup_size(256)
fn copy_vec4(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = id.x + id.y * groups.x * 256u;
    if (i < copy.count) {
        dst[copy.dst + i] = src[copy.src + i];
    }
}
"#;

impl Stream {
    /// Encodes a copy of `bytes` bytes from `src` (at `src_offset` bytes into the view) to `dst`
    /// (at `dst_offset`), by the device's chosen engine ([`CopyPath::Auto`]). Ends the open
    /// compute pass. Offsets and size must be multiples of 4 bytes counted from the allocation
    /// start, within both views, and the buffers must be different allocations.
    pub fn copy(
        &mut self,
        src: &Buffer,
        src_offset: u64,
        dst: &Buffer,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        self.copy_with(CopyPath::Auto, src, src_offset, dst, dst_offset, bytes)
    }

    /// [`copy`](Self::copy) by the engine `path` names.
    pub fn copy_with(
        &mut self,
        path: CopyPath,
        src: &Buffer,
        src_offset: u64,
        dst: &Buffer,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        let what = "copy";
        self.refuse_in_capture(what)?;
        let invalid = |reason: String| Error::InvalidCommand { what: what.to_string(), reason };
        for (name, b, off) in [("source", src, src_offset), ("destination", dst, dst_offset)] {
            let end = off.saturating_add(bytes);
            if end > b.byte_len() {
                return Err(invalid(format!(
                    "{name} range {off}..{end} is outside its view of {} bytes",
                    b.byte_len()
                )));
            }
            let abs = b.byte_offset() + off;
            if !abs.is_multiple_of(WORD) {
                return Err(invalid(format!(
                    "{name} starts at byte {abs} of its allocation; copies move whole 4-byte words"
                )));
            }
            if !b.device().inner_eq(&self.device) {
                return Err(invalid(format!("the {name} belongs to another device")));
            }
        }
        if !bytes.is_multiple_of(WORD) {
            return Err(invalid(format!("{bytes} bytes is not a multiple of 4")));
        }
        if src.shares_allocation_with(dst) {
            return Err(invalid(
                "source and destination are the same allocation; copy through a temporary".into(),
            ));
        }
        if bytes == 0 {
            return Ok(());
        }
        let (s, d) = (src.byte_offset() + src_offset, dst.byte_offset() + dst_offset);
        let by_kernel = if self.copy_takes_kernel(path, s, d, bytes) {
            self.copy_kernel(src, s, dst, d, bytes)?
        } else {
            0
        };
        if by_kernel == bytes {
            return Ok(());
        }
        let (s, d, rest) = (s + by_kernel, d + by_kernel, bytes - by_kernel);
        self.retain([src, dst], &|| what.to_string())?;
        self.end_pass();
        self.open_encoder().copy_buffer_to_buffer(src.wgpu_buffer(), s, dst.wgpu_buffer(), d, rest);
        self.counters.copies += 1;
        self.after_command(rest);
        Ok(())
    }

    /// Whether `path` sends a copy of `bytes` between these absolute offsets to the kernel.
    fn copy_takes_kernel(&self, path: CopyPath, s: u64, d: u64, bytes: u64) -> bool {
        let aligned = s.is_multiple_of(VEC) && d.is_multiple_of(VEC) && bytes >= VEC;
        let immediates = self.device.wgpu_device().features().contains(wgpu::Features::IMMEDIATES);
        aligned
            && immediates
            && match path {
                CopyPath::Builtin => false,
                CopyPath::Kernel => true,
                CopyPath::Auto => bytes >= self.device.copy_kernel_min_bytes(),
            }
    }

    /// Copies the 16-byte-aligned prefix of the range with `copy_vec4`, in dispatches whose
    /// bindings stay within the device's binding size; returns the bytes copied.
    fn copy_kernel(
        &mut self,
        src: &Buffer,
        s: u64,
        dst: &Buffer,
        d: u64,
        bytes: u64,
    ) -> Result<u64> {
        let total = align_down(bytes, VEC);
        self.run_builtin(&COPY, total, |k, done, n, align| {
            // Each side bound from the nearest offset the device binds at, with the vector
            // index its range starts at in that view.
            let view = |b: &Buffer, at: u64| -> Result<(Buffer, u32)> {
                let start = align_down(at, align);
                Ok((words_view(b, start, at + n)?, ((at - start) / VEC) as u32))
            };
            let (sv, so) = view(src, s + done)?;
            let (dv, dof) = view(dst, d + done)?;
            let count = (n / VEC) as u32;
            k.set_buffer(0, &sv)?
                .set_buffer(1, &dv)?
                .set_scalar(0, so)?
                .set_scalar(1, dof)?
                .set_scalar(2, count)?;
            Ok(count)
        })?;
        Ok(total)
    }
}

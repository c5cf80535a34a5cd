//! Device-to-device copies through a compute kernel. On some GPUs `copy_buffer_to_buffer` moves
//! a fraction of what a plain vector-load kernel does (H200, Vulkan: 837 GB/s against 4007), so
//! a stream may copy 16-byte-aligned ranges with `copy_vec4` instead. Which path `Stream::copy`
//! takes is [`CopyPath`]; `Auto` follows the device's measured choice
//! ([`Device::calibrate_copies`](crate::Device::calibrate_copies)).

use super::{CommandKind, Stream};
use crate::memory::{WORD, align_down};
use crate::{Buffer, DType, Result, ShaderLibrary};

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

/// Vectors per threadgroup.
const GROUP: u32 = 256;
/// Bytes per vector.
const VEC: u64 = 16;

pub(super) const COPY_WGSL: &str = r#"
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
    /// Whether `path` sends a copy of `bytes` between these absolute offsets to the kernel.
    pub(super) fn copy_takes_kernel(&self, path: CopyPath, s: u64, d: u64, bytes: u64) -> bool {
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
    pub(super) fn copy_kernel(
        &mut self,
        src: &Buffer,
        s: u64,
        dst: &Buffer,
        d: u64,
        bytes: u64,
    ) -> Result<u64> {
        let (align, chunk) = super::binding_chunk(&self.device, VEC);
        let max = self.device.capabilities().limits.max_threadgroups_per_dimension;
        let total = align_down(bytes, VEC);
        let mut k = match self.copy_kernel.take() {
            Some(k) => k,
            None => ShaderLibrary::with_cache_dir(&self.device, None)
                .load("tilecast copy", COPY_WGSL)?
                .kernel("copy_vec4")?,
        };
        let mut done = 0;
        let result = (|| {
            while done < total {
                let n = chunk.min(total - done);
                let view = |b: &Buffer, at: u64| -> Result<(Buffer, u32)> {
                    let start = align_down(at, align);
                    let words = ((at + n - start) / WORD) as usize;
                    let whole = (b.allocation_byte_len() / WORD) as usize;
                    let v = Buffer::from_parts(b.alloc.clone(), DType::U32, &[whole])
                        .slice_view(start, words)?;
                    Ok((v, ((at - start) / VEC) as u32))
                };
                let (sv, so) = view(src, s + done)?;
                let (dv, dof) = view(dst, d + done)?;
                let count = (n / VEC) as u32;
                k.set_buffer(0, &sv)?
                    .set_buffer(1, &dv)?
                    .set_scalar(0, so)?
                    .set_scalar(1, dof)?
                    .set_scalar(2, count)?;
                let groups = count.div_ceil(GROUP);
                k.encode(self, super::even_grid(groups, max), CommandKind::Copy)?;
                done += n;
            }
            Ok(())
        })();
        // The cached kernel must not keep the copied allocations alive.
        k.clear_buffers();
        self.copy_kernel = Some(k);
        result.map(|()| done)
    }
}

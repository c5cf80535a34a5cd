//! The runtime's one error type. Every message names the thing that failed and the limit it hit.

use crate::{DType, StorageMode};

/// Result alias for the runtime.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in `tilecast-runtime`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No adapter exists for the requested backends.
    #[error(
        "no GPU adapter found for backends {backends}; on a Linux machine without a GPU, install \
         software Vulkan (`apt-get install mesa-vulkan-drivers`)"
    )]
    NoAdapter {
        /// The backends that were searched.
        backends: String,
    },
    /// `TILECAST_BACKEND` holds a value that names no backend.
    #[error("TILECAST_BACKEND={value:?} names no backend; use one of: vulkan, metal, dx12, gl")]
    UnknownBackend {
        /// The value found in the environment.
        value: String,
    },
    /// `TILECAST_ADAPTER` matches no adapter name.
    #[error("no adapter name contains TILECAST_ADAPTER={wanted:?}; adapters found: {available}")]
    AdapterNotFound {
        /// The substring that was asked for.
        wanted: String,
        /// The adapters that exist, one per entry.
        available: String,
    },
    /// The adapter refused to create a device.
    #[error("adapter {adapter:?} refused to create a device: {source}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// wgpu's reason.
        #[source]
        source: wgpu::RequestDeviceError,
    },
    /// A shape whose element count (or byte size) does not fit in 64 bits.
    #[error(
        "{what}: shape {shape:?} overflows: its element count or byte size does not fit in 64 bits"
    )]
    ShapeOverflow {
        /// Which operation.
        what: &'static str,
        /// The shape asked for.
        shape: Vec<usize>,
    },
    /// A buffer larger than the device allows was asked for.
    #[error(
        "buffer of {dtype} with shape {shape:?} needs {bytes} bytes; device {device:?} allows at \
         most {limit} bytes per buffer"
    )]
    TooLarge {
        /// Element type asked for.
        dtype: DType,
        /// Shape asked for.
        shape: Vec<usize>,
        /// Bytes the buffer would need.
        bytes: u64,
        /// The device's `max_buffer_size`.
        limit: u64,
        /// The device's name.
        device: String,
    },
    /// The device ran out of memory.
    #[error("device {device:?} is out of memory allocating {bytes} bytes ({what})")]
    OutOfMemory {
        /// The device's name.
        device: String,
        /// Bytes asked for.
        bytes: u64,
        /// What was being allocated.
        what: &'static str,
    },
    /// A view reaches past the end of the buffer it views.
    #[error(
        "slice_view(byte_offset {byte_offset}, {len} x {dtype}) needs bytes {byte_offset}..{end} \
         but the buffer has {available} bytes"
    )]
    ViewOutOfBounds {
        /// Offset asked for, relative to the viewed buffer.
        byte_offset: u64,
        /// Elements asked for.
        len: usize,
        /// Element type of the view.
        dtype: DType,
        /// End of the requested byte range (saturated on overflow).
        end: u64,
        /// Bytes the viewed buffer holds.
        available: u64,
    },
    /// A view's offset does not respect its element alignment.
    #[error(
        "slice_view byte_offset {byte_offset} is not a multiple of {align}, the size of {dtype}"
    )]
    Misaligned {
        /// Offset asked for.
        byte_offset: u64,
        /// Required alignment.
        align: usize,
        /// Element type of the view.
        dtype: DType,
    },
    /// A view or reshape with no elements was asked for.
    #[error("{what} with no elements: a view needs at least one element")]
    EmptyView {
        /// Which operation.
        what: &'static str,
    },
    /// A host slice or shape does not match the buffer's element count.
    #[error(
        "{what}: host data has {got} elements but the buffer's shape {shape:?} holds {expected}"
    )]
    LengthMismatch {
        /// Which operation.
        what: &'static str,
        /// Elements given.
        got: usize,
        /// Elements the buffer holds.
        expected: usize,
        /// The buffer's shape.
        shape: Vec<usize>,
    },
    /// A reshape to a shape with another element count.
    #[error(
        "reshape from {from:?} ({elements} elements) to {to:?} ({to_elements} elements): the \
         element counts must match"
    )]
    ReshapeMismatch {
        /// The buffer's shape.
        from: Vec<usize>,
        /// Elements it holds.
        elements: usize,
        /// The shape asked for.
        to: Vec<usize>,
        /// Elements that shape holds.
        to_elements: usize,
    },
    /// Typed host access used a Rust type that is not the buffer's dtype.
    #[error("{what}: buffer holds {buffer} but the host type is {requested}")]
    DTypeMismatch {
        /// Which operation.
        what: &'static str,
        /// The buffer's dtype.
        buffer: DType,
        /// The dtype of the Rust type used.
        requested: DType,
    },
    /// A zero-copy host view was asked of a buffer that has no host-visible memory.
    #[error(
        "{what} needs a Shared or Managed buffer; this one is {mode}: use download/upload, which \
         stage through a copy"
    )]
    NotHostVisible {
        /// Which operation.
        what: &'static str,
        /// The buffer's storage mode.
        mode: StorageMode,
    },
    /// A Managed-only operation was used on another storage mode.
    #[error("{what} applies to Managed buffers; this one is {mode}")]
    NotManaged {
        /// Which operation.
        what: &'static str,
        /// The buffer's storage mode.
        mode: StorageMode,
    },
    /// The adapter cannot give zero-copy host-visible GPU buffers.
    #[error(
        "storage mode Shared needs GPU buffers the host can map (MAPPABLE_PRIMARY_BUFFERS), which \
         adapter {adapter:?} lacks; use Managed or Private"
    )]
    SharedUnsupported {
        /// The adapter's name.
        adapter: String,
    },
    /// Two host views of one allocation conflict.
    #[error("host view conflict on a {mode} buffer: {reason}")]
    HostViewConflict {
        /// The buffer's storage mode.
        mode: StorageMode,
        /// Why the views conflict.
        reason: String,
    },
    /// A byte range lies outside a buffer.
    #[error("{what}: byte range {start}..{end} is outside the buffer's {len} bytes")]
    RangeOutOfBounds {
        /// Which operation.
        what: &'static str,
        /// Range start.
        start: u64,
        /// Range end.
        end: u64,
        /// Bytes the buffer holds.
        len: u64,
    },
    /// Mapping GPU memory for the host failed.
    #[error("mapping a {bytes}-byte buffer for host access failed: {reason}")]
    Map {
        /// Size of the mapping.
        bytes: u64,
        /// wgpu's reason.
        reason: String,
    },
    /// Waiting for the GPU failed (device lost or timeout).
    #[error("waiting for device {device:?} failed: {reason}")]
    Wait {
        /// The device's name.
        device: String,
        /// wgpu's reason.
        reason: String,
    },
    /// wgpu reported a validation or internal error.
    #[error("GPU error during {op}: {message}")]
    Gpu {
        /// The operation that was running.
        op: String,
        /// wgpu's message.
        message: String,
    },
    /// Host access to a buffer that encoded-but-uncommitted stream work uses.
    #[error(
        "{what}: the buffer is used by {uses} command(s) encoded in a stream and not yet \
         committed; call synchronize(SyncType::Commit or CommitAndWait) on that stream first"
    )]
    PendingEncodedWork {
        /// Which operation.
        what: &'static str,
        /// Encoded commands that use the buffer.
        uses: usize,
    },
    /// A Shared buffer with a live host view was given to the GPU.
    #[error(
        "{what}: a Shared buffer has a live host view; drop the view before the GPU uses the buffer"
    )]
    MappedOnGpu {
        /// Which operation.
        what: String,
    },
    /// The GPU, or the runtime's host access to a Managed host copy, was asked to use a buffer
    /// whose memory a DLPack consumer holds.
    #[error(
        "{what}: the buffer has {exports} live DLPack export(s) of its host memory; the GPU (and \
         the runtime's access to a Managed host copy) may use it again only after each consumer \
         has called the tensor's deleter"
    )]
    Exported {
        /// Which operation.
        what: String,
        /// Live exports of the allocation.
        exports: usize,
    },
    /// A DLPack exchange needs a copy that the caller refused (`copy=False`).
    #[error("DLPack {what}: {reason}, which needs a copy, and copy=False refuses copies")]
    CopyRefused {
        /// Export or import.
        what: &'static str,
        /// Why a copy is needed.
        reason: String,
    },
    /// A DLPack tensor that cannot be exchanged as described (version, layout, device).
    #[error("DLPack {what}: {reason}")]
    Dlpack {
        /// Which operation.
        what: &'static str,
        /// What is wrong, with the limit.
        reason: String,
    },
    /// A DLPack data type that no tilecast dtype matches.
    #[error(
        "DLPack data type (code {code}, {bits} bits, {lanes} lanes) has no tilecast dtype; \
         tilecast holds f32, f16, bf16, i32, u32, i8, u8, f8e4m3 (float8_e4m3fn) and f8e5m2, \
         one lane each"
    )]
    DlpackDType {
        /// `DLDataType::code`.
        code: u8,
        /// `DLDataType::bits`.
        bits: u8,
        /// `DLDataType::lanes`.
        lanes: u16,
    },
    /// A wgpu buffer from another wgpu user that cannot back a tilecast buffer as asked.
    #[error("wgpu buffer import ({label}): {reason}")]
    ForeignBuffer {
        /// The dtype and shape asked for.
        label: String,
        /// What is wrong, with the limit.
        reason: String,
    },
    /// WGSL failed to parse or validate (or the device refused it).
    #[error(
        "shader {label:?} does not compile{}: {message}{}",
        at_location(.line, .column),
        source_suffix(.source_line)
    )]
    ShaderCompile {
        /// The source's label.
        label: String,
        /// 1-based line, when the compiler gave a location.
        line: Option<u32>,
        /// 1-based column, when the compiler gave a location.
        column: Option<u32>,
        /// The compiler's message.
        message: String,
        /// The offending source line, when the compiler gave a location.
        source_line: Option<String>,
    },
    /// A kernel was asked for that the source does not define, or cannot be used as given.
    #[error("kernel {kernel:?}: {reason}")]
    Kernel {
        /// Entry point name.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
    /// A dispatch, copy or fill breaks a device limit or an argument rule.
    #[error("{what}: {reason}")]
    InvalidCommand {
        /// Which command.
        what: String,
        /// What is wrong, with the limit.
        reason: String,
    },
    /// A residency set would exceed its wired-memory budget.
    #[error(
        "residency set {label:?}: adding {adding} bytes would make {total} bytes resident; the \
         budget is {budget} bytes"
    )]
    ResidencyBudget {
        /// The set's label.
        label: String,
        /// Bytes being added.
        adding: u64,
        /// Resident bytes after the add.
        total: u64,
        /// The budget.
        budget: u64,
    },
}

fn at_location(line: &Option<u32>, column: &Option<u32>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(" (line {l}, column {c})"),
        (Some(l), None) => format!(" (line {l})"),
        _ => String::new(),
    }
}

fn source_suffix(source_line: &Option<String>) -> String {
    source_line.as_ref().map(|l| format!("\n{l}")).unwrap_or_default()
}

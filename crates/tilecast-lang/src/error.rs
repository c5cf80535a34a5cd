//! The language's one error type.

/// Result alias for the language.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong compiling a tile kernel.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The kernel breaks a rule of the language or a limit of the target profile.
    #[error("kernel {kernel:?}: {op}: {message}")]
    Verify {
        /// Kernel name.
        kernel: String,
        /// The operation (and tile) at fault, e.g. `gemm A_shared x B_shared -> acc`.
        op: String,
        /// What is wrong, with the limit.
        message: String,
    },
    /// The compiler produced WGSL that naga rejects: a compiler bug.
    #[error("compiler bug: the WGSL generated for {kernel:?} does not validate: {message}\n{wgsl}")]
    Codegen {
        /// Kernel name.
        kernel: String,
        /// naga's message.
        message: String,
        /// The generated source.
        wgsl: String,
    },
    /// An invariant one compiler pass relies on was broken by an earlier one: a compiler bug,
    /// never a mistake in the kernel (those are [`Error::Verify`]).
    #[error(
        "compiler bug in the {pass} pass for kernel {kernel:?}: {message} (please report it with the kernel)"
    )]
    Internal {
        /// Kernel name.
        kernel: String,
        /// The pass that found the broken invariant.
        pass: &'static str,
        /// The invariant.
        message: String,
    },
    /// No profile of that name.
    #[error("unknown target profile {0:?}; known: vulkan-nvidia, vulkan-lavapipe, metal-apple7")]
    UnknownProfile(String),
    /// Emitting MSL or SPIR-V failed.
    #[error("emitting {target} for {kernel:?} failed: {message}")]
    Emit {
        /// Target language.
        target: &'static str,
        /// Kernel name.
        kernel: String,
        /// The back end's message.
        message: String,
    },
}

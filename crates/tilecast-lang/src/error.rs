//! The language's one error type.

/// Result alias for the language.
pub type Result<T> = std::result::Result<T, Error>;

/// A place in a kernel as written (`ir::Kernel` before any pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// The statement at this position of a pre-order walk of the body (a statement, then the
    /// statements nested in it: a loop's body, an `if`'s then-branch, then its else-branch).
    Stmt(usize),
    /// Tile `i` in declaration order.
    Tile(usize),
    /// Buffer parameter `i` in declaration order.
    Param(usize),
}

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
        /// Where in the kernel as written the fault lies, where the rule that found it knows:
        /// front ends map it to their source (the Python builder to a file and line).
        at: Option<Site>,
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

impl Error {
    /// This error placed at `site`, unless it is placed already (the innermost rule wins) or
    /// is not a verifier error.
    pub fn at(self, site: Site) -> Error {
        match self {
            Error::Verify { kernel, op, message, at: None } => {
                Error::Verify { kernel, op, message, at: Some(site) }
            }
            other => other,
        }
    }

    /// Where in the kernel as written a verifier error lies, if known.
    pub fn site(&self) -> Option<Site> {
        match self {
            Error::Verify { at, .. } => *at,
            _ => None,
        }
    }
}

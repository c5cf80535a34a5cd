//! The ids that name a kernel's parameters, scalar arguments, lets and tiles: indices into
//! [`Kernel`](super::Kernel)'s lists, shared by expressions and statements.

/// Index of a global parameter in [`Kernel::params`](super::Kernel::params).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamId(pub usize);

/// Index of a scalar argument in [`Kernel::scalars`](super::Kernel::scalars).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScalarId(pub usize);

/// A named value of a parallel body ([`Stmt::Let`](super::Stmt::Let)), numbered in the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LetId(pub usize);

/// Index of a tile buffer in [`Kernel::tiles`](super::Kernel::tiles).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileId(pub usize);

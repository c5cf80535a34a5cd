//! tilecast-kernels: the kernel library, written in the tile language, each kernel with a CPU
//! reference.
//!
//! Empty until the kernel-library issue lands.

//! Passes over the IR: fragment layout inference and software pipelining. Masking, barrier
//! placement, SIMT gemm lowering and vectorization happen as the back end lowers each op.

pub mod layout;
pub mod pipeline;

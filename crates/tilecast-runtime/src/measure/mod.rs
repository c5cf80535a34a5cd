//! Measuring the device: settled wall-clock timing of batches, GPU timestamps, the choice of
//! the copy engine, and the device's roofline.
//!
//! - `timing`: [`time_batches`] (warm-up until the clocks settle, then timed batches);
//! - `gpu_timer`: [`GpuTimer`], timestamps written between a stream's commands;
//! - `copy_calibration`: `Device::calibrate_copies`, the copy kernel's threshold;
//! - `roofline`: [`Roofline`], the measured bandwidth and compute rates, cached on disk.

mod copy_calibration;
mod gpu_timer;
mod roofline;
mod timing;

pub use copy_calibration::CopyCalibration;
pub use gpu_timer::GpuTimer;
pub use roofline::Roofline;
pub use timing::{BatchTimes, Clock, TimingPolicy, median, time_batches};

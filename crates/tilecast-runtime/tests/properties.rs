//! Property tests for buffers and views (proptest, fixed seed, bounded case counts so they stay
//! quick on a 2-core CI machine running lavapipe):
//! - random dtypes, shapes, storage modes, view offsets and lengths: every call returns a value
//!   or an error with a message, never a panic, and what it returns matches a host reference;
//! - uploads through random disjoint views of one allocation, from one thread per view,
//!   reproduce exactly the bytes written, and bytes no view covers stay zero.

mod common;

use common::device;
use half::{bf16, f16};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed};
use tilecast_runtime::{Buffer, DType, Element, F8E4M3, F8E5M2, Result, StorageMode};

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x7113_CA57),
        failure_persistence: None,
        ..Config::default()
    }
}

const MODES: [StorageMode; 3] = [StorageMode::Private, StorageMode::Shared, StorageMode::Managed];

/// `bytes` (cycled to `n * size`) as `n` elements of `T`.
fn elements<T: Element>(bytes: &[u8], n: usize) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    let raw: Vec<u8> = (0..n * size).map(|i| bytes[i % bytes.len()]).collect();
    bytemuck::pod_collect_to_vec(&raw)
}

/// Every fallible call either succeeds or fails with a message; successes are checked against
/// the host copy of what was written.
fn exercise<T: Element>(buf: &Buffer, view: &Buffer, seed: &[u8], wrong_len: bool) -> Result<()> {
    let n = view.len() + wrong_len as usize;
    let data: Vec<T> = elements(seed, n);
    let uploaded = view.upload(&data);
    if wrong_len {
        assert!(uploaded.is_err(), "a slice of the wrong length must be refused");
        return Ok(());
    }
    uploaded?;
    assert_eq!(
        bytemuck::cast_slice::<T, u8>(&view.download::<T>()?),
        bytemuck::cast_slice::<T, u8>(&data)
    );
    // The whole buffer shows the bytes at the view's offset.
    let whole: Vec<T> = buf.download()?;
    let at = (view.byte_offset() - buf.byte_offset()) as usize;
    let whole_bytes: &[u8] = bytemuck::cast_slice(&whole);
    assert_eq!(
        &whole_bytes[at..at + data.len() * std::mem::size_of::<T>()],
        bytemuck::cast_slice::<T, u8>(&data)
    );
    if view.storage_mode() == StorageMode::Private {
        assert!(view.host_view::<T>().is_err(), "Private buffers have no host views");
    } else {
        let hv = view.host_view::<T>()?;
        assert_eq!(bytemuck::cast_slice::<T, u8>(&hv), bytemuck::cast_slice::<T, u8>(&data));
    }
    Ok(())
}

fn exercise_any(buf: &Buffer, view: &Buffer, seed: &[u8], wrong_len: bool) -> Result<()> {
    match view.dtype() {
        DType::F32 => exercise::<f32>(buf, view, seed, wrong_len),
        DType::F16 => exercise::<f16>(buf, view, seed, wrong_len),
        DType::BF16 => exercise::<bf16>(buf, view, seed, wrong_len),
        DType::I32 => exercise::<i32>(buf, view, seed, wrong_len),
        DType::U32 => exercise::<u32>(buf, view, seed, wrong_len),
        DType::I8 => exercise::<i8>(buf, view, seed, wrong_len),
        DType::U8 => exercise::<u8>(buf, view, seed, wrong_len),
        DType::F8E4M3 => exercise::<F8E4M3>(buf, view, seed, wrong_len),
        DType::F8E5M2 => exercise::<F8E5M2>(buf, view, seed, wrong_len),
    }
}

fn dim() -> impl Strategy<Value = usize> {
    prop_oneof![6 => 1..24usize, 1 => Just(0usize), 1 => Just(1usize << 40), 1 => Just(usize::MAX)]
}

fn named<T>(r: Result<T>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            None
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn buffer_and_view_calls_never_panic_and_match_the_host(
        dtype in 0..DType::ALL.len(),
        mode in 0..3usize,
        shape in proptest::collection::vec(dim(), 0..4),
        offset_elems in 0..40u64,
        misalign in 0..4u64,
        len in 0..40usize,
        reshape in proptest::collection::vec(dim(), 0..4),
        seed in proptest::collection::vec(any::<u8>(), 1..16),
        wrong_len in proptest::bool::weighted(0.15),
    ) {
        let (d, dtype, mode) = (device(), DType::ALL[dtype], MODES[mode]);
        let Some(buf) = named(d.alloc_in(mode, dtype, &shape)) else { return Ok(()) };
        prop_assert_eq!(buf.byte_len(), buf.len() as u64 * dtype.size() as u64);
        let _ = named(buf.reshape(&reshape));
        let offset = offset_elems * dtype.size() as u64 + misalign % dtype.size() as u64;
        let Some(view) = named(buf.slice_view(offset, len)) else { return Ok(()) };
        prop_assert!(view.byte_offset() + view.byte_len() <= buf.allocation_byte_len());
        prop_assert_eq!(view.byte_offset() % dtype.size() as u64, 0);
        // A valid view of a live buffer accepts its upload and returns it.
        let r = exercise_any(&buf, &view, &seed, wrong_len);
        prop_assert!(r.is_ok(), "{} {:?} view at {} x {}: {}", mode, dtype, offset, len, r.unwrap_err());
        // The wrong host type is refused, never reinterpreted.
        if dtype != DType::U32 {
            prop_assert!(view.upload(&vec![0u32; view.len()]).is_err());
        }
    }
}

/// Splits `n` elements at `cuts` into segments; odd segments are gaps no view covers.
fn segments(n: usize, cuts: &[usize]) -> Vec<(usize, usize)> {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % n).chain([0, n]).collect();
    points.sort_unstable();
    points.dedup();
    points.windows(2).map(|w| (w[0], w[1] - w[0])).collect()
}

fn concurrent<T: Element + Sync>(mode: StorageMode, n: usize, cuts: &[usize], seed: u8) {
    let d = device();
    let buf = d.alloc_in(mode, T::DTYPE, &[n]).unwrap();
    let size = std::mem::size_of::<T>();
    let mut want = vec![0u8; n * size];
    let mut jobs = Vec::new();
    for (i, (start, len)) in segments(n, cuts).into_iter().enumerate() {
        if i % 3 == 2 {
            continue; // a gap: must stay zero
        }
        let rounds: Vec<Vec<T>> = (0..2)
            .map(|r| {
                let bytes: Vec<u8> = (0..8)
                    .map(|b| seed ^ (i as u8 * 31 + r * 7 + b).wrapping_mul(13) | 1)
                    .collect();
                elements(&bytes, len)
            })
            .collect();
        want[start * size..(start + len) * size]
            .copy_from_slice(bytemuck::cast_slice(rounds.last().unwrap()));
        jobs.push((buf.slice_view((start * size) as u64, len).unwrap(), rounds));
    }
    std::thread::scope(|s| {
        for (view, rounds) in &jobs {
            s.spawn(move || {
                for data in rounds {
                    view.upload(data).unwrap();
                }
            });
        }
    });
    let got: Vec<T> = buf.download().unwrap();
    assert_eq!(
        bytemuck::cast_slice::<T, u8>(&got),
        &want[..],
        "{mode} {} views {cuts:?}",
        T::DTYPE
    );
}

proptest! {
    #![proptest_config(config(16))]

    #[test]
    fn concurrent_uploads_through_disjoint_views_reproduce_every_byte(
        size in 0..3usize,
        mode in 0..3usize,
        n in 6..160usize,
        cuts in proptest::collection::vec(any::<usize>(), 1..8),
        seed in any::<u8>(),
    ) {
        let mode = MODES[mode];
        if mode == StorageMode::Shared && !device().capabilities().features.mappable_primary_buffers {
            return Ok(());
        }
        match size {
            0 => concurrent::<u8>(mode, n, &cuts, seed),
            1 => concurrent::<f16>(mode, n, &cuts, seed),
            _ => concurrent::<u32>(mode, n, &cuts, seed),
        }
    }
}

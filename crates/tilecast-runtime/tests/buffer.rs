//! Typed buffers in every storage mode: round trips for every dtype, views, and each bad input.

mod common;

use common::{device, pattern};
use half::{bf16, f16};
use tilecast_runtime::{DType, Element, Error, F8E4M3, F8E5M2, StorageMode};

fn modes() -> Vec<StorageMode> {
    device().capabilities().storage_modes.clone()
}

fn roundtrip<T: Element + PartialEq + std::fmt::Debug>(make: impl Fn(u32) -> T) {
    for mode in modes() {
        for n in [1usize, 3, 7, 33, 257] {
            let data: Vec<T> = pattern(n, 11).into_iter().map(&make).collect();
            let b = device().buffer_from_slice_in(mode, &data, &[n]).unwrap();
            assert_eq!(b.dtype(), T::DTYPE);
            assert_eq!(b.storage_mode(), mode);
            assert_eq!(b.byte_len(), (n * T::DTYPE.size()) as u64);
            assert_eq!(b.download::<T>().unwrap(), data, "{mode} {} n={n}", T::DTYPE);
        }
    }
}

#[test]
fn every_dtype_round_trips_in_every_mode() {
    roundtrip(|x| x as f32 * 0.25);
    roundtrip(|x| f16::from_f32((x % 2048) as f32));
    roundtrip(|x| bf16::from_f32((x % 256) as f32));
    roundtrip(|x| x as i32);
    roundtrip(|x| x);
    roundtrip(|x| x as i8);
    roundtrip(|x| x as u8);
    roundtrip(|x| F8E4M3(x as u8));
    roundtrip(|x| F8E5M2((x >> 3) as u8));
}

#[test]
fn new_buffers_are_zero_and_shapes_are_kept() {
    for mode in modes() {
        let b = device().alloc_in(mode, DType::I32, &[3, 5, 7]).unwrap();
        assert_eq!(b.shape(), &[3, 5, 7]);
        assert_eq!(b.len(), 105);
        assert!(b.download::<i32>().unwrap().iter().all(|&x| x == 0));
        let r = b.reshape(&[15, 7]).unwrap();
        assert_eq!(r.shape(), &[15, 7]);
        assert!(r.shares_allocation_with(&b));
        assert!(matches!(b.reshape(&[4, 26]), Err(Error::ReshapeMismatch { .. })));
    }
}

#[test]
fn clones_and_views_share_one_allocation() {
    for mode in modes() {
        let data = pattern(100, 3);
        let b = device().buffer_from_slice_in(mode, &data, &[10, 10]).unwrap();
        let c = b.clone();
        let v = b.slice_view(4 * 37, 21).unwrap();
        assert!(c.shares_allocation_with(&b) && v.shares_allocation_with(&b));
        assert_eq!((v.byte_offset(), v.shape()), (148, &[21][..]));
        assert_eq!(v.download::<u32>().unwrap(), &data[37..58]);
        // A view of a view offsets from its parent view.
        let vv = v.slice_view(8, 3).unwrap();
        assert_eq!(vv.byte_offset(), 156);
        assert_eq!(vv.download::<u32>().unwrap(), &data[39..42]);
        // Writing through a view changes the shared allocation and nothing outside the view.
        vv.upload(&[7u32, 8, 9]).unwrap();
        let mut expect = data.clone();
        expect[39..42].copy_from_slice(&[7, 8, 9]);
        assert_eq!(c.download::<u32>().unwrap(), expect, "{mode}");
    }
}

#[test]
fn sub_word_views_write_only_their_own_bytes() {
    // u8 and f16 views at offsets that split 4-byte words must not clobber their neighbours.
    for mode in modes() {
        let base: Vec<u8> = (0..23u8).map(|i| i.wrapping_mul(37)).collect();
        let b = device().buffer_from_slice_in(mode, &base, &[23]).unwrap();
        let v = b.slice_view(3, 7).unwrap();
        v.upload(&[200u8, 201, 202, 203, 204, 205, 206]).unwrap();
        let mut expect = base.clone();
        expect[3..10].copy_from_slice(&[200, 201, 202, 203, 204, 205, 206]);
        assert_eq!(b.download::<u8>().unwrap(), expect, "{mode}");
        assert_eq!(v.download::<u8>().unwrap(), &expect[3..10], "{mode}");

        let h: Vec<f16> = (0..9).map(|i| f16::from_f32(i as f32)).collect();
        let hb = device().buffer_from_slice_in(mode, &h, &[9]).unwrap();
        hb.slice_view(2, 1).unwrap().upload(&[f16::from_f32(-1.0)]).unwrap();
        let mut he = h.clone();
        he[1] = f16::from_f32(-1.0);
        assert_eq!(hb.download::<f16>().unwrap(), he, "{mode}");
    }
}

#[test]
fn empty_buffers_hold_nothing_in_every_mode() {
    let d = device();
    for mode in modes() {
        let e = d.alloc_in(mode, DType::F32, &[4, 0]).unwrap();
        assert!(e.is_empty() && e.byte_len() == 0 && e.shape() == [4, 0], "{mode}");
        e.upload::<f32>(&[]).unwrap();
        assert!(e.download::<f32>().unwrap().is_empty(), "{mode}");
        e.synchronize().unwrap();
        if mode.is_host_visible() {
            let err = e.host_view::<f32>().unwrap_err().to_string();
            assert!(err.contains("no elements"), "{err}");
        }
        let x = e.export_dlpack(Default::default()).unwrap();
        drop(x);
        assert!(d.buffer_from_slice_in::<f32>(mode, &[], &[0]).unwrap().is_empty(), "{mode}");
    }
}

#[test]
fn bad_allocations_are_errors() {
    let d = device();

    let limit = d.capabilities().limits.max_buffer_size;
    let elems = (limit / 4 + 1) as usize;
    let e = d.alloc_in(StorageMode::Private, DType::F32, &[elems]).unwrap_err();
    match &e {
        Error::TooLarge { limit: l, bytes, .. } => assert!(*l == limit && *bytes > limit),
        other => panic!("expected TooLarge, got {other}"),
    }
    assert!(e.to_string().contains(&limit.to_string()), "{e}");
    assert!(e.to_string().contains(d.name()), "{e}");

    let e = d.alloc_in(StorageMode::Managed, DType::U8, &[usize::MAX, 2]).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { .. }), "{e}");
    let e = d.alloc_in(StorageMode::Private, DType::F32, &[usize::MAX / 2]).unwrap_err();
    assert!(matches!(e, Error::ShapeOverflow { .. }), "{e}");
    assert!(d.take_uncaptured_errors().is_empty());
}

#[test]
fn bad_views_are_errors() {
    let b = device().alloc_in(StorageMode::Private, DType::F32, &[10]).unwrap();
    let e = b.slice_view(2, 1).unwrap_err();
    assert!(matches!(e, Error::Misaligned { byte_offset: 2, align: 4, .. }), "{e}");
    let e = b.slice_view(36, 2).unwrap_err();
    assert!(matches!(e, Error::ViewOutOfBounds { end: 44, available: 40, .. }), "{e}");
    assert!(e.to_string().contains("40 bytes"), "{e}");
    assert!(matches!(b.slice_view(0, 0), Err(Error::EmptyView { .. })));
    assert!(matches!(b.slice_view(u64::MAX - 3, 1), Err(Error::ViewOutOfBounds { .. })));
    assert!(matches!(b.slice_view(4, usize::MAX), Err(Error::ViewOutOfBounds { .. })));
    let v = b.slice_view(8, 4).unwrap();
    assert!(matches!(v.slice_view(8, 3), Err(Error::ViewOutOfBounds { .. })));
    assert!(v.slice_view(8, 2).is_ok());
}

#[test]
fn host_data_must_match_shape_and_dtype() {
    for mode in modes() {
        let b = device().alloc_in(mode, DType::F16, &[2, 3]).unwrap();
        let e = b.upload(&[f16::ZERO; 5]).unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { got: 5, expected: 6, .. }), "{e}");
        let e = b.upload(&[0.0f32; 6]).unwrap_err();
        assert!(
            matches!(e, Error::DTypeMismatch { buffer: DType::F16, requested: DType::F32, .. }),
            "{e}"
        );
        assert!(matches!(b.download::<bf16>(), Err(Error::DTypeMismatch { .. })));
        if mode.is_host_visible() {
            assert!(matches!(b.host_view::<bf16>(), Err(Error::DTypeMismatch { .. })));
            assert!(matches!(b.host_view_mut::<f32>(), Err(Error::DTypeMismatch { .. })));
            let mut w = b.host_view_mut::<f16>().unwrap();
            assert!(matches!(w.copy_from_slice(&[f16::ONE; 7]), Err(Error::LengthMismatch { .. })));
            assert!(matches!(w.write(5, &[f16::ONE; 2]), Err(Error::RangeOutOfBounds { .. })));
        }
        // Nothing was written by the failed calls.
        assert!(b.download::<f16>().unwrap().iter().all(|x| *x == f16::ZERO));
    }
    let e =
        device().buffer_from_slice_in(StorageMode::Private, &[1u32, 2, 3], &[2, 2]).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { got: 3, expected: 4, .. }), "{e}");
}

#[test]
fn private_buffers_have_no_host_views() {
    let b = device().alloc_in(StorageMode::Private, DType::U32, &[4]).unwrap();
    let e = b.host_view::<u32>().unwrap_err();
    assert!(matches!(e, Error::NotHostVisible { mode: StorageMode::Private, .. }));
    assert!(e.to_string().contains("download/upload"), "{e}");
    assert!(matches!(b.host_view_mut::<u32>(), Err(Error::NotHostVisible { .. })));
    assert!(matches!(b.did_modify_range(0..4), Err(Error::NotManaged { .. })));
}

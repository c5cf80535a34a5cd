//! Buffer pool reuse, caps and reuse safety; residency-set staging and commit counts.

mod common;

use common::{device, submit_spin};
use tilecast_runtime::{
    BufferPool, DType, Device, Error, ResidencySet, StorageMode, Stream, StreamConfig, SyncType,
};

#[test]
fn pool_reuses_best_fit_within_the_slack() {
    let pool = BufferPool::new(device(), StorageMode::Private, 1 << 20);
    let a = pool.alloc(DType::F32, &[1000]).unwrap(); // 4000 bytes
    let id = a.allocation_id();
    drop(a);
    assert_eq!(pool.stats().cached_bytes, 4000);
    // 4400 bytes: the free 4000-byte buffer is too small, so this is a miss.
    let b = pool.alloc(DType::F32, &[1100]).unwrap();
    assert_eq!(pool.stats().misses, 2);
    drop(b);
    // 3000 bytes: both free buffers (4000, 4400) fit within 3000 + 3000; the smaller one wins.
    let c = pool.alloc(DType::U8, &[3000]).unwrap();
    assert_eq!(pool.stats().hits, 1);
    assert_eq!(c.wgpu_buffer().size(), 4000);
    assert_ne!(c.allocation_id(), id, "a reused allocation gets a fresh id");
    // 1000 bytes: 4400 > 1000 + 1000, so no reuse.
    let _d = pool.alloc(DType::U8, &[1000]).unwrap();
    assert_eq!((pool.stats().hits, pool.stats().misses), (1, 3));
    // Large requests: slack is capped at 32 KiB.
    let big = pool.alloc(DType::U8, &[1 << 18]).unwrap();
    drop(big);
    let _over = pool.alloc(DType::U8, &[(1 << 18) - 40 * 1024]).unwrap();
    assert_eq!(pool.stats().hits, 1, "40 KiB of slack is more than 32 KiB");
    let _fits = pool.alloc(DType::U8, &[(1 << 18) - 30 * 1024]).unwrap();
    assert_eq!(pool.stats().hits, 2);
    assert!(pool.alloc(DType::F32, &[0]).unwrap().is_empty());
}

#[test]
fn pool_caps_cached_bytes_with_lru_eviction() {
    let d = Device::new().unwrap();
    let pool = BufferPool::new(&d, StorageMode::Managed, 10_000);
    let bufs: Vec<_> = (0..3).map(|i| pool.alloc(DType::U8, &[4000 + i * 4]).unwrap()).collect();
    assert_eq!(pool.stats().in_use_bytes, 4000 + 4004 + 4008);
    let mut it = bufs.into_iter();
    let (first, second, third) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
    drop(second);
    drop(first);
    drop(third); // 12012 > 10000: the least recently returned (second, 4004) goes
    let s = pool.stats();
    assert_eq!((s.evictions, s.cached_buffers, s.cached_bytes), (1, 2, 8008));
    assert_eq!(d.allocation_stats().live_allocations, 0);
    // The 4004-byte request now gets the 4008 buffer (4000 cannot hold it).
    let x = pool.alloc(DType::U8, &[4004]).unwrap();
    assert_eq!(x.wgpu_buffer().size(), 4008);
    assert_eq!(pool.stats().peak_in_use_bytes, 12012);
    // Managed memory comes back with its host copy.
    x.upload(&vec![9u8; 4004]).unwrap();
    assert_eq!(x.download::<u8>().unwrap(), vec![9u8; 4004]);
    pool.clear();
    assert_eq!(pool.stats().cached_bytes, 0);
}

#[test]
fn pool_reset_keeps_one_steps_working_set() {
    let pool = BufferPool::new(device(), StorageMode::Private, 1 << 24);
    // Step 1 uses sizes A and B.
    drop((pool.alloc(DType::F32, &[100]).unwrap(), pool.alloc(DType::F32, &[5000]).unwrap()));
    pool.reset();
    assert_eq!(pool.stats().cached_buffers, 2, "buffers returned in the step stay");
    // Step 2 uses only A; B is not reused.
    drop(pool.alloc(DType::F32, &[100]).unwrap());
    assert_eq!((pool.stats().step_hits, pool.stats().step_misses), (1, 0));
    pool.reset();
    let s = pool.stats();
    assert_eq!((s.cached_buffers, s.cached_bytes, s.step_hits), (1, 400, 0));
}

#[test]
fn pool_never_reuses_memory_the_gpu_still_uses() {
    // Its own device, so no other test's blocking wait delays the pool's completion poll.
    let d = Device::new().unwrap();
    let pool = BufferPool::new(&d, StorageMode::Private, 1 << 24);
    let mut s = Stream::with_config(&d, StreamConfig { max_ops: 100, max_bytes: u64::MAX });
    let busy = pool.alloc(DType::F32, &[8192]).unwrap();
    submit_spin(&mut s, &busy, 65535);
    let busy_id = busy.wgpu_buffer().clone();
    drop(busy); // back in the free list while the spin kernel still writes it
    let again = pool.alloc(DType::F32, &[8192]).unwrap();
    // Judged while the spin provably still runs (it did during the alloc too).
    let judged = !s.gpu_idle();
    if judged {
        assert!(again.wgpu_buffer() != &busy_id, "memory in use by the GPU was handed out");
        assert_eq!((pool.stats().busy_skips, pool.stats().misses), (1, 2));
    } else {
        eprintln!("the spin kernel finished before the check; busy case not judged");
    }
    s.synchronize(SyncType::CommitAndWait).unwrap();
    drop(again);
    let hits = pool.stats().hits;
    let later = pool.alloc(DType::F32, &[8192]).unwrap();
    assert_eq!(pool.stats().hits, hits + 1, "after the GPU finished, reuse is allowed");
    drop(later);
}

#[test]
fn residency_stages_and_commits_once_per_command_buffer() {
    let set = ResidencySet::new("weights", None);
    let bufs: Vec<_> = (0..1000)
        .map(|_| device().alloc_in(StorageMode::Private, DType::U8, &[256]).unwrap())
        .collect();
    for b in &bufs {
        set.add(b).unwrap();
        set.add(&b.slice_view(0, 16).unwrap()).unwrap(); // views count once
    }
    let st = set.stats();
    assert_eq!(
        (st.staged_changes, st.adds, st.commits, st.resident_allocations),
        (1000, 1000, 0, 0)
    );
    let y = device().alloc_in(StorageMode::Private, DType::U32, &[4]).unwrap();
    let mut s = Stream::with_config(device(), StreamConfig { max_ops: 100, max_bytes: u64::MAX });
    s.attach_residency_set(&set);
    s.fill(&y, 3u32).unwrap();
    s.synchronize(SyncType::Commit).unwrap();
    let st = set.stats();
    assert_eq!((st.commits, st.resident_allocations, st.resident_bytes), (1, 1000, 256_000));
    assert_eq!(s.counters().residency_commits, 1);
    // Nothing changed: the next command-buffer commit commits nothing.
    s.fill(&y, 4u32).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert_eq!((set.stats().commits, s.counters().residency_commits), (1, 1));
    // 500 removals, one commit; add+remove before a commit cancel out.
    for b in &bufs[..500] {
        set.remove(b);
    }
    let extra = device().alloc_in(StorageMode::Private, DType::U8, &[8]).unwrap();
    set.add(&extra).unwrap();
    set.remove(&extra);
    assert_eq!(set.stats().staged_changes, 500);
    s.fill(&y, 5u32).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let st = set.stats();
    assert_eq!((st.commits, st.resident_allocations, st.removes), (2, 500, 500));
    assert!(!set.contains(&bufs[0]) && set.contains(&bufs[999]) && !set.contains(&extra));
    // Freed memory leaves the set at the next commit.
    drop(bufs);
    assert!(set.commit());
    assert_eq!(set.stats().resident_allocations, 0);
    assert!(!set.commit(), "nothing staged: no commit");
}

#[test]
fn residency_budget_is_enforced_before_staging() {
    let set = ResidencySet::new("kv-cache", Some(10_000));
    let a = device().alloc_in(StorageMode::Private, DType::F32, &[2000]).unwrap(); // 8000 bytes
    let b = device().alloc_in(StorageMode::Private, DType::F32, &[600]).unwrap(); // 2400 bytes
    set.add(&a).unwrap();
    let e = set.add(&b).unwrap_err();
    assert!(
        matches!(e, Error::ResidencyBudget { adding: 2400, total: 10400, budget: 10000, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("kv-cache"), "{e}");
    assert_eq!(set.stats().staged_changes, 1);
    set.commit();
    set.remove(&a);
    set.add(&b).unwrap(); // a's removal is staged, so b fits
    set.commit();
    assert_eq!(set.stats().resident_bytes, 2400);
}

"""10,000 export/import cycles leave no memory behind (RSS measured before and after)."""

import gc
import os

import numpy as np

import tilecast

CYCLES = 10_000
# Bound on RSS growth over the measured cycles. A leak of one export context, mapping or
# buffer per cycle would be >= 10,000 x (a few hundred bytes .. 4 KiB): 4 MiB and up.
MAX_GROWTH_BYTES = 2 * 1024 * 1024


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cycle(shared, private, host):
    a = np.from_dlpack(shared)  # zero-copy export (Shared or Managed)
    assert a[0, 1] == host[0, 1]
    del a
    p = np.from_dlpack(private)  # copied export
    del p
    imported = tilecast.from_dlpack(host)  # import: a copy into a new buffer
    cap = imported.__dlpack__(max_version=(1, 1))  # an export dropped unconsumed
    del cap, imported


def test_ten_thousand_cycles_do_not_grow_memory(shared_ok):
    host = np.arange(3 * 41, dtype=np.float32).reshape(3, 41)
    mode = "shared" if shared_ok else "managed"
    shared = tilecast.Buffer.from_numpy(host, storage_mode=mode)
    private = tilecast.Buffer.from_numpy(host, storage_mode="private")
    for _ in range(500):  # warm-up: allocator pools, caches
        cycle(shared, private, host)
    gc.collect()
    before = rss_bytes()
    for _ in range(CYCLES):
        cycle(shared, private, host)
    gc.collect()
    growth = rss_bytes() - before
    print(f"RSS before {before / 2**20:.1f} MiB, growth over {CYCLES} cycles: {growth / 1024:.0f} KiB")
    assert tilecast.live_exports() == 0
    assert shared.dlpack_exports == 0
    assert growth < MAX_GROWTH_BYTES, f"RSS grew by {growth} bytes over {CYCLES} cycles"

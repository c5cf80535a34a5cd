"""SDPA's decode forms and backends at the decode suite's shapes (Hq32 Hkv8 D128 f16, one query
row, L 4096 and 32768), each in a plain loop of 50 calls timed with CUDA events (best of 5):
the default dispatch with `enable_gqa`, K/V expanded to every query head, and each backend
forced (flash, memory-efficient, cuDNN, math). `bench/peer_suite.py` times the default dispatch
only; this says which backend is SDPA's best on the card, and what a copy of K and V costs.

Then, for the default dispatch, how the timing method moves the figure: `peer_suite.py`'s
call and method (`scale=` and `is_causal=` passed, the calls captured in CUDA graphs: the GPU's
time alone, as tilecast's timestamps give), and the host's time to issue one call (a loop of
200 with no wait). Where the host's time is the larger, the plain loops above time the host.

Usage on the GPU machine: python3 bench/peer_decode_sdpa.py
"""
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def best_us(fn, n=50):
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = float("inf")
    for _ in range(5):
        start.record()
        for _ in range(n):
            fn()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) / n * 1000)
    return best


def suite_us(fn):
    """`peer_suite.py`'s `time_ms` (CUDA graphs of up to 200 calls, median of 5), in us."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from peer_suite import time_ms
    return time_ms(fn)[0] * 1000


def issue_us(fn, n=200):
    """Host time per call: a loop of `n` calls issued without waiting for the GPU."""
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6


def main():
    import warnings
    warnings.filterwarnings("ignore")
    for length in (4096, 32768):
        q = torch.randn(1, 32, 1, 128, device="cuda", dtype=torch.float16)
        k = torch.randn(1, 8, length, 128, device="cuda", dtype=torch.float16)
        v = torch.randn(1, 8, length, 128, device="cuda", dtype=torch.float16)
        ke, ve = k.repeat_interleave(4, 1), v.repeat_interleave(4, 1)
        forms = {
            "gqa": lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
            "expanded": lambda: F.scaled_dot_product_attention(q, ke, ve),
        }
        print(f"sdpa L={length}")
        for name, fn in forms.items():
            print(f"  default   {name:9s} {best_us(fn):8.1f} us")
        for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                        SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH):
            for name, fn in forms.items():
                try:
                    with sdpa_kernel([backend]):
                        t = f"{best_us(fn):8.1f} us"
                except RuntimeError as e:
                    t = f"unavailable ({str(e).splitlines()[0][:50]})"
                print(f"  {backend.name.lower():9s} {name:9s} {t}")
        print(f"  copy of K and V      {best_us(lambda: (k.clone(), v.clone())):8.1f} us")
        suite = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=False,  # noqa: E731
                                                       scale=128 ** -0.5, enable_gqa=True)
        print(f"  default   gqa, peer_suite.py's call, in graphs {suite_us(suite):8.1f} us")
        print(f"  default   gqa, host time to issue one call     {issue_us(forms['gqa']):8.1f} us")


if __name__ == "__main__":
    main()

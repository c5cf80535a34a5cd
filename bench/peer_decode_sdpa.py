"""SDPA's decode forms and backends at the decode suite's shapes (Hq32 Hkv8 D128 f16, one query
row, L 4096 and 32768), each in a plain loop of 50 calls timed with CUDA events (best of 5):
the default dispatch with `enable_gqa`, K/V expanded to every query head, and each backend
forced (flash, memory-efficient, cuDNN, math). `bench/peer_suite.py` times the default dispatch
only; this says which backend is SDPA's best on the card, and what a copy of K and V costs.

Usage on the GPU machine: python3 bench/peer_decode_sdpa.py
"""
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


if __name__ == "__main__":
    main()

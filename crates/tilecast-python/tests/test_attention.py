"""Attention from Python against a numpy reference: prefill (GQA, causal with fewer keys than
queries, LSE), decode over a contiguous cache, and the same decode through a shuffled paged
cache; the errors a caller can make."""

import numpy as np
import pytest

from tilecast import ops


def reference(q, k, v, causal, lens=None):
    """O and LSE for q [B, H, S, D] against k, v [B, KV, T, D] (f64); key j is visible to
    query i when not causal or j + S <= i + T (aligned to the end); lens cuts each sequence."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    b, h, s, d = q.shape
    kv, t = k.shape[1], k.shape[2]
    out = np.zeros((b, h, s, d))
    lse = np.full((b, h, s), -np.inf)
    for bi in range(b):
        tb = t if lens is None else int(lens[bi])
        for hi in range(h):
            kh = hi // (h // kv)
            for i in range(s):
                seen = [j for j in range(tb) if not causal or j + s <= i + tb]
                if not seen:
                    continue
                x = k[bi, kh, seen] @ q[bi, hi, i] / np.sqrt(d)
                m = x.max()
                w = np.exp(x - m)
                out[bi, hi, i] = w @ v[bi, kh, seen] / w.sum()
                lse[bi, hi, i] = m + np.log(w.sum())
    return out, lse


def f16(rng, *shape):
    return rng.uniform(-1, 1, shape).astype(np.float16)


def test_attention_gqa_and_causal(rng):
    q, k, v = f16(rng, 2, 4, 7, 64), f16(rng, 2, 2, 77, 64), f16(rng, 2, 2, 77, 64)
    for causal in (False, True):
        o = ops.attention(q, k, v, causal=causal)
        want, _ = reference(q, k, v, causal)
        assert (o.dtype, o.shape) == ("f16", (2, 4, 7, 64))
        np.testing.assert_allclose(o.numpy().astype(np.float64), want, atol=3e-3, rtol=3e-3)


def test_attention_lse_with_more_queries_than_keys(rng):
    """Causal with S > T: the first S - T queries see no key (zeros, LSE -inf)."""
    q, k, v = f16(rng, 1, 2, 33, 96), f16(rng, 1, 1, 20, 96), f16(rng, 1, 1, 20, 96)
    o, lse = ops.attention_lse(q, k, v, causal=True)
    want, want_lse = reference(q, k, v, True)
    np.testing.assert_allclose(o.numpy().astype(np.float64), want, atol=3e-3, rtol=3e-3)
    got = lse.numpy()
    assert np.isneginf(got[:, :, :13]).all()
    np.testing.assert_allclose(got[:, :, 13:], want_lse[:, :, 13:], atol=1e-3, rtol=1e-4)


def test_decode_contiguous_and_paged_agree(rng):
    """Two query rows per head (speculative decode, causal) against a cache of 100 and 61
    tokens: contiguous, then the same keys in shuffled 16-token pages with a spare page."""
    b, h, kv, r, d, page = 2, 8, 2, 2, 128, 16
    lens = np.array([100, 61], dtype=np.uint32)
    per_seq = 7
    q = f16(rng, b, h, r, d)
    k, v = f16(rng, b, kv, per_seq * page, d), f16(rng, b, kv, per_seq * page, d)
    pool = b * per_seq + 1
    order = rng.permutation(pool)[: b * per_seq].astype(np.uint32)
    table = order.reshape(b, per_seq)
    kp = np.zeros((pool, kv, page, d), np.float16)
    vp = np.zeros((pool, kv, page, d), np.float16)
    for bi in range(b):
        for i in range(per_seq):
            kp[table[bi, i]] = k[bi, :, i * page:(i + 1) * page]
            vp[table[bi, i]] = v[bi, :, i * page:(i + 1) * page]
    want, _ = reference(q, k, v, True, lens)
    paged = ops.paged_decode_attention(q, kp, vp, table, lens, causal=True).numpy()
    np.testing.assert_allclose(paged.astype(np.float64), want, atol=3e-3, rtol=3e-3)
    # The contiguous kernel on the first sequence's 100 tokens.
    contiguous = ops.decode_attention(q[:1], k[:1, :, :100], v[:1, :, :100], causal=True).numpy()
    np.testing.assert_allclose(contiguous, paged[:1], atol=2e-3, rtol=2e-3)


def test_attention_errors_name_the_problem(rng):
    q, k = f16(rng, 1, 2, 4, 17), f16(rng, 1, 2, 4, 17)
    with pytest.raises(ValueError, match="multiple of 16"):
        ops.attention(q, k, k)
    q, k = f16(rng, 1, 6, 4, 64), f16(rng, 1, 4, 4, 64)
    with pytest.raises(ValueError, match="multiple of KV"):
        ops.attention(q, k, k)
    q, kp = f16(rng, 1, 4, 1, 64), f16(rng, 3, 4, 16, 64)
    table = np.array([[0, 7]], dtype=np.uint32)
    lens = np.array([20], dtype=np.uint32)
    with pytest.raises(ValueError, match=r"entry \[0, 1\] is page 7, past the cache's 3 pages"):
        ops.paged_decode_attention(q, kp, kp, table, lens)

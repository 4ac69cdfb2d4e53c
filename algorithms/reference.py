"""Float64 attention oracle: forward `(o, lse)` and backward `(dq, dk, dv)`, materializing S and P.

Models exact softmax attention `O = softmax(scale * Q K^T + mask) V` in float64, whatever the input dtype
(bf16, fp8 and friends from `ml_dtypes` are upcast exactly). Depends only on NumPy, so GPU kernel tests can
import it.

Conventions (shared by every algorithm in this package):
- arrays are `(batch, heads, seqlen, headdim)`; `lse` is `(batch, heads, seqlen_q)`, natural log;
- `scale` defaults to `1 / sqrt(headdim)`;
- causal masks are aligned bottom-right as in FlashAttention 2+: query `i` sees key `j` iff `j <= i +
  seqlen_k - seqlen_q`;
- a query row that sees no key (only possible when causal and `seqlen_q > seqlen_k`) has `o = 0` and `lse =
  -inf`, and contributes nothing to any gradient.

The backward recomputes P and `D = rowsum(dO * O)` from `q, k, v` in float64 rather than trusting the `o`
and `lse` it is given (those are checked for shape only), so it is the exact gradient of the exact function
even when the caller's forward was a low-precision kernel. Memory is O(seqlen_q * seqlen_k): meant for
tests, not for long runs.
"""

from __future__ import annotations

import numpy as np

__all__ = ["backward", "causal_mask", "forward"]


def causal_mask(seqlen_q: int, seqlen_k: int) -> np.ndarray:
    """Boolean `(seqlen_q, seqlen_k)` array, True where query i may see key j (bottom-right aligned)."""
    rows = np.arange(seqlen_q)[:, None]  # (Nq, 1)
    cols = np.arange(seqlen_k)[None, :]  # (1, Nk)
    return cols <= rows + (seqlen_k - seqlen_q)  # (Nq, Nk)


def _check_qkv(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> None:
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise ValueError(f"q, k, v must be 4-D (batch, heads, seqlen, headdim); got {q.shape}, {k.shape}, {v.shape}")
    if k.shape != v.shape or q.shape[:2] != k.shape[:2] or q.shape[3] != k.shape[3]:
        raise ValueError(f"incompatible shapes q={q.shape}, k={k.shape}, v={v.shape}")


def _probabilities(
    q: np.ndarray, k: np.ndarray, causal: bool, scale: float | None
) -> tuple[np.ndarray, np.ndarray, float]:
    """Return `(P, lse, scale)` in float64; fully masked rows get P = 0 and lse = -inf."""
    _check_qkv(q, k, k)
    scale = 1.0 / np.sqrt(q.shape[-1]) if scale is None else float(scale)
    q64, k64 = q.astype(np.float64), k.astype(np.float64)
    s = scale * np.einsum("bhid,bhjd->bhij", q64, k64)  # (B, H, Nq, Nk)
    if causal:
        s = np.where(causal_mask(q.shape[2], k.shape[2]), s, -np.inf)  # (B, H, Nq, Nk)
    m = s.max(axis=-1, keepdims=True)  # (B, H, Nq, 1)
    m_safe = np.where(np.isneginf(m), 0.0, m)  # (B, H, Nq, 1)
    p = np.exp(s - m_safe)  # (B, H, Nq, Nk)
    row_sum = p.sum(axis=-1, keepdims=True)  # (B, H, Nq, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(row_sum > 0, p / row_sum, 0.0)  # (B, H, Nq, Nk)
        lse = np.where(row_sum[..., 0] > 0, m_safe[..., 0] + np.log(row_sum[..., 0]), -np.inf)  # (B, H, Nq)
    return p, lse, scale


def forward(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False, scale: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Exact attention in float64. Returns `o` `(B, H, Nq, d)` and `lse` `(B, H, Nq)`, both float64."""
    _check_qkv(q, k, v)
    p, lse, _ = _probabilities(q, k, causal, scale)
    o = np.einsum("bhij,bhjd->bhid", p, v.astype(np.float64))  # (B, H, Nq, d)
    return o, lse


def backward(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    o: np.ndarray,
    lse: np.ndarray,
    do: np.ndarray,
    causal: bool = False,
    scale: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact gradients `(dq, dk, dv)` in float64 of `sum(o * do)` with respect to `q, k, v`."""
    _check_qkv(q, k, v)
    if o.shape != q.shape or do.shape != q.shape or lse.shape != q.shape[:3]:
        raise ValueError(f"o, do must be {q.shape} and lse {q.shape[:3]}; got {o.shape}, {do.shape}, {lse.shape}")
    p, _, scale = _probabilities(q, k, causal, scale)
    q64, k64, v64, do64 = (x.astype(np.float64) for x in (q, k, v, do))
    o64 = np.einsum("bhij,bhjd->bhid", p, v64)  # (B, H, Nq, d)
    dv = np.einsum("bhij,bhid->bhjd", p, do64)  # (B, H, Nk, d)
    dp = np.einsum("bhid,bhjd->bhij", do64, v64)  # (B, H, Nq, Nk)
    d_row = np.sum(do64 * o64, axis=-1, keepdims=True)  # (B, H, Nq, 1)
    ds = p * (dp - d_row)  # (B, H, Nq, Nk)
    dq = scale * np.einsum("bhij,bhjd->bhid", ds, k64)  # (B, H, Nq, d)
    dk = scale * np.einsum("bhij,bhid->bhjd", ds, q64)  # (B, H, Nk, d)
    return dq, dk, dv

"""Standard attention as a framework runs it: three kernels that materialize S and P in HBM.

Forward: `S = scale * Q K^T` (GEMM, fp32 accumulation, S stored in the storage dtype), `P = softmax(S)` (one
kernel: reads S, applies the causal mask, computes in fp32, stores P in the storage dtype and lse in fp32),
`O = P V` (GEMM). Backward reads the stored P (here recomputed bit-identically by the same code) and runs
`dV = P^T dO`, `dP = dO V^T`, `dS = P * (dP - rowsum(P * dP))` (softmax backward), `dQ = scale * dS K`, `dK
= scale * dS^T Q`, each result stored in the storage dtype. HBM bytes count every operand read once and
every result written once per kernel (ideal GEMM reuse: Theta(N d + N^2) of FA1 Theorem 2). Ignored: fused
scale into the GEMM epilogue, dropout, the framework's own temporary buffers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics.calls import check_backward_inputs, check_inputs, resolve_scale, with_stats
from .._numerics.options import parse_options
from .._numerics.precision import Precision, precision_of, round_to
from .._numerics.stats import Tally

__all__ = ["StandardOptions", "backward", "forward"]

_ALGO = "standard"


@dataclass(frozen=True)
class StandardOptions:
    """Standard attention has no tuning options; the class exists so that typos raise."""


def _probabilities(
    q: np.ndarray, k: np.ndarray, causal: bool, scale: float, prec: Precision
) -> tuple[np.ndarray, np.ndarray]:
    """Stored P `(B, H, Nq, Nk)` (storage dtype values, in acc) and lse `(B, H, Nq)`."""
    acc = prec.acc
    s = (q.astype(acc) @ k.astype(acc).swapaxes(-1, -2)) * acc.type(scale)  # (B, H, Nq, Nk) fp32 GEMM
    s = round_to(s, prec.storage, acc)  # (B, H, Nq, Nk) S as stored
    nq, nk = q.shape[2], k.shape[2]
    if causal:
        rows = np.arange(nq)[:, None]  # (Nq, 1)
        cols = np.arange(nk)[None, :]  # (1, Nk)
        s = np.where(cols <= rows + (nk - nq), s, -np.inf)  # (B, H, Nq, Nk)
    m = s.max(axis=-1, keepdims=True)  # (B, H, Nq, 1)
    m_safe = np.where(np.isneginf(m), 0.0, m).astype(acc)  # (B, H, Nq, 1)
    e = np.exp(s - m_safe)  # (B, H, Nq, Nk)
    row_sum = e.sum(axis=-1, keepdims=True)  # (B, H, Nq, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(row_sum > 0, e / row_sum, 0.0).astype(acc)  # (B, H, Nq, Nk)
        lse = np.where(row_sum[..., 0] > 0, m_safe[..., 0] + np.log(row_sum[..., 0]), -np.inf)  # (B, H, Nq)
    return round_to(p, prec.storage, acc), lse.astype(acc)


def forward(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    causal: bool = False,
    *,
    scale: float | None = None,
    return_stats: bool = False,
    **options: Any,
) -> tuple[Any, ...]:
    """`(o, lse)` (+ `NumericsStats` if `return_stats`); o in the storage dtype, lse in the acc dtype."""
    check_inputs(_ALGO, q, k, v)
    parse_options(_ALGO, StandardOptions, options)
    prec = precision_of(q, k, v)
    scale = resolve_scale(scale, q.shape[-1])
    b, h, nq, d = q.shape
    nk = k.shape[2]
    p, lse = _probabilities(q, k, causal, scale, prec)  # (B, H, Nq, Nk), (B, H, Nq)
    o = (p @ v.astype(prec.acc)).astype(prec.storage)  # (B, H, Nq, d) fp32 GEMM
    e_in, e_s = prec.input_bytes, prec.storage_bytes
    tally = Tally()
    # per (batch, head), multiplied by batch * heads at the end
    # GEMM 1: reads Q and K, writes S
    tally.add(hbm_read_bytes=(nq + nk) * d * e_in, hbm_write_bytes=nq * nk * e_s)
    # softmax: reads S, writes P and lse; one exp per element of S
    tally.add(hbm_read_bytes=nq * nk * e_s, hbm_write_bytes=nq * nk * e_s + nq * prec.acc_bytes)
    tally.add(exp_hardware=nq * nk)
    # GEMM 2: reads P and V, writes O
    tally.add(hbm_read_bytes=nq * nk * e_s + nk * d * e_in, hbm_write_bytes=nq * d * e_s)
    return with_stats((o, lse), tally.freeze(copies=b * h), return_stats)


def backward(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    o: np.ndarray,
    lse: np.ndarray,
    do: np.ndarray,
    causal: bool = False,
    *,
    scale: float | None = None,
    return_stats: bool = False,
    **options: Any,
) -> tuple[Any, ...]:
    """`(dq, dk, dv)` in the storage dtype (+ `NumericsStats` if `return_stats`)."""
    check_inputs(_ALGO, q, k, v)
    check_backward_inputs(_ALGO, q, o, lse, do)
    parse_options(_ALGO, StandardOptions, options)
    prec = precision_of(q, k, v)
    acc, st = prec.acc, prec.storage
    scale = resolve_scale(scale, q.shape[-1])
    b, h, nq, d = q.shape
    nk = k.shape[2]
    p, _ = _probabilities(q, k, causal, scale, prec)  # (B, H, Nq, Nk) the stored P
    qa, ka, va, doa = (x.astype(acc) for x in (q, k, v, do))  # (B, H, N, d) each
    dv = p.swapaxes(-1, -2) @ doa  # (B, H, Nk, d)
    dp = round_to(doa @ va.swapaxes(-1, -2), st, acc)  # (B, H, Nq, Nk) dP as stored
    ds = p * (dp - np.sum(p * dp, axis=-1, keepdims=True))  # (B, H, Nq, Nk)
    ds = round_to(ds, st, acc)  # (B, H, Nq, Nk) dS as stored
    dq = acc.type(scale) * (ds @ ka)  # (B, H, Nq, d)
    dk = acc.type(scale) * (ds.swapaxes(-1, -2) @ qa)  # (B, H, Nk, d)
    e_in, e_s, e_do = prec.input_bytes, prec.storage_bytes, do.dtype.itemsize
    tally = Tally()  # per (batch, head)
    # dV = P^T dO: reads P and dO, writes dV
    tally.add(hbm_read_bytes=nq * nk * e_s + nq * d * e_do, hbm_write_bytes=nk * d * e_s)
    # dP = dO V^T: reads dO and V, writes dP
    tally.add(hbm_read_bytes=nq * d * e_do + nk * d * e_in, hbm_write_bytes=nq * nk * e_s)
    # softmax backward: reads P and dP, writes dS
    tally.add(hbm_read_bytes=2 * nq * nk * e_s, hbm_write_bytes=nq * nk * e_s)
    # dQ = dS K and dK = dS^T Q: each reads dS and one of K, Q, writes its result
    tally.add(hbm_read_bytes=2 * nq * nk * e_s + (nq + nk) * d * e_in, hbm_write_bytes=(nq + nk) * d * e_s)
    result = (dq.astype(st), dk.astype(st), dv.astype(st))
    return with_stats(result, tally.freeze(copies=b * h), return_stats)

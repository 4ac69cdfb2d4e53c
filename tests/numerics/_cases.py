"""Inputs and error measures shared by the numerics tests."""

from __future__ import annotations

from functools import cache

import ml_dtypes
import numpy as np

from algorithms import reference

BF16 = np.dtype(ml_dtypes.bfloat16)
E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)


@cache
def inputs(nq: int, nk: int, d: int, dtype: np.dtype, seed: int = 0) -> tuple[np.ndarray, ...]:
    """q, k, v, do of shape (1, 2, N, d) in `dtype` (values drawn N(0, 1) in float64, then rounded)."""
    rng = np.random.default_rng(seed)
    q, do = (rng.standard_normal((1, 2, nq, d)).astype(dtype) for _ in range(2))
    k, v = (rng.standard_normal((1, 2, nk, d)).astype(dtype) for _ in range(2))
    return q, k, v, do


@cache
def exact(nq: int, nk: int, d: int, dtype: np.dtype, causal: bool) -> tuple[np.ndarray, ...]:
    """Reference (o, lse, dq, dk, dv) on the rounded inputs."""
    q, k, v, do = inputs(nq, nk, d, dtype)
    o, lse = reference.forward(q, k, v, causal)
    return (o, lse, *reference.backward(q, k, v, o, lse, do, causal))


def max_err(x: np.ndarray, ref: np.ndarray) -> float:
    return float(np.abs(x.astype(np.float64) - ref).max())


def fa_atol(ref: np.ndarray, dtype: np.dtype) -> float:
    """FA's test slack: twice the rounding error of `ref + 0.3 - 0.3` in `dtype`."""
    r = ref.astype(dtype)
    return 2.0 * max_err(((r + dtype.type(0.3)).astype(dtype) - dtype.type(0.3)).astype(dtype), ref)

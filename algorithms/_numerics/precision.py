"""Which dtype each array lives in and where values are rounded, as in the CUDA kernels.

Modeled: inputs in float64, float32, float16, bfloat16, float8_e4m3fn or float8_e5m2 (`ml_dtypes` provides
the last three). Low-precision inputs are multiplied with fp32 accumulation (tensor cores); float32 inputs
compute in float32 and float64 inputs in float64 so that the tiled algorithms can be checked against the
float64 reference to round-off. Arrays a framework stores (S, P, O, dQ, ...) are rounded to the "storage"
dtype: the input dtype, or bfloat16 for fp8 inputs (FA3 writes a bf16 output for fp8 inputs; no attention
kernel stores S or P in fp8). Ignored: TF32, flush-to-zero of subnormals, the order of additions inside one
tensor-core MMA.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

__all__ = ["FP8_DTYPES", "Precision", "precision_of", "round_to"]

FP8_DTYPES: tuple[np.dtype, ...] = (np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2))
_SUPPORTED: tuple[np.dtype, ...] = (
    np.dtype(np.float64),
    np.dtype(np.float32),
    np.dtype(np.float16),
    np.dtype(ml_dtypes.bfloat16),
    *FP8_DTYPES,
)


@dataclass(frozen=True)
class Precision:
    """Dtypes of one call: `input` (Q, K, V), `acc` (accumulators, l, m, lse), `storage` (S, P, O)."""

    input: np.dtype
    acc: np.dtype
    storage: np.dtype

    @property
    def input_bytes(self) -> int:
        return self.input.itemsize

    @property
    def acc_bytes(self) -> int:
        return self.acc.itemsize

    @property
    def storage_bytes(self) -> int:
        return self.storage.itemsize

    @property
    def is_fp8(self) -> bool:
        return self.input in FP8_DTYPES


def precision_of(*arrays: np.ndarray) -> Precision:
    """Precision of a call whose inputs are `arrays`; they must share one supported dtype."""
    dtypes = {np.dtype(a.dtype) for a in arrays}
    if len(dtypes) != 1:
        raise ValueError(f"inputs must share one dtype, got {sorted(str(d) for d in dtypes)}")
    (dtype,) = dtypes
    if dtype not in _SUPPORTED:
        raise ValueError(f"unsupported dtype {dtype}; supported: {', '.join(str(d) for d in _SUPPORTED)}")
    if dtype == np.float64:
        return Precision(dtype, dtype, dtype)
    storage = np.dtype(ml_dtypes.bfloat16) if dtype in FP8_DTYPES else dtype
    return Precision(dtype, np.dtype(np.float32), storage)


def round_to(x: np.ndarray, dtype: np.dtype, acc: np.dtype) -> np.ndarray:
    """Round `x` to `dtype` (round-to-nearest-even, as the kernels' conversions) and return it in `acc`."""
    return x.astype(dtype).astype(acc)

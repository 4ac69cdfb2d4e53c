"""Argument checks shared by every `forward` / `backward`: shapes, softmax scale, optional stats.

Shapes follow PyTorch's SDPA: `(batch, heads, seqlen, headdim)`; K and V share a shape; Q may have another
sequence length. Ignored: GQA/MQA (K/V with fewer heads) and variable-length batches.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .stats import NumericsStats

__all__ = ["check_backward_inputs", "check_inputs", "resolve_scale", "with_stats"]


def check_inputs(algo: str, q: np.ndarray, k: np.ndarray, v: np.ndarray) -> None:
    """Raise `ValueError` unless q, k, v are 4-D with compatible shapes."""
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise ValueError(f"{algo}: q, k, v must be (batch, heads, seqlen, headdim); got {q.shape}, {k.shape}")
    if k.shape != v.shape or q.shape[:2] != k.shape[:2] or q.shape[3] != k.shape[3]:
        raise ValueError(f"{algo}: incompatible shapes q={q.shape}, k={k.shape}, v={v.shape}")


def check_backward_inputs(algo: str, q: np.ndarray, o: np.ndarray, lse: np.ndarray, do: np.ndarray) -> None:
    """Raise `ValueError` unless o and do have q's shape and lse is `(batch, heads, seqlen_q)`."""
    if o.shape != q.shape or do.shape != q.shape or lse.shape != q.shape[:3]:
        raise ValueError(
            f"{algo}: o, do must be {q.shape} and lse {q.shape[:3]}; got {o.shape}, {do.shape}, {lse.shape}"
        )


def resolve_scale(scale: float | None, headdim: int) -> float:
    """The softmax scale: `1 / sqrt(headdim)` unless given."""
    return 1.0 / math.sqrt(headdim) if scale is None else float(scale)


def with_stats(result: tuple[Any, ...], stats: NumericsStats, return_stats: bool) -> tuple[Any, ...]:
    """`result`, with `stats` appended when asked for."""
    return (*result, stats) if return_stats else result

"""Randomized Hadamard transform for FA3's incoherent processing.

`M = diag(s) H / sqrt(d)` with `H` the Sylvester Hadamard matrix and `s` random signs from a seeded
generator is orthogonal, so `(Q M)(K M)^T = Q K^T`: applying the same `M` to Q and K changes nothing
mathematically but spreads outlier features over all coordinates before FP8 quantization. The kernel would
apply it with a fast O(d log d) transform fused into the preceding layer; here it is a dense matmul (same
result up to rounding).
"""

from __future__ import annotations

import numpy as np

__all__ = ["random_hadamard"]


def random_hadamard(d: int, seed: int) -> np.ndarray:
    """Orthogonal float64 `(d, d)` randomized Hadamard matrix; `d` must be a power of two."""
    if d <= 0 or d & (d - 1):
        raise ValueError(f"incoherent processing needs a power-of-two headdim, got {d}")
    h = np.ones((1, 1))  # (1, 1)
    while h.shape[0] < d:
        h = np.block([[h, h], [h, -h]])  # (2n, 2n)
    signs = np.random.default_rng(seed).choice([-1.0, 1.0], size=d)  # (d,)
    return signs[:, None] * h / np.sqrt(d)  # (d, d)

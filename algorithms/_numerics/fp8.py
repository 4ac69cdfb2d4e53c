"""FP8 (e4m3) quantization with one scale per tensor or one per tile, as FA3's FP8 path.

`x ~= scale * q` with `q = fp8(x / scale)` and `scale = amax / 448` (448 = largest finite e4m3), computed
per tensor (one scale for all batches and heads: the paper's baseline) or per tile of `block` rows of one
(batch, head) (block quantization). Scales are returned broadcast per row, `(B, H, N, 1)`, so a tile's scale
is the value on any of its rows. Ignored: delayed scaling (amax history) and scale rounding to powers of
two.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

__all__ = ["E4M3", "E4M3_MAX", "quantize"]

E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
E4M3_MAX = float(ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).max)


def quantize(x: np.ndarray, block: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Return `(q, scale)`: `q` e4m3 `(B, H, N, d)`, `scale` float32 `(B, H, N, 1)`; None: per tensor."""
    x32 = x.astype(np.float32)  # (B, H, N, d)
    b, h, n, _ = x32.shape
    if block is None:
        amax = np.full((b, h, n, 1), np.abs(x32).max(), dtype=np.float32)  # (B, H, N, 1)
    else:
        pad = -n % block
        padded = np.pad(np.abs(x32), ((0, 0), (0, 0), (0, pad), (0, 0)))  # (B, H, T*block, d)
        tile_amax = padded.reshape(b, h, -1, block * x32.shape[-1]).max(axis=-1)  # (B, H, T)
        amax = np.repeat(tile_amax, block, axis=-1)[..., :n, None]  # (B, H, N, 1)
    scale = np.where(amax > 0, amax / np.float32(E4M3_MAX), np.float32(1.0))  # (B, H, N, 1)
    scale = scale.astype(np.float32)  # (B, H, N, 1)
    return (x32 / scale).astype(E4M3), scale

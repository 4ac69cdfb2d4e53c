"""The share of conditional-rescale decisions that rescale, taken from a sample without the numerics stack.

v4's schedule measures that share on one head of random N(0, 1) bf16 inputs (`algorithms.v4.schedule`). Running
`algorithms.v4.numerics.forward` for it imports ml_dtypes (about 0.55 CPU seconds, more than a whole v2
prediction) and computes every exp, P and P V of the sample, none of which a decision depends on: a row's decision
depends only on its scores (the running max before and after each key block). This module makes the same scores by
the same NumPy operations, in the same order on arrays of the same shapes and dtypes, and the same decisions:
  - bf16 inputs: each float64 draw rounded to bf16 (round to nearest, ties to even, straight from float64 as
    ml_dtypes' cast does) by its bits, then held in float32 as the numerics' exact upcast holds it;
  - the loop of `algorithms._numerics.flash_forward.flash_forward` over Q tiles and key blocks, its causal skip and
    mask, its running max and `_rescale_rows` (a group of rows rescales if any row of it needs to).
`tests/schedules/test_v4_rescale_sample.py` checks it against the numerics over many configurations.
"""

from __future__ import annotations

import math

import numpy as np

from algorithms._numerics.blocks import causal_tile_mask, tile_fully_masked, tile_needs_mask, tiles

_LOG2E = float(np.log2(np.e))  # as `algorithms._numerics.flash_forward`'s
# float64 bits below bf16's 7 stored mantissa bits (float64 stores 52)
_DROPPED_BITS = np.uint64(52 - 7)
_HALF_ULP_LESS_ONE = np.uint64((1 << (52 - 7 - 1)) - 1)
_KEPT_MASK = ~np.uint64((1 << (52 - 7)) - 1)


def bf16_in_float32(values: np.ndarray) -> np.ndarray:
    """float64 `values` rounded to bf16 (nearest, ties to even) and held in float32; finite values only."""
    bits = values.view(np.uint64)
    odd = (bits >> _DROPPED_BITS) & np.uint64(1)  # ties go to the even neighbour
    rounded = (bits + _HALF_ULP_LESS_ONE + odd) & _KEPT_MASK
    return rounded.view(np.float64).astype(np.float32)  # exact: 8 significant bits


def rescale_fraction(
    headdim: int, rows: int, keys: int, causal: bool, block_m: int, block_n: int, tau: float, group_rows: int
) -> float:
    """performed / (performed + skipped) of `flash_forward`'s conditional-rescale decisions on the sample that
    `algorithms.v4.schedule.measured_rescale_fraction` draws: Q (1, 1, rows, headdim), then K (1, 1, keys, headdim),
    from `default_rng(0)` (its V, drawn last, decides nothing)."""
    rng = np.random.default_rng(0)
    qa = bf16_in_float32(rng.standard_normal((1, 1, rows, headdim)))  # (1, 1, rows, d)
    ka = bf16_in_float32(rng.standard_normal((1, 1, keys, headdim)))  # (1, 1, keys, d)
    scale_log2 = np.float32(1.0 / math.sqrt(headdim) * _LOG2E)
    performed = skipped = 0
    for qt in tiles(rows, block_m):
        q_i = qa[:, :, qt.start : qt.stop]  # (1, 1, r, d)
        row_max = np.full((1, 1, qt.size), -np.inf, dtype=np.float32)  # (1, 1, r)
        for kt in tiles(keys, block_n):
            if causal and tile_fully_masked(qt, kt, rows, keys):
                continue
            s = q_i @ ka[:, :, kt.start : kt.stop].swapaxes(-1, -2)  # (1, 1, r, c) fp32 MMA
            s = s * scale_log2  # (1, 1, r, c) log2 units
            if causal and tile_needs_mask(qt, kt, rows, keys):
                s = np.where(causal_tile_mask(qt, kt, rows, keys), s, -np.inf)  # (1, 1, r, c)
            new_max = np.maximum(row_max, s.max(axis=-1))  # (1, 1, r)
            with np.errstate(invalid="ignore"):  # -inf - -inf on rows that saw no key yet
                rescale = _rescale_rows(new_max - row_max, tau, group_rows)  # (1, 1, r)
            had_state = np.isfinite(row_max)  # (1, 1, r)
            performed += int(np.sum(rescale & had_state))
            skipped += int(np.sum(~rescale & had_state))
            row_max = np.where(rescale, new_max, row_max)  # (1, 1, r)
    decisions = performed + skipped
    return performed / decisions if decisions else 0.0


def _rescale_rows(grow: np.ndarray, tau: float, group_rows: int) -> np.ndarray:
    """Which rows rescale `(1, 1, r)` given how much each row's max grew: `flash_forward`'s `_rescale_rows`."""
    need = grow > tau  # (1, 1, r)
    pad = -need.shape[-1] % group_rows
    padded = np.pad(need, ((0, 0), (0, 0), (0, pad)))  # (1, 1, G*g)
    group_need = padded.reshape(*need.shape[:2], -1, group_rows).any(axis=-1)  # (1, 1, G)
    return np.repeat(group_need, group_rows, axis=-1)[..., : need.shape[-1]]  # (1, 1, r)

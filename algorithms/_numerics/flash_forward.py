"""The Q-outer online-softmax forward of FlashAttention 2, 3 and 4, one tile pair at a time.

Modeled (FA2 Algorithm 1, shared by v2, v3 and v4): for each Q tile, loop over the K/V tiles it can see
(fully masked causal tiles skipped), keep an unnormalized fp32 output `O`, the running row sum `l` and the
max `m` used for the exps, all in log2 units (`S * scale * log2(e)`, exps as exp2, as the kernels do),
divide by `l` once at the end and save only `lse`. Knobs used by later generations:
- `ExpPolicy`: which columns of each tile go through FA4's software exp2 (the tail of every 32-column
  fragment, like FA4's `ex2_emu_freq` pattern) and the rest through the correctly rounded MUFU stand-in;
- `RescalePolicy`: FA2 rescales O and l every step; FA4 only when the max grows by more than a threshold
  (log2 units), for whole groups of rows (a warp votes), else it keeps the stale max. Both are exact because
  `lse` uses the max the exps were taken against;
- `p_dtype`: P is rounded to the input dtype (or e4m3 for FA3's FP8 path) before the second GEMM, while `l`
  sums the unrounded fp32 P, as in the kernels; `p_offset_log2` is FA3's FP8 trick of taking the exps
  against `max - 8` so that P lies in [0, 256] and uses more of e4m3's range (modeled as an exact
  power-of-two scaling of P around its rounding);
- `Fp8Operands`: FA3's quantized Q, K, V with per-row (tile-constant) scales, applied to the fp32 products.
  Masked scores are zeroed after the exp, so rows with no visible key end with `o = 0`, `lse = -inf`.
  Ignored: the order of additions inside an MMA, warp-level data layout, register and smem limits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .blocks import causal_tile_mask, tile_fully_masked, tile_needs_mask, tiles
from .exp2 import exp2_hardware, exp2_software
from .precision import Precision, round_to
from .stats import NumericsStats, Tally

__all__ = ["FRAGMENT_COLUMNS", "ExpPolicy", "ForwardRecipe", "Fp8Operands", "RescalePolicy", "flash_forward"]

FRAGMENT_COLUMNS = 32  # FA4 converts each row of S in fragments of 32 columns; emulation is per fragment
_LOG2E = float(np.log2(np.e))
_LN2 = float(np.log(2.0))


@dataclass(frozen=True)
class ExpPolicy:
    """`emulation_fraction` of each 32-column fragment (rounded to whole columns) uses the polynomial."""

    emulation_fraction: float = 0.0
    poly_degree: int = 3

    def emulated_columns(self, ncols: int) -> np.ndarray:
        """Boolean `(ncols,)`: the last `round(32 * fraction)` columns of every fragment are emulated."""
        per_fragment = round(FRAGMENT_COLUMNS * self.emulation_fraction)
        local = np.arange(ncols) % FRAGMENT_COLUMNS  # (c,)
        return local >= FRAGMENT_COLUMNS - per_fragment  # (c,)


@dataclass(frozen=True)
class RescalePolicy:
    """`threshold=None`: rescale every step (FA2); else only when the max grows by more than it (FA4)."""

    threshold: float | None = None
    group_rows: int = 1


@dataclass(frozen=True)
class Fp8Operands:
    """e4m3 Q, K, V `(B, H, N, d)` and their float32 scales broadcast per row `(B, H, N, 1)`."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    q_scale: np.ndarray
    k_scale: np.ndarray
    v_scale: np.ndarray


@dataclass(frozen=True)
class ForwardRecipe:
    """Everything that distinguishes v2, v3 and v4 forward numerics."""

    block_m: int
    block_n: int
    p_dtype: np.dtype
    exp: ExpPolicy = ExpPolicy()
    rescale: RescalePolicy = RescalePolicy()
    p_offset_log2: int = 0


def _exp2_tile(x: np.ndarray, policy: ExpPolicy, acc: np.dtype) -> tuple[np.ndarray, int]:
    """exp2 of a score tile `(B, H, r, c)`; returns P and the number of emulated exps per (b, h)."""
    if acc == np.float64 or policy.emulation_fraction == 0.0:
        return exp2_hardware(x), 0
    emulated = policy.emulated_columns(x.shape[-1])  # (c,)
    p = exp2_hardware(x)  # (B, H, r, c)
    p[..., emulated] = exp2_software(x[..., emulated], policy.poly_degree)  # (B, H, r, c_emu)
    return p, int(emulated.sum()) * x.shape[-2]


def _rescale_rows(grow: np.ndarray, policy: RescalePolicy) -> np.ndarray:
    """Which rows rescale `(B, H, r)` given how much each row's max grew `(B, H, r)` (inf for first tile)."""
    if policy.threshold is None:
        return np.ones(grow.shape, dtype=bool)  # (B, H, r)
    need = grow > policy.threshold  # (B, H, r)
    g = policy.group_rows
    pad = -need.shape[-1] % g
    padded = np.pad(need, ((0, 0), (0, 0), (0, pad)))  # (B, H, G*g)
    group_need = padded.reshape(*need.shape[:2], -1, g).any(axis=-1)  # (B, H, G)
    return np.repeat(group_need, g, axis=-1)[..., : need.shape[-1]]  # (B, H, r)


def flash_forward(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    causal: bool,
    scale: float,
    recipe: ForwardRecipe,
    prec: Precision,
    fp8: Fp8Operands | None = None,
) -> tuple[np.ndarray, np.ndarray, NumericsStats]:
    """Run the tiled forward; `q, k, v` as given (their dtypes set the byte counts), `fp8` replaces them."""
    b, h, nq, d = q.shape
    nk = k.shape[2]
    bh = b * h
    acc = prec.acc
    ops = (fp8.q, fp8.k, fp8.v) if fp8 is not None else (q, k, v)
    qa, ka, va = (x.astype(acc) for x in ops)  # (B, H, N, d) each, exact upcasts
    scale_log2 = acc.type(scale * _LOG2E)
    o = np.zeros((b, h, nq, d), dtype=prec.storage)  # (B, H, Nq, d)
    lse = np.full((b, h, nq), -np.inf, dtype=acc)  # (B, H, Nq)
    tally = Tally()
    q_tiles, k_tiles = tiles(nq, recipe.block_m), tiles(nk, recipe.block_n)
    for qt in q_tiles:
        r = qt.size
        # Q_i is read once per Q tile (and its scale if FP8): r*d input bytes (+4)
        tally.add(hbm_read_bytes=bh * (r * d * q.dtype.itemsize + (4 if fp8 is not None else 0)))
        q_i = qa[:, :, qt.start : qt.stop]  # (B, H, r, d)
        acc_o = np.zeros((b, h, r, d), dtype=acc)  # (B, H, r, d) unnormalized O
        row_sum = np.zeros((b, h, r), dtype=acc)  # (B, H, r) l
        row_max = np.full((b, h, r), -np.inf, dtype=acc)  # (B, H, r) max the exps were taken against
        for kt in k_tiles:
            tally.add(blocks_total=bh)
            if causal and tile_fully_masked(qt, kt, nq, nk):
                tally.add(blocks_skipped_causal=bh)
                continue
            c = kt.size
            # K_j and V_j are read once per visited tile pair: 2*c*d input bytes (+2*4 for FP8 scales)
            tally.add(hbm_read_bytes=bh * (2 * c * d * k.dtype.itemsize + (8 if fp8 is not None else 0)))
            s = q_i @ ka[:, :, kt.start : kt.stop].swapaxes(-1, -2)  # (B, H, r, c) fp32 MMA
            if fp8 is not None:
                k_scale = fp8.k_scale[:, :, kt.start : kt.stop].swapaxes(-1, -2)  # (B, H, 1, c)
                s = s * fp8.q_scale[:, :, qt.start : qt.stop] * k_scale  # (B, H, r, c)
            s = s * scale_log2  # (B, H, r, c) log2 units
            visible = causal_tile_mask(qt, kt, nq, nk) if causal and tile_needs_mask(qt, kt, nq, nk) else None
            if visible is not None:
                s = np.where(visible, s, -np.inf)  # (B, H, r, c)
            new_max = np.maximum(row_max, s.max(axis=-1))  # (B, H, r)
            with np.errstate(invalid="ignore"):  # -inf - -inf on rows that saw no key yet: no rescale needed
                rescale = _rescale_rows(new_max - row_max, recipe.rescale)  # (B, H, r)
            had_state = np.isfinite(row_max)  # (B, H, r)
            tally.add(
                rescales_performed=np.sum(rescale & had_state),
                rescales_skipped=np.sum(~rescale & had_state),
            )
            used_max = np.where(rescale, new_max, row_max)  # (B, H, r)
            used_safe = np.where(np.isneginf(used_max), 0.0, used_max).astype(acc)  # (B, H, r)
            alpha = np.where(had_state, exp2_hardware(row_max - used_safe), 0.0).astype(acc)  # (B, H, r)
            p, n_soft = _exp2_tile(s - used_safe[..., None], recipe.exp, acc)  # (B, H, r, c)
            if visible is not None:
                p = np.where(visible, p, 0.0).astype(acc)  # (B, H, r, c)
            tally.add(exp_software=bh * n_soft, exp_hardware=bh * (r * c - n_soft))
            row_sum = alpha * row_sum + p.sum(axis=-1)  # (B, H, r)
            p_mma = round_to(p * acc.type(2.0**recipe.p_offset_log2), recipe.p_dtype, acc)  # (B, H, r, c)
            pv = p_mma @ va[:, :, kt.start : kt.stop]  # (B, H, r, d) fp32 MMA
            pv = pv * acc.type(2.0**-recipe.p_offset_log2)  # (B, H, r, d) undo the offset (exact)
            if fp8 is not None:
                pv = pv * fp8.v_scale[:, :, kt.start : kt.start + 1]  # (B, H, r, d) tile's V scale
            acc_o = alpha[..., None] * acc_o + pv  # (B, H, r, d)
            row_max = used_max
        has_keys = row_sum > 0  # (B, H, r)
        with np.errstate(divide="ignore", invalid="ignore"):
            o_i = np.where(has_keys[..., None], acc_o / row_sum[..., None], 0.0)  # (B, H, r, d)
            lse_i = np.where(has_keys, (row_max + np.log2(row_sum)) * _LN2, -np.inf)  # (B, H, r)
        o[:, :, qt.start : qt.stop] = o_i.astype(prec.storage)
        lse[:, :, qt.start : qt.stop] = lse_i
        # O_i is written once in the output dtype and lse_i once in the accumulator dtype
        tally.add(hbm_write_bytes=bh * r * (d * prec.storage_bytes + prec.acc_bytes))
    return o, lse, tally.freeze()

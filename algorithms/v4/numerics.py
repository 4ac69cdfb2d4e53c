"""FlashAttention 4 numerics: FA2's loop with software exp2 for part of each row and conditional rescaling.

Forward: Q-outer online softmax (`_numerics.flash_forward`) with FA4's two changes:
- `exp_emulation_fraction` of every 32-column fragment of a score row goes through the polynomial exp2 on
  the FMA units (`_numerics.exp2`, degree `exp_poly_degree`, default 3), the rest through the correctly
  rounded MUFU stand-in. Which columns: the last `round(32 * fraction)` of each fragment, a fixed pattern
  like FA4's `ex2_emu_freq` / `ex2_emu_res`. FA4 emulates 10-25% of each row; the default (None) is 0.25
  (8 of every 32 columns, the per-fragment share of FA4's pattern) for the 16- and 8-bit inputs FA4 runs,
  and 0 for float32 and float64 inputs, which serve as high-precision checks of the algorithm (float32 may
  ask for emulation explicitly; float64 may not, the polynomial being a float32 algorithm);
- `rescale_threshold` tau (default 8.0 = log2(256), log2 units): O and l are rescaled only when a row's max
  grows by more than tau over the max its exps were taken against; the decision is shared by groups of
  `rescale_group_rows` rows (default 32: a warp rescales if any of its threads needs to). Skipping is exact:
  P stays <= 2^tau and `lse` uses the stale max. `rescale_threshold=0` rescales whenever the max grows. P is
  rounded to the input dtype before `P V`. Tiles `block_m` x `block_n` default to 128 x 128.

Backward: FA2's algorithm (`_numerics.flash_backward`, style "fa2") with all exps on MUFU; the forward-only
options are accepted and ignored so that one options dict serves both passes. Ignored: 2-CTA MMA, TMEM
layout, the pipeline between softmax, correction and MMA warps (they change no number).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics.calls import check_backward_inputs, check_inputs, resolve_scale, with_stats
from .._numerics.flash_backward import BackwardRecipe, flash_backward
from .._numerics.flash_forward import ExpPolicy, ForwardRecipe, RescalePolicy, flash_forward
from .._numerics.options import parse_options, require_positive_int
from .._numerics.precision import Precision, precision_of

__all__ = ["DEFAULT_EXP_EMULATION_FRACTION", "V4Options", "backward", "forward"]

_ALGO = "v4"
DEFAULT_EXP_EMULATION_FRACTION = 0.25  # for 16- and 8-bit inputs: 8 of every 32 columns


@dataclass(frozen=True)
class V4Options:
    """Tiles, software-exp share and degree, conditional-rescaling threshold and group."""

    block_m: int = 128
    block_n: int = 128
    exp_emulation_fraction: float | None = None
    exp_poly_degree: int = 3
    rescale_threshold: float = 8.0
    rescale_group_rows: int = 32

    def __post_init__(self) -> None:
        for name in ("block_m", "block_n", "exp_poly_degree", "rescale_group_rows"):
            require_positive_int(_ALGO, name, getattr(self, name))
        fraction = self.exp_emulation_fraction
        if fraction is None:
            pass
        elif isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 <= fraction <= 1:
            raise ValueError(f"{_ALGO}: exp_emulation_fraction must be in [0, 1], got {fraction!r}")
        if not 1 <= self.exp_poly_degree <= 8:
            raise ValueError(f"{_ALGO}: exp_poly_degree must be in 1..8, got {self.exp_poly_degree!r}")
        tau = self.rescale_threshold
        if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not 0 <= tau <= 64:
            raise ValueError(f"{_ALGO}: rescale_threshold must be in [0, 64] (log2 units), got {tau!r}")


def _emulation_fraction(opts: V4Options, prec: Precision) -> float:
    """The share of exps to emulate for this input precision (see the module docstring)."""
    if opts.exp_emulation_fraction is None:
        return DEFAULT_EXP_EMULATION_FRACTION if prec.input_bytes <= 2 else 0.0
    if prec.acc == np.float64 and opts.exp_emulation_fraction > 0:
        raise ValueError(f"{_ALGO}: exp_emulation_fraction > 0 needs float32 or narrower inputs, not float64")
    return float(opts.exp_emulation_fraction)


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
    opts = parse_options(_ALGO, V4Options, options)
    prec = precision_of(q, k, v)
    recipe = ForwardRecipe(
        block_m=opts.block_m,
        block_n=opts.block_n,
        p_dtype=prec.storage,
        exp=ExpPolicy(_emulation_fraction(opts, prec), opts.exp_poly_degree),
        rescale=RescalePolicy(float(opts.rescale_threshold), opts.rescale_group_rows),
    )
    o, lse, stats = flash_forward(q, k, v, causal, resolve_scale(scale, q.shape[-1]), recipe, prec)
    return with_stats((o, lse), stats, return_stats)


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
    opts = parse_options(_ALGO, V4Options, options)
    prec = precision_of(q, k, v)
    recipe = BackwardRecipe(block_m=opts.block_m, block_n=opts.block_n, style="fa2")
    scale = resolve_scale(scale, q.shape[-1])
    dq, dk, dv, stats = flash_backward(q, k, v, o, lse, do, causal, scale, recipe, prec)
    return with_stats((dq, dk, dv), stats, return_stats)

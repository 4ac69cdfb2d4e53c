"""FlashAttention 2 numerics: Q-outer online softmax with one final division; K/V-outer backward.

Forward (FA2 Algorithm 1): grid over (batch, head, Q tile); each Q tile loops over the K/V tiles it can see
(fully masked causal tiles skipped), keeps O unnormalized in fp32, rescales O and l by `exp2(m_old - m_new)`
every step, divides by l once and saves only `lse = m + log(l)`. P is rounded to the input dtype before `P
V`; l sums the fp32 P. Backward (FA2 Algorithm 2): K/V tiles outer, Q tiles inner, `D = rowsum(dO * O)` in a
preprocessing pass, dQ accumulated in fp32 in HBM. HBM byte formulas are in `_numerics.flash_forward` and
`_numerics.flash_backward`, next to their loops.

Options: `block_m` (Q tile rows, default 128), `block_n` (K/V tile rows; default 128 for headdim <= 64, else
64, the FA2 forward tiles for A100). The backward uses the same tiles. Ignored: split-KV, dropout, ALiBi.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numerics.calls import check_backward_inputs, check_inputs, resolve_scale, with_stats
from .._numerics.flash_backward import BackwardRecipe, flash_backward
from .._numerics.flash_forward import ForwardRecipe, flash_forward
from .._numerics.options import parse_options, require_positive_int
from .._numerics.precision import precision_of

__all__ = ["V2Options", "backward", "default_blocks", "forward"]

_ALGO = "v2"


@dataclass(frozen=True)
class V2Options:
    """Tile sizes; None picks the FA2 default for the head dimension."""

    block_m: int | None = None
    block_n: int | None = None

    def __post_init__(self) -> None:
        require_positive_int(_ALGO, "block_m", self.block_m)
        require_positive_int(_ALGO, "block_n", self.block_n)


def default_blocks(headdim: int) -> tuple[int, int]:
    """FA2's forward tile `(block_m, block_n)`: 128 x 128 for headdim <= 64, else 128 x 64."""
    return (128, 128) if headdim <= 64 else (128, 64)


def _blocks(opts: V2Options, headdim: int) -> tuple[int, int]:
    bm, bn = default_blocks(headdim)
    return opts.block_m or bm, opts.block_n or bn


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
    opts = parse_options(_ALGO, V2Options, options)
    prec = precision_of(q, k, v)
    bm, bn = _blocks(opts, q.shape[-1])
    recipe = ForwardRecipe(block_m=bm, block_n=bn, p_dtype=prec.storage)
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
    opts = parse_options(_ALGO, V2Options, options)
    prec = precision_of(q, k, v)
    bm, bn = _blocks(opts, q.shape[-1])
    recipe = BackwardRecipe(block_m=bm, block_n=bn, style="fa2")
    scale = resolve_scale(scale, q.shape[-1])
    dq, dk, dv, stats = flash_backward(q, k, v, o, lse, do, causal, scale, recipe, prec)
    return with_stats((dq, dk, dv), stats, return_stats)

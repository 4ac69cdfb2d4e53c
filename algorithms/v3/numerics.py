"""FlashAttention 3 numerics: FA2's math, plus the FP8 forward path with its two accuracy tricks.

Without FP8 (bf16/fp16/fp32/float64 inputs and `fp8=False`) v3 computes exactly what v2 computes, with FA3's
tiles (`block_m` x `block_n` = 192 x 128 for headdim <= 64, 128 x 128 up to 128, 128 x 80 above; FA3 uses
128 x 176 for non-causal headdim 128, rounded here to a power of two). The FP8 path runs when the inputs are
fp8 or `fp8=True` quantizes higher-precision inputs to e4m3:
- `block_quant` (default True): one scale per tile (block_m rows of Q, block_n rows of K and V of one
  (batch, head)) instead of one per tensor;
- `incoherent` (default True): Q and K are multiplied by the same randomized Hadamard matrix (seeded by
  `seed`) before quantizing; Q K^T is unchanged, outliers are spread out;
- S = (Q8 K8^T) * scale_q * scale_k in fp32, softmax as in v2, P quantized to e4m3 without a scale (its
  values are <= 1) for `P8 V8`, each tile's product multiplied by its V scale, output in bf16. Inputs that
  are already fp8 carry no scale (scale 1) and cannot be transformed, so asking for `block_quant` or
  `incoherent` with them is an error, as is asking for either without the FP8 path. FA3 has no FP8 backward:
  the backward upcasts fp8 inputs exactly to bf16 and runs FA2's backward; the FP8 options are accepted
  there and ignored, so one options dict serves both passes. Ignored: the V transpose and register
  permutation the FP8 wgmma needs (they move data, not values).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from .._numerics.calls import check_backward_inputs, check_inputs, resolve_scale, with_stats
from .._numerics.flash_backward import BackwardRecipe, flash_backward
from .._numerics.flash_forward import ForwardRecipe, Fp8Operands, flash_forward
from .._numerics.fp8 import E4M3, quantize
from .._numerics.hadamard import random_hadamard
from .._numerics.options import parse_options, require_positive_int
from .._numerics.precision import Precision, precision_of

__all__ = ["V3Options", "backward", "default_blocks", "forward"]

_ALGO = "v3"
_BF16 = np.dtype(ml_dtypes.bfloat16)
_FP8_P_OFFSET_LOG2 = 8  # FA3's Max_offset for FP8: exps against max - 8


@dataclass(frozen=True)
class V3Options:
    """Tiles (None: FA3 default) and the FP8 switches (None: on when quantizing, off otherwise)."""

    block_m: int | None = None
    block_n: int | None = None
    fp8: bool = False
    block_quant: bool | None = None
    incoherent: bool | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        require_positive_int(_ALGO, "block_m", self.block_m)
        require_positive_int(_ALGO, "block_n", self.block_n)
        for name in ("fp8", "block_quant", "incoherent"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, bool):
                raise ValueError(f"{_ALGO}: option {name} must be a bool, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ValueError(f"{_ALGO}: option seed must be an int, got {self.seed!r}")


def default_blocks(headdim: int) -> tuple[int, int]:
    """FA3's forward tile `(block_m, block_n)` for H100 (bf16 table, used for FP8 too)."""
    if headdim <= 64:
        return 192, 128
    return (128, 128) if headdim <= 128 else (128, 80)


def _blocks(opts: V3Options, headdim: int) -> tuple[int, int]:
    bm, bn = default_blocks(headdim)
    return opts.block_m or bm, opts.block_n or bn


def _fp8_operands(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, opts: V3Options, bm: int, bn: int, already_fp8: bool
) -> Fp8Operands:
    """Quantized operands and their scales, after the optional incoherent transform."""
    if already_fp8:
        ones_q = np.ones((*q.shape[:3], 1), dtype=np.float32)  # (B, H, Nq, 1)
        ones_k = np.ones((*k.shape[:3], 1), dtype=np.float32)  # (B, H, Nk, 1)
        return Fp8Operands(q, k, v, ones_q, ones_k, ones_k)
    qx, kx = q.astype(np.float64), k.astype(np.float64)  # (B, H, N, d)
    if opts.incoherent is not False:
        transform = random_hadamard(q.shape[-1], opts.seed)  # (d, d)
        qx, kx = qx @ transform, kx @ transform  # (B, H, N, d) Q K^T unchanged
    per_tile = opts.block_quant is not False
    q8, q_scale = quantize(qx, bm if per_tile else None)
    k8, k_scale = quantize(kx, bn if per_tile else None)
    v8, v_scale = quantize(v, bn if per_tile else None)
    return Fp8Operands(q8, k8, v8, q_scale, k_scale, v_scale)


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
    """`(o, lse)` (+ `NumericsStats` if `return_stats`); o bf16 on the FP8 path, else the storage dtype."""
    check_inputs(_ALGO, q, k, v)
    opts = parse_options(_ALGO, V3Options, options)
    prec = precision_of(q, k, v)
    bm, bn = _blocks(opts, q.shape[-1])
    scale = resolve_scale(scale, q.shape[-1])
    fp8_path = opts.fp8 or prec.is_fp8
    tricks = [name for name in ("block_quant", "incoherent") if getattr(opts, name)]
    if tricks and (prec.is_fp8 or not fp8_path):
        why = "inputs are already fp8 (no scale to choose)" if prec.is_fp8 else "fp8=False"
        raise ValueError(f"{_ALGO}: option(s) {', '.join(tricks)} need quantization by fp8=True, but {why}")
    if not fp8_path:
        recipe = ForwardRecipe(block_m=bm, block_n=bn, p_dtype=prec.storage)
        o, lse, stats = flash_forward(q, k, v, causal, scale, recipe, prec)
        return with_stats((o, lse), stats, return_stats)
    ops = _fp8_operands(q, k, v, opts, bm, bn, prec.is_fp8)
    fp8_prec = Precision(input=ops.q.dtype, acc=np.dtype(np.float32), storage=_BF16)
    recipe = ForwardRecipe(block_m=bm, block_n=bn, p_dtype=E4M3, p_offset_log2=_FP8_P_OFFSET_LOG2)
    o, lse, stats = flash_forward(ops.q, ops.k, ops.v, causal, scale, recipe, fp8_prec, fp8=ops)
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
    """`(dq, dk, dv)` (+ `NumericsStats` if `return_stats`): FA2's backward with FA3's tiles."""
    check_inputs(_ALGO, q, k, v)
    check_backward_inputs(_ALGO, q, o, lse, do)
    opts = parse_options(_ALGO, V3Options, options)
    if precision_of(q, k, v).is_fp8:
        q, k, v = (x.astype(_BF16) for x in (q, k, v))  # exact: every e4m3/e5m2 value is a bf16 value
    prec = precision_of(q, k, v)
    bm, bn = _blocks(opts, q.shape[-1])
    recipe = BackwardRecipe(block_m=bm, block_n=bn, style="fa2")
    scale = resolve_scale(scale, q.shape[-1])
    dq, dk, dv, stats = flash_backward(q, k, v, o, lse, do, causal, scale, recipe, prec)
    return with_stats((dq, dk, dv), stats, return_stats)

"""Launchers of the FlashAttention-2 kernels in ``fwd.cu`` and ``bwd.cu``.

Tensors are CuPy arrays ``(batch, heads, seqlen, headdim)``, C-contiguous, bf16 as ``uint16`` bits or
``float16`` (see ``cupy_kernels.common``); ``lse`` is fp32 ``(batch, heads, seqlen)`` in natural log.
``block_m``, ``block_n``, ``warps``, ``stages`` are the simulator's option names; None takes FA2's default for
the head dimension. Forward: ``block_m`` query rows per CTA split over ``warps`` warps, ``block_n`` keys per
K/V tile, ``stages`` K/V shared-memory slots. Backward: ``block_n`` keys per CTA (= 16 * warps), ``block_m``
queries per inner step, ``stages`` Q/dO slots.
"""

from __future__ import annotations

from typing import Any

from cupy_kernels import common
from cupy_kernels.common import TileConfig, cpp_bool

FWD_SOURCE = common.KERNEL_DIR / "v2" / "fwd.cu"
BWD_SOURCE = common.KERNEL_DIR / "v2" / "bwd.cu"
FWD_DEFAULTS = {64: TileConfig(128, 128, 4, 2), 128: TileConfig(128, 64, 4, 2)}
BWD_DEFAULTS = {64: TileConfig(64, 128, 8, 2), 128: TileConfig(64, 128, 8, 2)}
SMEM_PAD = 8


def fwd_config(
    headdim: int,
    block_m: int | None = None,
    block_n: int | None = None,
    warps: int | None = None,
    stages: int | None = None,
) -> TileConfig:
    """The forward launch configuration for ``headdim``, validated."""
    config = FWD_DEFAULTS[headdim].resolve(block_m, block_n, warps, stages)
    common.check_split_q("v2 forward", config)
    common.check_smem("v2 forward", fwd_smem_bytes(headdim, config), config)
    return config


def bwd_config(
    headdim: int,
    block_m: int | None = None,
    block_n: int | None = None,
    warps: int | None = None,
    stages: int | None = None,
) -> TileConfig:
    """The backward launch configuration for ``headdim``, validated."""
    config = BWD_DEFAULTS[headdim].resolve(block_m, block_n, warps, stages)
    if config.warps < 1 or config.block_n != 16 * config.warps or config.block_m % 16 or config.block_m < 16:
        raise ValueError(f"v2 backward: block_n must equal 16 * warps and block_m be a multiple of 16, got {config}")
    if config.stages < 2:
        raise ValueError(f"v2 backward: stages must be >= 2, got {config.stages}")
    common.check_smem("v2 backward", bwd_smem_bytes(headdim, config), config)
    return config


def fwd_smem_bytes(headdim: int, c: TileConfig) -> int:
    return (c.block_m + 2 * c.stages * c.block_n) * (headdim + SMEM_PAD) * 2


def bwd_smem_bytes(headdim: int, c: TileConfig) -> int:
    tiles = (2 * c.block_n + 2 * c.stages * c.block_m) * (headdim + SMEM_PAD) * 2
    return tiles + c.block_n * (c.block_m + SMEM_PAD) * 2 + 2 * c.stages * c.block_m * 4


def fwd_name(headdim: int, c: TileConfig, causal: bool, bf16: bool) -> str:
    return f"fa2_fwd<{headdim},{c.block_m},{c.block_n},{c.warps},{c.stages},{cpp_bool(causal)},{cpp_bool(bf16)}>"


def bwd_names(headdim: int, c: TileConfig, causal: bool, bf16: bool) -> tuple[str, str, str]:
    """(preprocess, main, convert_dq) name expressions."""
    main = f"fa2_bwd<{headdim},{c.block_m},{c.block_n},{c.warps},{c.stages},{cpp_bool(causal)},{cpp_bool(bf16)}>"
    return f"fa2_bwd_preprocess<{headdim},{cpp_bool(bf16)}>", main, f"fa2_bwd_convert_dq<{cpp_bool(bf16)}>"


def forward(
    q: Any,
    k: Any,
    v: Any,
    causal: bool = False,
    block_m: int | None = None,
    block_n: int | None = None,
    warps: int | None = None,
    stages: int | None = None,
    scale: float | None = None,
    out: tuple[Any, Any] | None = None,
) -> tuple[Any, Any]:
    """FA2 forward: ``(o, lse)``. ``out`` optionally gives the ``(o, lse)`` buffers to write."""
    cp = common.cp
    batch, heads, n, d = common.check_qkv(q, k, v)
    config = fwd_config(d, block_m, block_n, warps, stages)
    o, lse = common.forward_outputs(q, out)
    smem = fwd_smem_bytes(d, config)
    kernel = common.get_kernel(FWD_SOURCE, fwd_name(d, config, causal, common.is_bf16(q)), smem)
    grid = ((n + config.block_m - 1) // config.block_m, batch * heads)
    kernel(
        grid,
        (config.warps * 32,),
        (q, k, v, o, lse, cp.int32(n), cp.float32(common.default_scale(d, scale))),
        shared_mem=smem,
    )
    return o, lse


def random_forward_launch(batch: int, heads: int, seqlen: int, headdim: int, c: TileConfig) -> tuple[Any, Any]:
    """The grid and arguments of a bf16 forward launch on random Q, K, V (seeds 0-2) with fresh outputs, for the
    device probes that launch the kernel's own builds (``validation/probes``)."""
    cp = common.cp
    shape = (batch, heads, seqlen, headdim)
    q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in range(3))
    o, lse = cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32)
    grid = ((seqlen + c.block_m - 1) // c.block_m, batch * heads)
    return grid, (q, k, v, o, lse, cp.int32(seqlen), cp.float32(common.default_scale(headdim, None)))


def backward(
    q: Any,
    k: Any,
    v: Any,
    o: Any,
    lse: Any,
    do: Any,
    causal: bool = False,
    block_m: int | None = None,
    block_n: int | None = None,
    warps: int | None = None,
    stages: int | None = None,
    scale: float | None = None,
    out: tuple[Any, Any, Any] | None = None,
) -> tuple[Any, Any, Any]:
    """FA2 backward: ``(dq, dk, dv)`` in the input dtype. ``out`` optionally gives the three buffers.

    Three launches: Delta = rowsum(dO * O) (which also zeroes the fp32 dQ accumulator), the main kernel, and
    the dQ conversion. Scratch (Delta, the dQ accumulator) comes from CuPy's memory pool.
    """
    cp = common.cp
    batch, heads, n, d = common.check_qkv(q, k, v)
    common.check_like("o", o, q, q.dtype, q.shape)
    common.check_like("do", do, q, q.dtype, q.shape)
    common.check_like("lse", lse, q, cp.float32, (batch, heads, n))
    config = bwd_config(d, block_m, block_n, warps, stages)
    dq, dk, dv = out if out is not None else (cp.empty_like(q), cp.empty_like(q), cp.empty_like(q))
    for name, x in (("dq", dq), ("dk", dk), ("dv", dv)):
        common.check_like(name, x, q, q.dtype, q.shape)
    bf16 = common.is_bf16(q)
    pre_name, main_name, conv_name = bwd_names(d, config, causal, bf16)
    smem = bwd_smem_bytes(d, config)
    common.precompile(BWD_SOURCE, (pre_name, main_name, conv_name))
    rows = batch * heads * n
    delta = cp.empty((batch, heads, n), dtype=cp.float32)
    dq_accum = cp.empty(q.shape, dtype=cp.float32)
    common.get_kernel(BWD_SOURCE, pre_name)(((rows + 3) // 4,), (128,), (o, do, delta, dq_accum, cp.int64(rows)))
    grid = ((n + config.block_n - 1) // config.block_n, batch * heads)
    common.get_kernel(BWD_SOURCE, main_name, smem)(
        grid,
        (config.warps * 32,),
        (q, k, v, do, lse, delta, dq_accum, dk, dv, cp.int32(n), cp.float32(common.default_scale(d, scale))),
        shared_mem=smem,
    )
    count = q.size
    common.get_kernel(BWD_SOURCE, conv_name)(
        (min(4096, (count // 2 + 255) // 256),), (256,), (dq_accum, dq, cp.int64(count))
    )
    return dq, dk, dv

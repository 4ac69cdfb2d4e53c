"""Launcher of the FlashAttention-1 (Algorithm 1 loop order) forward kernel in ``fwd.cu``.

Tensors as in ``cupy_kernels.v2.launch``. One CTA per (batch, head); ``block_m`` Q rows per inner step split
over ``warps`` warps (16 * warps * k rows), ``block_n`` keys per outer K/V tile; ``stages`` is always 1 (no
pipelining: the algorithm's loads are synchronous). The working O (fp32, (B, H, N, d)) and l, m (fp32,
(B, H, N)) live in HBM, from CuPy's memory pool.
"""

from __future__ import annotations

from typing import Any

from cupy_kernels import common
from cupy_kernels.common import TileConfig, cpp_bool

SOURCE = common.KERNEL_DIR / "v1" / "fwd.cu"
DEFAULTS = {64: TileConfig(64, 64, 4, 1), 128: TileConfig(64, 64, 4, 1)}
SMEM_PAD = 8


def fwd_config(
    headdim: int,
    block_m: int | None = None,
    block_n: int | None = None,
    warps: int | None = None,
    stages: int | None = None,
) -> TileConfig:
    """The launch configuration for ``headdim``, validated."""
    config = DEFAULTS[headdim].resolve(block_m, block_n, warps, stages)
    if config.warps < 1 or config.block_m % (16 * config.warps) or config.block_n % 16 or config.block_n < 16:
        raise ValueError(f"v1: block_m must be a multiple of 16 * warps and block_n of 16, got {config}")
    if config.stages != 1:
        raise ValueError(f"v1: stages must be 1 (Algorithm 1 does not pipeline), got {config.stages}")
    common.check_smem("v1", smem_bytes(headdim, config), config)
    return config


def smem_bytes(headdim: int, c: TileConfig) -> int:
    return (c.block_m + 2 * c.block_n) * (headdim + SMEM_PAD) * 2


def kernel_name(headdim: int, c: TileConfig, causal: bool, bf16: bool) -> str:
    return f"fa1_fwd<{headdim},{c.block_m},{c.block_n},{c.warps},{cpp_bool(causal)},{cpp_bool(bf16)}>"


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
    """FA1 forward: ``(o, lse)``. ``out`` optionally gives the ``(o, lse)`` buffers to write."""
    cp = common.cp
    batch, heads, n, d = common.check_qkv(q, k, v)
    config = fwd_config(d, block_m, block_n, warps, stages)
    o, lse = common.forward_outputs(q, out)
    o_work = cp.empty(q.shape, dtype=cp.float32)
    l_work = cp.empty((batch, heads, n), dtype=cp.float32)
    m_work = cp.empty((batch, heads, n), dtype=cp.float32)
    smem = smem_bytes(d, config)
    kernel = common.get_kernel(SOURCE, kernel_name(d, config, causal, common.is_bf16(q)), smem)
    kernel(
        (batch * heads,),
        (config.warps * 32,),
        (q, k, v, o_work, l_work, m_work, o, lse, cp.int32(n), cp.float32(common.default_scale(d, scale))),
        shared_mem=smem,
    )
    return o, lse

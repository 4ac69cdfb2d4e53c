"""Launchers of the three standard-attention kernels in ``attention.cu``.

Tensors as in ``cupy_kernels.v2.launch``. S and P are in the input dtype, shaped (B, H, N, lds) with
lds = N rounded up to a multiple of 8 (16-byte aligned rows). Launch parameters: ``block_m`` x ``block_n``
is the S tile of ``qk`` and (``block_m`` rows x ``block_n`` keys per k step) the tile of ``pv``; ``warps``
for both GEMMs; ``stages`` the P/V shared-memory slots of ``pv``. The softmax uses one warp per row.
"""

from __future__ import annotations

from typing import Any

from cupy_kernels import common
from cupy_kernels.common import TileConfig, cpp_bool

SOURCE = common.KERNEL_DIR / "standard" / "attention.cu"
DEFAULTS = {64: TileConfig(128, 128, 4, 2), 128: TileConfig(128, 128, 4, 2)}
SOFTMAX_WARPS = 4  # rows per softmax CTA
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
    common.check_split_q("standard", config)
    common.check_smem("standard qk", qk_smem_bytes(headdim, config), config)
    common.check_smem("standard pv", pv_smem_bytes(headdim, config), config)
    return config


def qk_smem_bytes(headdim: int, c: TileConfig) -> int:
    return (c.block_m + c.block_n) * (headdim + SMEM_PAD) * 2


def pv_smem_bytes(headdim: int, c: TileConfig) -> int:
    return c.stages * (c.block_m * (c.block_n + SMEM_PAD) + c.block_n * (headdim + SMEM_PAD)) * 2


def kernel_names(headdim: int, c: TileConfig, causal: bool, bf16: bool) -> tuple[str, str, str]:
    """(qk, softmax, pv) name expressions."""
    b = cpp_bool(bf16)
    return (
        f"std_qk<{headdim},{c.block_m},{c.block_n},{c.warps},{cpp_bool(causal)},{b}>",
        f"std_softmax<{SOFTMAX_WARPS},{b}>",
        f"std_pv<{headdim},{c.block_m},{c.block_n},{c.warps},{c.stages},{b}>",
    )


def padded_seqlen(n: int) -> int:
    return (n + 7) // 8 * 8


def qk(q: Any, k: Any, s: Any, causal: bool, config: TileConfig, scale: float) -> None:
    cp = common.cp
    batch, heads, n, d = q.shape
    name = kernel_names(d, config, causal, common.is_bf16(q))[0]
    smem = qk_smem_bytes(d, config)
    grid = ((n + config.block_n - 1) // config.block_n, (n + config.block_m - 1) // config.block_m, batch * heads)
    common.get_kernel(SOURCE, name, smem)(
        grid, (config.warps * 32,), (q, k, s, cp.int32(n), cp.int32(s.shape[-1]), cp.float32(scale)), shared_mem=smem
    )


def softmax(s: Any, p: Any, lse: Any) -> None:
    cp = common.cp
    batch, heads, n, lds = s.shape
    name = kernel_names(64, DEFAULTS[64], False, common.is_bf16(s))[1]
    rows = batch * heads * n
    common.get_kernel(SOURCE, name)(
        ((rows + SOFTMAX_WARPS - 1) // SOFTMAX_WARPS,),
        (SOFTMAX_WARPS * 32,),
        (s, p, lse, cp.int32(n), cp.int32(lds), cp.int64(rows)),
    )


def pv(p: Any, v: Any, o: Any, config: TileConfig) -> None:
    cp = common.cp
    batch, heads, n, d = v.shape
    name = kernel_names(d, config, False, common.is_bf16(v))[2]
    smem = pv_smem_bytes(d, config)
    grid = ((n + config.block_m - 1) // config.block_m, batch * heads)
    common.get_kernel(SOURCE, name, smem)(
        grid, (config.warps * 32,), (p, v, o, cp.int32(n), cp.int32(p.shape[-1])), shared_mem=smem
    )


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
    scratch: tuple[Any, Any] | None = None,
) -> tuple[Any, Any]:
    """Standard attention forward: ``(o, lse)``. ``out`` optionally gives ``(o, lse)``; ``scratch`` the
    ``(s, p)`` buffers, each ``(B, H, N, padded_seqlen(N))`` in the input dtype."""
    cp = common.cp
    batch, heads, n, d = common.check_qkv(q, k, v)
    config = fwd_config(d, block_m, block_n, warps, stages)
    o, lse = common.forward_outputs(q, out)
    sp_shape = (batch, heads, n, padded_seqlen(n))
    s, p = scratch if scratch is not None else (cp.empty(sp_shape, q.dtype), cp.empty(sp_shape, q.dtype))
    common.check_like("s", s, q, q.dtype, sp_shape)
    common.check_like("p", p, q, q.dtype, sp_shape)
    qk(q, k, s, causal, config, common.default_scale(d, scale))
    softmax(s, p, lse)
    pv(p, v, o, config)
    return o, lse

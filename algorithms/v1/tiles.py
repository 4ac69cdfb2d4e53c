"""FA1's tile sizes, shared by the numerics and the schedule (plain arithmetic: loading the schedule must not load
the numerics, which import `ml_dtypes`).

By default the released kernel's (`kernel_tiles`); with on-chip memory `sram_bytes`, Algorithm 1's (`block_sizes`);
explicit `block_m`, `block_n` override either (`tile_sizes`).
"""

from __future__ import annotations

import math

__all__ = ["block_sizes", "kernel_tiles", "tile_sizes"]


def block_sizes(sram_bytes: int, headdim: int, element_bytes: int) -> tuple[int, int]:
    """FA1's `(B_r, B_c)` for on-chip memory of `sram_bytes` holding elements of `element_bytes`."""
    m_elements = sram_bytes // element_bytes
    b_c = math.ceil(m_elements / (4 * headdim))
    return min(b_c, headdim), b_c


# The released kernel's tiles (FA-repo `fmha_fwd_hdim{32,64,128}.cu`, `fmha_bwd_hdim*.cu`:
# FMHA_kernel_traits<S, D, STEP=16, ...>): 16 query rows per inner step; S = 256 keys at D <= 64 when seqlen_k > 128,
# else 128.
KERNEL_STEP_ROWS = 16
KERNEL_WIDE_KEYS, KERNEL_NARROW_KEYS = 256, 128
KERNEL_WIDE_MAX_HEADDIM = 64


def kernel_tiles(headdim: int, seqlen_k: int) -> tuple[int, int]:
    """`(block_m, block_n)` of the released FA1 kernel (forward and backward use the same)."""
    wide = headdim <= KERNEL_WIDE_MAX_HEADDIM and seqlen_k > KERNEL_NARROW_KEYS
    return KERNEL_STEP_ROWS, KERNEL_WIDE_KEYS if wide else KERNEL_NARROW_KEYS


def tile_sizes(
    headdim: int, seqlen_k: int, element_bytes: int, sram_bytes: int | None, block_m: int | None, block_n: int | None
) -> tuple[int, int]:
    """`(block_m, block_n)`: explicit options first, then Algorithm 1's from `sram_bytes`, else the kernel's."""
    if sram_bytes is not None:
        b_r, b_c = block_sizes(sram_bytes, headdim, element_bytes)
    else:
        b_r, b_c = kernel_tiles(headdim, seqlen_k)
    return block_m or b_r, block_n or b_c

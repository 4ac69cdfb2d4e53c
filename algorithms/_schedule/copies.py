"""The tile copy our CUDA kernels share (`load_tile_async` in `cupy_kernels/common.cuh`), as schedules issue it.

Each thread copies 16 bytes per cp.async. Before each copy the code forms its source address: the row, clamped to
the sequence (VIADD, VIMNMX), times the row pitch (IMAD.WIDE), in bytes (SHF, IMAD.SHL), plus the tensor's base
(IADD3, IADD3.X), and the predicate for rows past the end (ISETP). Nsight Compute's executed SASS of our FA2 forward
with and without its K/V copies (`validation/h200/v2_instruction_mix_h200.csv`) has 96 and 93 more integer
instructions per warp per key tile at d = 64 and 128, for 16 copies: 6 per copy. The model runs them as a chain
(`simgpu.ops.Load.address_instructions`): the warps spend 490 cycles per tile in that code at d = 64, 4.4 per
instruction, about one ALU latency each (Nsight Compute's warp-state samples; most stalls are fixed-latency waits
and the load path's throttles).
Ignored: the 4-byte cp.async of per-row statistics (LSE, Delta), whose address code differs.
"""

from __future__ import annotations

from collections.abc import Hashable

from simgpu.ops import BarrierRef, Load

ADDRESS_INSTRUCTIONS_PER_COPY = 6.0


def tile_copy(tensor: str, tile: Hashable, nbytes: int, arrive: BarrierRef) -> Load:
    """A cp.async copy of one tile into smem, with the address code of `load_tile_async`. Its fields given in order
    (no acquire): the schedules build thousands per prediction."""
    return Load(tensor, tile, nbytes, "cp_async", arrive, None, ADDRESS_INSTRUCTIONS_PER_COPY)

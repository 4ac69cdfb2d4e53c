"""Tensor Memory (Blackwell): 128 lanes x 512 columns x 32 bit per SM, allocated in column granules.

Capacity is enforced when a CTA is placed (its `tmem_columns`); thread loads/stores (tcgen05.ld/st) and MMA
operands or accumulators in TMEM use a port at the arch's bandwidth. Ignored: lane-access restrictions per warp.
"""

from __future__ import annotations

from simgpu.units.server import Server, SpanRecorder


class TensorMemory:
    __slots__ = ("read_bytes", "server", "write_bytes")

    def __init__(self, bytes_per_cycle: float, recorder: SpanRecorder | None) -> None:
        self.server = Server("tmem", bytes_per_cycle, recorder)
        self.read_bytes = 0.0
        self.write_bytes = 0.0

    def access(self, now: float, read_bytes: float, write_bytes: float) -> float:
        self.read_bytes += read_bytes
        self.write_bytes += write_bytes
        return self.server.reserve(now, read_bytes + write_bytes)

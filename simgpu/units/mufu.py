"""MUFU, the multi-function unit of one SM: ex2 (and the other transcendentals) at a fixed rate per cycle.

The rate is per SM, split evenly over the processing blocks, so a role of w warps reaches min(w, 4) / 4 of it.
Ignored: the other MUFU functions' different rates (only ex2 is asked for).
"""

from __future__ import annotations

from simgpu.units.server import Server, SpanRecorder


class Mufu:
    __slots__ = ("server", "subpartitions")

    def __init__(self, ex2_per_cycle: float, subpartitions: int, recorder: SpanRecorder | None) -> None:
        self.server = Server("mufu", ex2_per_cycle, recorder)
        self.subpartitions = subpartitions

    def ex2(self, now: float, count: float, warps: int) -> float:
        return self.server.reserve(now, count, share=min(warps, self.subpartitions) / self.subpartitions)

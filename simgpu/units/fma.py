"""The FP32 FMA pipe and the ALU pipe of one SM: lane operations per cycle, split over the processing blocks.

FMUL, FADD and FFMA count one lane op each on the FMA pipe; compare, min/max, integer and conversion ops count one
on the ALU pipe. A role of w warps reaches min(w, 4) / 4 of a pipe. Ignored: dual issue and operand bank conflicts.
"""

from __future__ import annotations

from simgpu.units.server import Server, SpanRecorder


class LanePipe:
    __slots__ = ("server", "subpartitions")

    def __init__(self, name: str, ops_per_cycle: float, subpartitions: int, recorder: SpanRecorder | None) -> None:
        self.server = Server(name, ops_per_cycle, recorder)
        self.subpartitions = subpartitions

    def run(self, now: float, count: float, warps: int) -> float:
        return self.server.reserve(now, count, share=min(warps, self.subpartitions) / self.subpartitions)

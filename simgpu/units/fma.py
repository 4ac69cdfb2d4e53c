"""The FP32 FMA pipe and the ALU pipe of one SM: lane operations per cycle, split over the processing blocks.

FMUL, FADD and FFMA count one lane op each on the FMA pipe; compare, min/max, integer and conversion ops count one
on the ALU pipe. A role of w warps reaches min(w, 4) / 4 of a pipe. With a contender (the tensor cores on Hopper),
the pipe runs at a fraction of its rate while the contender is busy. Ignored: dual issue, operand bank conflicts.
"""

from __future__ import annotations

from simgpu.units.server import Server, SpanRecorder


class LanePipe:
    __slots__ = ("contender", "fraction", "server", "subpartitions")

    def __init__(
        self,
        name: str,
        ops_per_cycle: float,
        subpartitions: int,
        recorder: SpanRecorder | None,
        contender: Server | None = None,
        fraction: float = 1.0,
    ) -> None:
        self.server = Server(name, ops_per_cycle, recorder)
        self.subpartitions = subpartitions
        self.contender = contender
        self.fraction = fraction

    def run(self, now: float, count: float, warps: int) -> float:
        share = min(warps, self.subpartitions) / self.subpartitions
        if self.contender is None:
            return self.server.reserve(now, count, share)
        return self.server.reserve_beside(now, count, share, self.contender, self.fraction)

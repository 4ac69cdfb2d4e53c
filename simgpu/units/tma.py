"""TMA, the bulk tensor copy engine of one SM: each copy instruction costs a fixed number of engine cycles.

The bytes themselves are served by L2/HBM and land in smem; the engine's own cost is its issue time, which bounds
how many small copies one SM can start (the map's fetch by a CTA's first copy and a box's extra latency from HBM are
`simgpu.sm`'s). Ignored: multicast.
"""

from __future__ import annotations

from simgpu.units.server import Server, SpanRecorder


class CopyEngine:
    __slots__ = ("issue_cycles", "server")

    def __init__(self, issue_cycles: float, recorder: SpanRecorder | None) -> None:
        # A zero issue cost is legal (unmeasured); the server then never becomes busy.
        self.server = Server("tma", 1.0, recorder)
        self.issue_cycles = issue_cycles

    def issue(self, now: float, instructions: float = 1.0) -> float:
        return self.server.reserve(now, instructions * self.issue_cycles)

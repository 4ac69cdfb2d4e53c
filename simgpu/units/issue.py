"""Warp instruction issue of one SM: each warp scheduler issues one warp instruction per cycle.

Every op costs issue slots (its lane ops / 32, its copy instructions, its MMA instructions). A role of w warps can
use min(w, schedulers) schedulers. This is what makes instruction-heavy code (FA2's softmax on A100) issue-bound
even when no single pipe is saturated. Ignored here: dual issue; stalls on register dependencies are the SM's
latency floor (`simgpu.latency`), which holds the role back without taking issue slots.
"""

from __future__ import annotations

from simgpu.units.server import Server, SpanRecorder


class IssueSlots:
    __slots__ = ("schedulers", "server")

    def __init__(self, schedulers: int, recorder: SpanRecorder | None) -> None:
        self.server = Server("issue", 1.0, recorder)
        self.schedulers = schedulers

    def issue(self, now: float, instructions: float, warps: int) -> float:
        return self.server.reserve(now, instructions, share=min(warps, self.schedulers))

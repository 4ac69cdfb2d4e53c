"""The FP32 FMA pipe and the ALU pipe of one SM: lane operations per cycle, split over the processing blocks.

FMUL, FADD and FFMA count one lane op each on the FMA pipe; compare, min/max, integer and conversion ops count one
on the ALU pipe. A role of w warps reaches min(w, 4) / 4 of a pipe. Beside a busy tensor core (Hopper) the pipe
runs slower (`simgpu.units.contention`). The SM reserves the pipe's server itself, with that share and through the
contention model where there is one (`simgpu.sm.Sm._elementwise`: once per pipe of most ops, so without a call of
this class in between). Ignored: dual issue, operand bank conflicts.
"""

from __future__ import annotations

from simgpu.units.contention import Contention, Lane
from simgpu.units.server import Server, SpanRecorder


class LanePipe:
    __slots__ = ("lane", "name", "server", "subpartitions")

    def __init__(
        self,
        name: str,
        ops_per_cycle: float,
        subpartitions: int,
        recorder: SpanRecorder | None,
        contention: Contention | None = None,
    ) -> None:
        self.name = name
        self.server = Server(name, ops_per_cycle, recorder)
        self.subpartitions = subpartitions
        # Its reservations on a chip with contention go through its lane (`Contention.reserve_pipe`).
        self.lane: Lane | None = contention.register(name, self.server) if contention is not None else None

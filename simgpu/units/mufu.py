"""MUFU, the multi-function unit of one SM: ex2 (and the other transcendentals) at a fixed rate per cycle.

The rate is per SM, split evenly over the processing blocks, so a role of w warps reaches min(w, 4) / 4 of it. It
is a lane pipe like FMA and ALU (see `simgpu.units.fma`), slowed the same way beside a busy tensor core.
Ignored: the other MUFU functions' different rates (only ex2 is asked for).
"""

from __future__ import annotations

from simgpu.units.contention import Contention
from simgpu.units.fma import LanePipe
from simgpu.units.server import SpanRecorder


class Mufu(LanePipe):
    __slots__ = ()

    def __init__(
        self,
        ex2_per_cycle: float,
        subpartitions: int,
        recorder: SpanRecorder | None,
        contention: Contention | None = None,
    ) -> None:
        super().__init__("mufu", ex2_per_cycle, subpartitions, recorder, contention)

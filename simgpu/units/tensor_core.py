"""Tensor cores of one SM: dense FLOPs per cycle by input dtype, driven by mma.sync, wgmma or tcgen05.

mma.sync runs on the tensor core of the issuing warp's processing block, so a role of w warps reaches at most
min(w, subpartitions) / subpartitions of the SM's rate; wgmma (a warpgroup) and tcgen05 (one thread for the SM)
reach all of it. On a wgmma/tcgen05 chip, mma.sync takes the legacy path at its own (lower) rate. Operands read
from smem or TMEM are charged to those ports by the SM, not here, and so are latencies (mma.sync's chains of
dependent k-steps, an async MMA's result latency: `simgpu.latency`). Beside busy lane pipes (Hopper) the tensor
cores run slower (`simgpu.units.contention`). Ignored: operand reuse caches.
"""

from __future__ import annotations

from collections.abc import Mapping

from simgpu.errors import ScheduleError
from simgpu.units.contention import Contention
from simgpu.units.server import Server, SpanRecorder


class TensorCore:
    __slots__ = ("contention", "instruction", "native_cycles", "rates", "server", "subpartitions")

    def __init__(
        self,
        instruction: str,
        flops_per_cycle: Mapping[str, int],
        mma_sync_flops_per_cycle: Mapping[str, int] | None,
        subpartitions: int,
        recorder: SpanRecorder | None,
    ) -> None:
        self.instruction = instruction
        self.rates = {instruction: dict(flops_per_cycle)}
        if mma_sync_flops_per_cycle is not None:
            self.rates["mma_sync"] = dict(mma_sync_flops_per_cycle)
        self.subpartitions = subpartitions
        # Cycles the FLOPs would take at the native instruction's rate: the activity the power model sees.
        self.native_cycles = 0.0
        # The server counts FLOPs at 1 FLOP per cycle; each dtype scales the share.
        self.server = Server("tensor", 1.0, recorder)
        self.contention: Contention | None = None  # set by the SM once its lane pipes exist

    def plan(self, flops: float, dtype: str, warps: int, instruction: str) -> tuple[float, float]:
        """An MMA's share of the FLOP server for a role of `warps`, and its cycles at the native instruction's rate
        (worked out once per MMA shape: `mma` takes them)."""
        rates = self.rates.get(instruction)
        if rates is None:
            raise ScheduleError(f"these tensor cores have no {instruction} path (they take {self.instruction})")
        rate = rates.get(dtype)
        if rate is None:
            raise ScheduleError(f"{instruction} takes {', '.join(rates)}, not {dtype}")
        native = self.rates[self.instruction].get(dtype, rate)
        share = rate * (min(warps, self.subpartitions) / self.subpartitions if instruction == "mma_sync" else 1.0)
        return share, flops / native

    def mma(self, now: float, flops: float, share: float, native_cycles: float, instruction: str) -> float:
        """Reserve `flops` at `share` for `instruction` (`plan` gives `share` and `native_cycles`); return the end."""
        self.native_cycles += native_cycles
        if self.contention is None:
            return self.server.reserve(now, flops, share)
        return self.contention.reserve_tensor(instruction, now, flops, share)

"""Pipes that slow each other down on one SM: the tensor cores against the MUFU, FMA and ALU pipes and the smem
port's thread-issued traffic (Hopper).

While the tensor cores and a lane pipe are busy at once, each runs at a measured fraction of its own rate
(`simgpu.arch.ContentionRates`: the H200's overlap microbenchmark, `cupy_kernels/calibrate/overlap.cu`). Units are
FIFO reservation servers whose completion times are set when an op is reserved, so the slowing is applied as soon
as an overlap becomes known: from the new reservation's start, the work pending on both sides runs at the two
fractions until the side with less of it (in slowed time) is done, and the rest of the other side's work at its
full rate (`share_window`: the fluid answer for the work reserved so far). The stretch moves the completions the
units watch (`Server.stretch`), so an op in flight that work reserved after it slows ends later (the SM revises
it: `simgpu.sm.Revision`), as does the work queued behind it. The rates are
those of the instruction that last reserved the tensor cores (the native wgmma / tcgen05, or mma.sync's legacy
path). The smem port takes part with the traffic that passes through registers (ldmatrix, ld/st.shared); copy-engine
writes are not slowed, and on the archs with contention rates they do not use the port. Ignored: three-way
interactions beyond applying each pair's fractions in turn.
"""

from __future__ import annotations

from collections.abc import Mapping

from simgpu.arch import ContentionRates
from simgpu.units.server import Server


class Lane:
    """A lane pipe or the smem port as contention sees it: its server, and the fractions of the full rate it and the
    tensor cores run at beside each other under the instruction that last reserved the tensor cores. The unit
    holds it and reserves through it (`Contention.reserve_pipe`): the pipe and its rates looked up by name and
    instruction were a third of a reservation's cost (up to three dictionary lookups; callgrind of v1's exact
    backward)."""

    __slots__ = ("name", "pipe_fraction", "server", "tensor_fraction")

    def __init__(self, name: str, server: Server, pipe_fraction: float, tensor_fraction: float) -> None:
        self.name = name
        self.server = server
        self.pipe_fraction = pipe_fraction
        self.tensor_fraction = tensor_fraction


class Contention:
    """The tensor cores' server, the lane pipes' servers, and the fractions each runs at beside the other."""

    __slots__ = ("_pair_rates", "instruction", "lanes", "tensor")

    def __init__(self, tensor: Server, instruction: str, rates: Mapping[str, ContentionRates]) -> None:
        self.tensor = tensor
        self.instruction = instruction  # the instruction of the tensor cores' latest reservation
        self.lanes: list[Lane] = []  # in the order the units registered them (`register`)
        pipe_rates = {
            kind: {
                "mufu": r.mufu_rate_while_tensor_busy,
                "fma": r.fma_rate_while_tensor_busy,
                "alu": r.alu_rate_while_tensor_busy,
                "smem": r.smem_rate_while_tensor_busy,
            }
            for kind, r in rates.items()
        }
        tensor_rates = {
            kind: {
                "mufu": r.tensor_rate_while_mufu_busy,
                "fma": r.tensor_rate_while_fma_busy,
                "alu": r.tensor_rate_while_alu_busy,
                "smem": r.tensor_rate_while_smem_busy,
            }
            for kind, r in rates.items()
        }
        # (pipe's fraction, tensor cores' fraction) by instruction and pipe: set on the lanes as the instruction
        # changes.
        self._pair_rates = {
            kind: {name: (rates_of_pipes[name], tensor_rates[kind][name]) for name in rates_of_pipes}
            for kind, rates_of_pipes in pipe_rates.items()
        }

    def register(self, name: str, server: Server) -> Lane:
        """The lane through which the unit `name` (mufu, fma, alu, smem) on `server` reserves its work."""
        lane = Lane(name, server, *self._pair_rates[self.instruction][name])
        self.lanes.append(lane)
        return lane

    def _retune(self, instruction: str) -> None:
        """The tensor cores' instruction changes: every lane's fractions become that instruction's."""
        self.instruction = instruction
        rates = self._pair_rates[instruction]
        for lane in self.lanes:
            lane.pipe_fraction, lane.tensor_fraction = rates[lane.name]

    def reserve_pipe(self, lane: Lane, now: float, amount: float, share: float = 1.0) -> float:
        """Reserve `amount` on `lane`'s pipe (as `Server.reserve`); return that op's end after the slowing."""
        if amount <= 0:
            return now
        # `Server.reserve` and `share_window` written out: this runs once per lane pipe of nearly every op.
        pipe = lane.server
        busy = pipe.busy_until
        start = busy if busy > now else now
        service = amount / (pipe.rate_per_cycle * share)
        end = start + service
        pipe.busy_until = end
        pipe.busy_cycles += service
        pipe.amount += amount
        if pipe.recorder is not None:
            pipe.recorder(pipe.name, start, end)
        tensor_work = self.tensor.busy_until - start
        pipe_work = end - start
        if tensor_work <= 0 or pipe_work <= 0:
            return end
        pipe_fraction, tensor_fraction = lane.pipe_fraction, lane.tensor_fraction
        pipe_alone, tensor_alone = pipe_work / pipe_fraction, tensor_work / tensor_fraction
        overlap = tensor_alone if tensor_alone < pipe_alone else pipe_alone
        if pipe_fraction < 1.0:  # `Server.stretch` does nothing at the full rate: the call skipped
            pipe.stretch(start, overlap, pipe_fraction)
        if tensor_fraction < 1.0:
            self.tensor.stretch(start, overlap, tensor_fraction)
        return pipe.busy_until

    def reserve_tensor(self, instruction: str, now: float, flops: float, share: float) -> float:
        """Reserve `flops` on the tensor cores for `instruction` (as `Server.reserve`); return the end after the
        slowing by every pipe still busy."""
        if flops <= 0:
            return now
        if instruction != self.instruction:
            self._retune(instruction)
        busy = self.tensor.busy_until
        start = busy if busy > now else now  # max(now, busy) without the call: once per MMA
        tensor = self.tensor
        tensor.reserve(now, flops, share)
        for lane in self.lanes:
            pipe = lane.server
            if pipe.busy_until > start:
                share_window(start, tensor, lane.tensor_fraction, pipe, lane.pipe_fraction)
        return tensor.busy_until


def share_window(start: float, a: Server, a_fraction: float, b: Server, b_fraction: float) -> None:
    """From `start`, the work pending on `a` and on `b` (their reserved time after `start`, at full rate) runs at
    `a_fraction` and `b_fraction` of the full rates while both have work, then the rest at the full rate: extend
    both units' reservations to those ends."""
    a_work, b_work = a.busy_until - start, b.busy_until - start
    if a_work <= 0 or b_work <= 0:
        return
    a_alone, b_alone = a_work / a_fraction, b_work / b_fraction  # each one's end if the other stayed busy
    overlap = b_alone if b_alone < a_alone else a_alone  # min() without the call: about once per op
    if a_fraction < 1.0:  # `Server.stretch` does nothing at the full rate: the call skipped
        a.stretch(start, overlap, a_fraction)
    if b_fraction < 1.0:
        b.stretch(start, overlap, b_fraction)

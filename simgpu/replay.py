"""The L2 replay: every memory access of a run, in launch order, through the L2 model without timing.

Fast mode does not simulate every SM, so it learns what L2 does from a replay: the tiles of each kernel are taken
in launch order a wave (all CTA slots of the chip) at a time, and within a wave the tiles' accesses are
interleaved one by one, as CTAs that start together and run the same program issue them; the roles of one tile
are interleaved likewise. Kernels follow one another and L2 contents carry over, as in the engine (a replay of
part of a run may keep less between kernels: `carry_bytes`); dirty tiles are written back at the end. The
result: HBM and L2 bytes, and per tensor and access kind the share of bytes that moved to or from HBM
(`MissShares`), which the representative SMs use for timing.

When nothing is evicted the replay's bytes do not depend on the order and equal exact mode's; when L2 overflows
the launch-order interleaving stands in for the order timing would give (the two can differ at wave edges).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from itertools import zip_longest

from simgpu.arch import Arch
from simgpu.ops import Load, Op, Store
from simgpu.units.fluid_l2 import MissShares
from simgpu.units.hbm import Hbm
from simgpu.units.l2 import L2

_LOAD, _STORE, _ATOMIC = 0, 1, 2


@dataclass(frozen=True)
class ReplayBytes:
    hbm_read_bytes: float
    hbm_write_bytes: float
    hbm_timed_bytes: float  # moved during the run (not the final write-back): what the HBM server was busy with
    l2_read_bytes: float
    l2_write_bytes: float
    shares: dict[str, MissShares]

    def vector(self) -> tuple[float, ...]:
        return (
            self.hbm_read_bytes,
            self.hbm_write_bytes,
            self.hbm_timed_bytes,
            self.l2_read_bytes,
            self.l2_write_bytes,
        )


@dataclass(frozen=True)
class KernelAccesses:
    """One kernel's tiles as the replay sees them: each tile's role programs, and how many run at once."""

    programs: Sequence[tuple[tuple[Op, ...], ...]]  # per tile, per role
    slots: int


def replay(
    arch: Arch,
    kernels: Sequence[KernelAccesses],
    capacity_bytes: float | None = None,
    carry_bytes: float | None = None,
) -> ReplayBytes:
    """Replay `kernels` in order through an L2 of the arch's capacity (or `capacity_bytes`); between two kernels
    at most `carry_bytes` (the most recently used) stay resident."""
    hbm = Hbm(1.0, 0.0)
    l2 = L2(int(arch.l2.capacity_bytes if capacity_bytes is None else capacity_bytes), 1.0, 0.0, hbm)

    l2_bytes: dict[tuple[str, int], float] = defaultdict(float)
    hbm_bytes: dict[tuple[str, int], float] = defaultdict(float)
    for number, kernel in enumerate(kernels):
        if number and carry_bytes is not None:
            l2.shrink(0.0, carry_bytes)
        for start in range(0, len(kernel.programs), kernel.slots):
            wave = kernel.programs[start : start + kernel.slots]
            for op in _interleave([_interleave([iter(p) for p in tile]) for tile in wave]):
                moved = hbm.read_bytes + hbm.write_bytes
                key: Hashable = (op.tensor, op.tile)  # type: ignore[union-attr]
                if isinstance(op, Load):
                    kind = _LOAD
                    l2.load(0.0, key, op.nbytes)
                elif isinstance(op, Store) and op.atomic:
                    kind = _ATOMIC
                    l2.atomic(0.0, key, op.nbytes)
                else:
                    kind = _STORE
                    l2.store(0.0, key, op.nbytes)  # type: ignore[union-attr]
                l2_bytes[op.tensor, kind] += op.nbytes  # type: ignore[union-attr]
                hbm_bytes[op.tensor, kind] += hbm.read_bytes + hbm.write_bytes - moved  # type: ignore[union-attr]
    timed = hbm.read_bytes + hbm.write_bytes
    l2.flush()
    shares: dict[str, MissShares] = {}
    for tensor in sorted({tensor for tensor, _ in l2_bytes}):
        ratio = [
            hbm_bytes[tensor, kind] / l2_bytes[tensor, kind] if l2_bytes[tensor, kind] else 0.0 for kind in range(3)
        ]
        shares[tensor] = MissShares(*ratio)
    return ReplayBytes(hbm.read_bytes, hbm.write_bytes, timed, l2.read_bytes, l2.write_bytes, shares)


def _interleave(streams: Sequence[Iterator[Op]]) -> Iterator[Op]:
    """The memory ops of `streams`, one from each in turn."""
    memory = [(op for op in stream if isinstance(op, (Load, Store))) for stream in streams]
    if len(memory) == 1:
        yield from memory[0]
        return
    for group in zip_longest(*memory):
        for op in group:
            if op is not None:
                yield op

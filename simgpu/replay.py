"""The L2 replay: every memory access of a run, in launch order, through the L2 model without timing.

Fast mode does not simulate every SM, so it learns what L2 does from a replay: the tiles of each kernel are taken
in launch order a wave (all CTA slots of the chip) at a time, and within a wave the tiles' accesses are
interleaved one by one, as CTAs that start together and run the same program issue them; the roles of one tile
are interleaved likewise. Kernels follow one another and L2 contents carry over, as in the engine (a replay of
part of a run may keep less between kernels: `carry_bytes`); dirty tiles are written back at the end. The
result: HBM and L2 bytes, and per kernel, tensor and access kind the share of bytes that moved to or from HBM
(`MissShares`), which the representative SMs use for timing; a tile's first access to a key and its later ones
(`simgpu.fold.mark_retouches`) count apart.

When nothing is evicted the replay's bytes do not depend on the order and equal exact mode's; when L2 overflows
the launch-order interleaving stands in for the order timing would give (the two can differ at wave edges).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import zip_longest

from simgpu.arch import Arch
from simgpu.ops import Load, Store
from simgpu.units.fluid_l2 import MissShares
from simgpu.units.hbm import Hbm
from simgpu.units.l2 import L2

_LOAD, _STORE, _ATOMIC = 0, 1, 2
_Key = tuple[int, str, int]  # (kernel, tensor, kind)
_AGAIN = 3  # added to the kind of an access to a key its tile accessed before


@dataclass(frozen=True)
class ReplayBytes:
    hbm_read_bytes: float
    hbm_write_bytes: float
    hbm_timed_bytes: float  # moved during the run (not the final write-back): what the HBM server was busy with
    l2_read_bytes: float
    l2_write_bytes: float
    shares: tuple[dict[str, MissShares], ...]  # per kernel

    def vector(self) -> tuple[float, ...]:
        return (
            self.hbm_read_bytes,
            self.hbm_write_bytes,
            self.hbm_timed_bytes,
            self.l2_read_bytes,
            self.l2_write_bytes,
        )


Record = tuple[int, str, tuple[str, Hashable], int]  # one access as the replay walks it: kind, tensor, L2 key, bytes


def records(ops: Sequence[Load | Store]) -> tuple[Record, ...]:
    """The replay's records of a tile's memory ops (in `simgpu.fold.memory_order`)."""
    return tuple(
        (
            _LOAD if isinstance(op, Load) else _ATOMIC if op.atomic else _STORE,
            op.tensor,
            (op.tensor, op.tile),
            op.nbytes,
        )
        for op in ops
    )


def rehead(
    tile_records: Sequence[Record], axes: int, source: tuple[object, ...], head: tuple[object, ...]
) -> tuple[Record, ...] | None:
    """A tile's records for the same tile of another head: every tile key, a tuple that begins with the `axes`
    entries `source`, begins with `head` instead (a kernel's `head_axes` select memory only, and every schedule
    keys its tiles so). None when a key does not begin so: the caller folds that tile itself."""
    out = []
    for kind, tensor, (_, tile), nbytes in tile_records:
        if type(tile) is not tuple or tile[:axes] != source:
            return None
        out.append((kind, tensor, (tensor, head + tile[axes:]), nbytes))
    return tuple(out)


@dataclass(frozen=True)
class KernelAccesses:
    """One kernel's tiles as the replay sees them: each tile's access records (`records`, in
    `simgpu.fold.memory_order`), and how many tiles run at once."""

    accesses: Sequence[Sequence[Record]]  # per tile
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
    actions = (l2.load, l2.store, l2.atomic)

    l2_bytes: dict[_Key, float] = defaultdict(float)
    read_bytes: dict[_Key, float] = defaultdict(float)  # HBM reads: the misses
    written_bytes: dict[tuple[int, str], float] = defaultdict(float)  # HBM writes: the write-backs caused
    for number, kernel in enumerate(kernels):
        if number and carry_bytes is not None:
            l2.shrink(0.0, carry_bytes)
        sums: dict[tuple[str, int], list[float]] = {}  # per tensor and kind: L2 bytes, HBM reads, HBM writes
        for start in range(0, len(kernel.accesses), kernel.slots):
            wave = kernel.accesses[start : start + kernel.slots]
            touched: list[set[tuple[str, Hashable]]] = [set() for _ in wave]
            # One access from each tile in turn, as CTAs that start together and run the same program issue them.
            for n, record in (access for group in zip_longest(*wave) for access in enumerate(group)):
                if record is None:
                    continue
                kind, tensor, key, nbytes = record
                read, written = hbm.read_bytes, hbm.write_bytes
                actions[kind](0.0, key, nbytes)
                seen = touched[n]
                if key in seen:
                    kind += _AGAIN
                else:
                    seen.add(key)
                counted = sums.get((tensor, kind))
                if counted is None:
                    counted = sums[tensor, kind] = [0.0, 0.0, 0.0]
                counted[0] += nbytes
                counted[1] += hbm.read_bytes - read
                counted[2] += hbm.write_bytes - written
        for (tensor, kind), (l2_sum, read_sum, written_sum) in sums.items():
            l2_bytes[number, tensor, kind] += l2_sum
            read_bytes[number, tensor, kind] += read_sum
            written_bytes[number, tensor] += written_sum
    timed = hbm.read_bytes + hbm.write_bytes
    l2.flush()
    shares: tuple[dict[str, MissShares], ...] = tuple({} for _ in kernels)
    for number, tensor, _ in l2_bytes:
        if tensor not in shares[number]:
            load, store, atomic, load_again, store_again, atomic_again = (
                _ratio(read_bytes, l2_bytes, (number, tensor, kind)) for kind in range(6)
            )
            accessed = sum(l2_bytes.get((number, tensor, kind), 0.0) for kind in range(6))
            written = written_bytes[number, tensor] / accessed
            shares[number][tensor] = MissShares(load, store, atomic, load_again, store_again, atomic_again, written)
    return ReplayBytes(hbm.read_bytes, hbm.write_bytes, timed, l2.read_bytes, l2.write_bytes, shares)


def _ratio(hbm_bytes: Mapping[_Key, float], l2_bytes: Mapping[_Key, float], key: _Key) -> float:
    accessed = l2_bytes.get(key, 0.0)
    return hbm_bytes.get(key, 0.0) / accessed if accessed else 0.0

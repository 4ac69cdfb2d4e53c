"""Kernels as schedules hand them to the engine: work items, per-CTA resources, warp roles and their programs.

A kernel is a list of tiles (work items, in launch order) and the program each warp role runs for one tile. A
non-persistent kernel launches one CTA per tile; a persistent kernel launches as many CTAs as fit at once and each
pulls tiles from a shared queue in the given order (dynamic scheduling, as FA3/FA4's tile schedulers do; LPT is an
order of the tiles). Barriers are per CTA and keep their phase across the tiles of a persistent CTA.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import overload

from simgpu.errors import ScheduleError
from simgpu.ops import Op

WARP_SIZE = 32


@dataclass(frozen=True)
class TileGrid(Sequence[tuple[int, ...]]):
    """The index tuples of a dense grid in row-major order (last index fastest), computed on demand: a grid of
    millions of tiles costs nothing until the engine reaches a tile."""

    shape: tuple[int, ...]
    # The number of tiles, counted once: the engine asks for it at every tile it takes (standard attention's exact
    # runs index 65,536 score tiles, each asking three times).
    size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", math.prod(self.shape))

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        """The tiles in order, made by `itertools.product` (the inherited iterator would index them one by one)."""
        return itertools.product(*(range(extent) for extent in self.shape))

    @overload
    def __getitem__(self, index: int) -> tuple[int, ...]: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[tuple[int, ...], ...]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, ...] | tuple[tuple[int, ...], ...]:
        size = self.size
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(size)))
        if not -size <= index < size:
            raise IndexError(index)
        flat = index % size
        coordinates = []
        for extent in reversed(self.shape):
            flat, coordinate = divmod(flat, extent)
            coordinates.append(coordinate)
        return tuple(reversed(coordinates))


@dataclass(frozen=True)
class CtaResources:
    """What one CTA occupies on its SM; decides how many CTAs are resident at once."""

    threads: int
    registers_per_thread: int
    smem_bytes: int
    tmem_columns: int = 0


@dataclass(frozen=True)
class BarrierSpec:
    """A ring of `slots` mbarrier-style barriers: a slot's phase completes after `arrivals` arrivals.

    `initial_phases` start completed: the `empty` ring of a producer/consumer pipeline has `initial_phases=1`, so
    the producer's first pass over the ring does not wait.

    `cluster`: a barrier of a 2-CTA pair's leader that both CTAs arrive on (tcgen05 `cta_group::2`: one thread of the
    leader issues each MMA for the pair, once both CTAs' operands are ready). The engine runs each CTA of the pair as
    the same symmetric program, so the peer's arrival comes when this CTA's does, plus the trip over the SM-to-SM
    network: every arrival counts `dsmem.latency_cycles` after it is made.

    `named`: a hardware named barrier (bar.sync / bar.arrive, as FA3's ping-pong turns) instead of an mbarrier. An
    `Arrive` op reaches a waiter `latency.named_handoff_cycles` or `latency.mbarrier_handoff_cycles` after it is made.
    """

    name: str
    arrivals: int = 1
    initial_phases: int = 0
    slots: int = 1
    cluster: bool = False
    named: bool = False


@dataclass(frozen=True)
class Role:
    """A group of warps running the same program (a warp role: load, mma, softmax, correction, epilogue...).
    `setup` runs once per CTA before its first tile's program (a persistent CTA's later tiles skip it): the kernel's
    prologue, e.g. barrier initialisation and register reallocation."""

    name: str
    warps: int
    program: Callable[[Hashable], Sequence[Op]]
    setup: tuple[Op, ...] = ()


@dataclass(frozen=True)
class Kernel:
    name: str
    tiles: Sequence[Hashable]  # in launch order; a TileGrid for dense grids
    cta: CtaResources
    roles: tuple[Role, ...]
    barriers: tuple[BarrierSpec, ...] = field(default=())
    persistent: bool = False
    # The first `head_axes` entries of every tile's index tuple only select memory (batch and head): tiles equal
    # in the other entries run the same programs on other memory. Tiles that differ in these entries touch the
    # same memory only through keys that name no head (PyTorch's causal mask, which every head reads). Fast mode
    # builds one tile of each shape and replays the first heads' memory traffic. 0: tiles may all differ.
    head_axes: int = 0
    # The first entries of every tile's index that name the memory its tiles share: a batch entry's head, (batch,
    # head), or (head, sequence) in a varlen batch, whose `head_axes` is the head alone. Tiles that differ in them
    # meet in L2 only through keys that name no head. Fast mode counts the waves in which the chip runs each kind of
    # tile per such group (`simgpu.fast_plan.KernelPlan.kind_waves`). 0: not declared (fast mode then counts none).
    memory_axes: int = 0
    # Whether the tiles (a TileGrid) run the same programs but for their memory keys, renamed one to one (where a tile
    # touches a key again, the others touch theirs again), except where an index past the head axes is its axis's
    # last (a short last block): fast mode then folds and signs one tile of each such form, not each tile
    # (`simgpu.fast_plan`: standard attention's 16,384 score tiles of a head at 16k tokens). The schedule vouches
    # for it; fast mode checks each form's last tile against its first (programs and folds alike), not the keys.
    # Ignored where the tiles are not a TileGrid (a kernel cut to its first tiles).
    alike_but_edges: bool = False
    # An entry of the tile index past the head axes whose tiles of one head the grid launches so far apart that none
    # finds in L2 what another of them left there (v1's split grid, whose splits of a head are batch x heads CTAs
    # apart: the schedule tells where the run's data exceeds L2). Fast mode's L2 replay then takes each head and
    # value of this entry as a head of its own. None: a head's tiles may meet in L2.
    launched_apart_axis: int | None = None

    def __post_init__(self) -> None:
        if not self.tiles:
            raise ScheduleError(f"kernel {self.name}: no tiles to run")
        if not self.roles:
            raise ScheduleError(f"kernel {self.name}: no warp roles")
        role_warps = sum(role.warps for role in self.roles)
        if role_warps * WARP_SIZE != self.cta.threads:
            raise ScheduleError(
                f"kernel {self.name}: roles have {role_warps} warps but the CTA has {self.cta.threads} threads"
            )
        if self.memory_axes and self.memory_axes < self.head_axes:
            raise ScheduleError(f"kernel {self.name}: memory_axes must hold the head axes")
        if self.launched_apart_axis is not None and not self.head_axes <= self.launched_apart_axis:
            raise ScheduleError(f"kernel {self.name}: launched_apart_axis must lie past the head axes")
        names = [b.name for b in self.barriers]
        if len(set(names)) != len(names):
            raise ScheduleError(f"kernel {self.name}: duplicate barrier names")
        for barrier in self.barriers:
            if barrier.arrivals <= 0 or barrier.initial_phases < 0 or barrier.slots <= 0:
                raise ScheduleError(f"kernel {self.name}: barrier {barrier.name} has a bad arrival or phase count")


def with_programs(kernel: Kernel, programs: Sequence[Sequence[Op]]) -> Kernel:
    """`kernel` with each role running its program of `programs` (in role order) whatever tile it is given: a
    folded tile's programs (`simgpu.fold.FoldedTile`) run as a kernel of their own."""
    roles = tuple(
        replace(role, program=_constant(program)) for role, program in zip(kernel.roles, programs, strict=True)
    )
    return replace(kernel, roles=roles)


def _constant(program: Sequence[Op]) -> Callable[[Hashable], Sequence[Op]]:
    """A role program that runs `program` for whatever tile it is given."""
    return lambda _tile: program

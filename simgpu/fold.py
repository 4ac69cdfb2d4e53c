"""Steady-state loop folding: fast mode's way of not simulating every iteration of a long loop.

A long `Repeat` runs a fill phase (the software pipeline filling its stages), a steady state in which every
iteration costs the same, and a drain. Folding keeps `keep` iterations at each end of every top-level loop of a
tile's programs and removes the middle, in a whole number of `period`s (the least common multiple of the kernel's
barrier ring sizes and 2, so ring slots, phase parities and ping-pong turns line up exactly as in the unfolded
loop). Every role of a tile loses the same iterations, so a producer's loop of n and a consumer's loop of n - 1
stay in step, and so do loops that walk the same index (v1's per-Q-block init, key-block and epilogue loops).
Nested loops run whole inside the kept iterations.

What a folded tile reports is enough to extrapolate back: the iterations executed at the top level and inside
nested loops, in the folded and in the full program. A removed top-level iteration costs `a + b x` its nested
iterations; fast mode fits a and b from two more folds, one period more kept next to the head and next to the
tail (`simgpu.fast`), which `FoldedTile.widened` builds from a fold by adding those iterations only. That is exact
when the removed iterations are like the kept ones except in their nested trip counts (causal loops shrink or grow
them linearly).

An `outline` reads a tile's programs at their top level without building a loop body: tiles with equal outlines
fold alike, so fast mode folds a few tiles of each outline rather than every tile of a long sequence.

Assumed, not checked: a loop's middle iterations differ from its ends only in nested trip counts (a mask in the
middle of a key range must not be folded: schedules keep such iterations at the ends, as causal masks on the
diagonal are).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from itertools import zip_longest

from simgpu.kernel import Kernel
from simgpu.ops import Load, Op, Repeat, Store
from simgpu.replay import Record, records
from simgpu.units.fluid_l2 import Retouch

TOP, NESTED = 0, 1  # the two iteration counts a folded tile reports
_MEMORY_OPS = (Load, Store)  # matched by exact type: the replay walks long programs


@dataclass(frozen=True)
class FoldSpec:
    """How much of each long top-level loop to keep: `keep` iterations at each end, plus `head` and `tail` more
    periods next to them (the fit variants)."""

    keep: int
    period: int
    head: int = 0
    tail: int = 0

    def variant(self, side: str) -> FoldSpec:
        """This fold with one more period kept next to its head or its tail."""
        if side == "head":
            return FoldSpec(self.keep, self.period, self.head + 1, self.tail)
        return FoldSpec(self.keep, self.period, self.head, self.tail + 1)

    def kept(self, count: int) -> tuple[int, int]:
        """The iterations `[0, first)` and `[second, count)` a loop of `count` keeps."""
        spare = (count - 2 * self.keep) // self.period - self.head - self.tail
        if spare < 1:
            return count, count
        first = self.keep + self.head * self.period
        return first, first + spare * self.period


def kernel_period(kernel: Kernel) -> int:
    """The fold period of a kernel: ring sizes and ping-pong parity must line up across removed iterations."""
    return math.lcm(2, *(barrier.slots for barrier in kernel.barriers))


@dataclass(frozen=True)
class FoldedTile:
    """One tile's programs with long loops folded, flattened (no `Repeat` left), and the iteration counts."""

    programs: tuple[tuple[Op, ...], ...]  # one per role, in the kernel's role order
    executed: tuple[int, int]  # (top-level, nested) loop iterations run by the folded programs, all roles together
    full: tuple[int, int]  # the same for the unfolded programs
    # Per role, where each top-level loop lost its removed iterations: (position in the folded program, the loop);
    # and the removal, (first removed iteration, iterations removed). `widened` inserts iterations there.
    gaps: tuple[tuple[tuple[int, Repeat], ...], ...] = ()
    cut: tuple[int, int] = (0, 0)

    @property
    def removed(self) -> tuple[int, int]:
        return (self.full[TOP] - self.executed[TOP], self.full[NESTED] - self.executed[NESTED])

    def widened(self, side: str, period: int) -> FoldedTile:
        """This tile folded with one more period kept next to the head or the tail of the removed iterations: the
        same as folding it with `FoldSpec.variant(side)`, building only the iterations added."""
        first, removed = self.cut
        if not removed:
            return self
        added = range(first, first + period) if side == "head" else range(first + removed - period, first + removed)
        programs, gaps = [], []
        nested = 0
        for program, role_gaps in zip(self.programs, self.gaps, strict=True):
            out: list[Op] = []
            moved = []
            last = 0
            for position, loop in role_gaps:
                out.extend(program[last:position])
                if side == "tail":
                    moved.append((len(out), loop))
                for i in added:
                    nested += _expand(loop.body(i), out)[0]
                if side == "head":
                    moved.append((len(out), loop))
                last = position
            out.extend(program[last:])
            programs.append(tuple(out))
            gaps.append(tuple(moved))
        top = period * sum(len(role_gaps) for role_gaps in self.gaps)
        executed = (self.executed[TOP] + top, self.executed[NESTED] + nested)
        cut = (first + period, removed - period) if side == "head" else (first, removed - period)
        return FoldedTile(tuple(programs), executed, self.full, tuple(gaps), cut)

    @functools.cached_property
    def accesses(self) -> tuple[Load | Store, ...]:
        """The memory ops of the tile in the order the L2 replay takes them (`memory_order`)."""
        return tuple(op for _, op in memory_order(self.programs))

    @functools.cached_property
    def records(self) -> tuple[Record, ...]:
        """The accesses as the L2 replay walks them (`simgpu.replay.records`)."""
        return records(self.accesses)

    @functools.cached_property
    def marked(self) -> tuple[tuple[Op, ...], ...]:
        """The programs with the tile key of every access to bytes the tile accessed before (in `memory_order`)
        wrapped in `Retouch`, so that a fluid L2 (`simgpu.units.fluid_l2`) takes the share of later accesses."""
        return mark_retouches(self.programs)

    def signature(self) -> Hashable:
        """The folded programs with tile keys left out: tiles with equal signatures cost the same."""
        return self._signature

    @functools.cached_property
    def _signature(self) -> Hashable:  # built once: fast mode asks for it per shape and per class
        return tuple(tuple(_shape(op) for op in program) for program in self.programs)


def memory_order(programs: Sequence[Sequence[Op]]) -> list[tuple[tuple[int, int], Load | Store]]:
    """The memory ops of a tile's role programs, one from each role in turn (as roles that start together issue
    them), with their (role, position in its program)."""
    streams: list[list[tuple[tuple[int, int], Load | Store]]] = [
        [((role, n), op) for n, op in enumerate(program) if type(op) in _MEMORY_OPS]  # type: ignore[misc]
        for role, program in enumerate(programs)
    ]
    if len(streams) == 1:
        return streams[0]
    return [access for group in zip_longest(*streams) for access in group if access is not None]


def mark_retouches(programs: Sequence[Sequence[Op]]) -> tuple[tuple[Op, ...], ...]:
    """`programs` with the tile key of every access to bytes accessed before (in `memory_order`) in `Retouch`."""
    touched: set[tuple[str, Hashable]] = set()
    marked = [list(program) for program in programs]
    for (role, position), op in memory_order(programs):
        key = (op.tensor, op.tile)
        if key in touched:
            marked[role][position] = replace(op, tile=Retouch(op.tile))
        touched.add(key)
    return tuple(tuple(program) for program in marked)


def fold_tile(kernel: Kernel, tile: Hashable, spec: FoldSpec) -> FoldedTile:
    programs = [role.program(tile) for role in kernel.roles]
    top = [op.count for program in programs for op in program if isinstance(op, Repeat)]
    # One removal for every role of the tile, from its shortest loop (see the module docstring).
    first, second = spec.kept(min(top)) if top else (0, 0)
    removed = second - first
    counts = [0, 0, 0, 0]  # executed top, executed nested, full top, full nested
    flat = []
    gaps = []
    for program in programs:
        out: list[Op] = []
        role_gaps = []
        for op in program:
            if not isinstance(op, Repeat):
                out.append(op)
                continue
            counts[0] += op.count - removed
            counts[2] += op.count
            looped = False
            for i in range(first):
                nested, loops = _expand(op.body(i), out)
                looped = looped or loops
                counts[1] += nested
                counts[3] += nested
            role_gaps.append((len(out), op))
            for i in range(first + removed, op.count):
                nested, loops = _expand(op.body(i), out)
                looped = looped or loops
                counts[1] += nested
                counts[3] += nested
            # Removed iterations are only built when the kept ones have nested loops to count.
            for i in range(first, first + removed) if looped else ():
                counts[3] += _expand(op.body(i), None)[0]
        flat.append(tuple(out))
        gaps.append(tuple(role_gaps))
    return FoldedTile(tuple(flat), (counts[0], counts[1]), (counts[2], counts[3]), tuple(gaps), (first, removed))


@dataclass(frozen=True)
class Outline:
    """A tile's programs at their top level, loops unexpanded: `key` is equal for tiles that fold alike (their
    top-level ops up to memory keys; per loop, its trip count, or when the loops are folded, its count beyond the
    shortest and what the removal leaves over); `executed` and `full` the top-level iterations, folded and not."""

    key: Hashable
    executed: int
    full: int


def outline(kernel: Kernel, tile: Hashable, spec: FoldSpec) -> Outline:
    """The tile's `Outline`: its role programs built, no loop body. Tiles with equal keys fold to programs equal up
    to memory keys when loop bodies differ between tiles only in memory keys and in where they lie from either end
    of their loop (the causal diagonal lies at a loop's end): `simgpu.fast_plan` checks a group's first and last
    tile, and nested loops, whose counts an outline does not see, are folded whole."""
    programs = [role.program(tile) for role in kernel.roles]
    top = [op.count for program in programs for op in program if type(op) is Repeat]
    first, second = spec.kept(min(top)) if top else (0, 0)
    removed = second - first
    # Folded loops of counts m and m + period keep the same iterations relative to either end.
    base, left = (min(top), (min(top) - 2 * spec.keep) % spec.period) if removed else (0, -1)
    key = (
        left,
        tuple(
            tuple(("loop", op.count - base) if type(op) is Repeat else _shape(op) for op in program)
            for program in programs
        ),
    )
    return Outline(key, sum(top) - removed * len(top), sum(top))


def _expand(ops: Sequence[Op], out: list[Op] | None) -> tuple[int, bool]:
    """Append `ops` with their loops expanded to `out` (unless None); return how many loop iterations they hold and
    whether they hold a loop."""
    iterations = 0
    looped = False
    for op in ops:
        if type(op) is Repeat:
            looped = True
            iterations += op.count
            for i in range(op.count):
                iterations += _expand(op.body(i), out)[0]
        elif out is not None:
            out.append(op)
    return iterations, looped


def _shape(op: Op) -> Hashable:
    kind = type(op)
    if kind is Load:
        load: Load = op  # type: ignore[assignment]
        return ("load", load.tensor, load.nbytes, load.engine, load.arrive, load.acquire)
    if kind is Store:
        store: Store = op  # type: ignore[assignment]
        return (
            "store",
            store.tensor,
            store.nbytes,
            store.engine,
            store.atomic,
            store.wait,
            store.arrive,
            store.release,
        )
    return op

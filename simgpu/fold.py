"""Steady-state loop folding: fast mode's way of not simulating every iteration of a long loop.

A long `Repeat` runs a fill phase (the software pipeline filling its stages), a steady state in which every
iteration costs the same, and a drain. Folding keeps `keep` iterations at each end of every top-level loop of a
tile's programs and removes the middle, in a whole number of `period`s (the least common multiple of the kernel's
barrier ring sizes and 2, so ring slots, phase parities and ping-pong turns line up exactly as in the unfolded
loop). Every role of a tile loses the same iterations, so a producer's loop of n and a consumer's loop of n - 1
stay in step, and so do loops that walk the same index (v1's per-Q-block init, key-block and epilogue loops).

Nested loops (v1's 16-row query steps inside each key block) fold too in a kernel of one role, where no other
role's loop must stay in step with them, by kind: a kept top-level iteration's nested loop whose middle period looks
like that of the middle, the first or the last iteration's (same ops, memory keys aside) folds as that kind, apart
from the others (v1's first and last key blocks run other query steps: no O re-read; the final O written); one like
none of them runs whole. A folded nested loop keeps `keep` iterations at each end and, beyond those, the periods at
either end unlike its middle (the causal diagonal's masked steps). The L2 replay does not fold nested loops
(`FoldSpec.nested`): a folded one touches fewer distinct keys than the whole one, and its working set would fit in
L2 where the real one does not. It samples them instead where they are long (`FoldSpec.sampled`, `_sampling`):
of runs of alike iterations in a nested loop's middle one period is built, its memory ops carrying the bytes of the
whole run, so the working set keeps its bytes at a coarser grain (v1's query steps at long sequences; not its
causal ones, whose loops start at the diagonal). Where a kernel's tiles all run the same top-level iterations and
those hold no loop, the replay samples the middle of the top-level loops likewise instead of folding it
(`FoldSpec.sampled_top`, `_sampled_middle`): FlashAttention's backward sweeps every query block from each key block.

What a folded tile reports is enough to extrapolate back: the iterations executed at the top level and inside
nested loops, in the folded and in the full program. A removed top-level iteration costs `a + b x` its nested
iterations and a removed nested iteration `b` of its kind; fast mode fits a and b from more folds, a few periods
more (`simgpu.fast_costs.FIT_PERIODS`; the L2 replay, one) kept next to the head and next to the tail, or, when
nested loops were folded, in every folded nested loop of a kind (`simgpu.fast`), which `FoldedTile.widened` builds
from a fold by adding those iterations only (a nested variant folds again; it widens the loops like the first
one's too, which touch first what the others touch again). That is exact when the removed iterations are like
the kept ones except in their nested trip counts (causal loops shrink or grow them linearly), and the removed nested
iterations like the kept ones of their kind.

An `outline` reads a tile's programs at their top level without building a loop body: tiles with equal outlines
fold alike, so fast mode folds a few tiles of each outline rather than every tile of a long sequence.

Assumed, not checked: a loop's middle iterations differ from its ends only in nested trip counts (a mask in the
middle of a key range must not be folded: schedules keep such iterations at the ends, as causal masks on the
diagonal are); a nested loop's ops are uniform between the periods checked at its ends and its middle; a loop whose
first and last bodies hold no loop holds none (counting a removed iteration's nested loops reads only those).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import zip_longest
from operator import attrgetter
from typing import Final

from simgpu.kernel import Kernel
from simgpu.ops import Advance, Alu, Arrive, Delay, Exp, Fma, Load, Mma, Op, Repeat, Smem, Store, Tmem, Vector, Wait
from simgpu.replay import Record, TileTotals, program_records, records, tile_totals
from simgpu.units.fluid_l2 import Retouch


class _Derived:
    """What a `FoldedTile` derives from its programs, each made on first use (None until then): fast mode asks a few
    of every folded tile, of tens of thousands, and most of them more than once."""

    __slots__ = ("accesses", "marked", "records", "removed", "signature", "totals", "widenings")

    def __init__(self) -> None:
        self.removed: tuple[int, ...] | None = None
        self.widenings: dict[tuple[str, int], FoldedTile] = {}
        self.accesses: tuple[Load | Store, ...] | None = None
        self.records: tuple[Record, ...] | None = None
        self.totals: tuple[TileTotals | None] | None = None  # (the totals,) once made: the totals may be None
        self.marked: tuple[tuple[Op, ...], ...] | None = None
        self.signature: _HashedOnce | None = None


# The module's constants are Final: compiled (mypyc), a plain module name is looked up in the module's dict at every
# use, once or twice per op in the loops over programs.
TOP: Final = 0  # positions in the iteration counts a folded tile reports (see `FoldedTile.executed`)
NESTED: Final = 1
# Fit variants that keep one more period in every folded nested loop like the middle, the first or the last
# top-level iteration's nested loop (nested kinds 0, 1, 2: counted at NESTED + kind).
NESTED_SIDES: Final = ("inner", "first", "last")
_MEMORY_OPS: Final = (Load, Store)  # matched by exact type: the replay walks long programs
# Per op type other than memory ops and loops, its fields in order: such an op's shape (`_shape`) is its type and
# fields, which compare and hash as the op does (every field of an op compares), but in C, not through the
# dataclass's generated methods: a signature holds every op of a tile, and the plan hashes one per tile position.
_FIELDS: dict[type, Callable[[Op], Hashable]] = {
    kind: attrgetter(*(f.name for f in fields(kind)))
    for kind in (Mma, Exp, Fma, Alu, Vector, Smem, Tmem, Delay, Arrive, Wait, Advance)
}


@dataclass(frozen=True)
class FoldSpec:
    """How much of each long top-level loop to keep: `keep` iterations at each end, plus `head` and `tail` more
    periods next to them (the fit variants)."""

    keep: int
    period: int
    head: int = 0
    tail: int = 0
    extra: tuple[int, ...] = (0, 0, 0)  # per nested kind, more periods kept next to the head of its folded loops
    nested: bool = True  # fold nested loops too (one-role kernels only)
    # Where nested loops are not folded: the periods of a nested loop's uniform middle built at most (0: all), each
    # standing for a run of periods (`_sampling`, `_expand_sampled`: the L2 replay of long loops).
    sampled: int = 0
    # The periods of a top-level loop's middle (the iterations a fold would remove) built, each standing for a run of
    # periods, in loops whose iterations hold no loop (0: folded instead; `_sampled_middle`: the L2 replay).
    sampled_top: int = 0

    def variant(self, side: str) -> FoldSpec:
        """This fold with one more period kept next to its head or its tail, or (`NESTED_SIDES`) next to the head
        of every folded nested loop of a kind."""
        if side == "head":
            return replace(self, head=self.head + 1)
        if side in NESTED_SIDES:
            # Every nested variant widens the loops like the first iteration's too: that iteration touches first
            # what later ones touch again (v1's first key block reads every Q_i first), and iterations added
            # elsewhere alone would touch their keys first, which the whole loop does not (`mark_retouches`).
            kinds = {NESTED_SIDES.index(side), NESTED_SIDES.index("first")}
            return replace(self, extra=tuple(e + (k in kinds) for k, e in enumerate(self.extra)))
        return replace(self, tail=self.tail + 1)

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


class FoldMemo:
    """Loop bodies with their memory ops weighted as the L2 replay's sampled runs take them (`_expand_weighted`), each
    made once per body object and weight for the folds that share the memo (a tile's folds and widenings, or a
    kernel's replay folds in one prediction: `simgpu.fast_plan.KernelPlan.fold_memo`). The schedules hand the folds
    one body object for alike loop iterations (FlashAttention's backward: a Q block's visit, shared by a head's key
    blocks; v1: a query step, shared by a tile's key blocks), whose weighted memory ops each fold built anew
    (`Load.with_nbytes`, about 0.5 us each). Found by the body's identity: the memo holds the body, so its id is
    not reused meanwhile; the copies are equal to those built anew, and only their values are read."""

    __slots__ = ("_weighted",)

    def __init__(self) -> None:
        self._weighted: dict[tuple[int, int], tuple[Sequence[Op], tuple[Op, ...] | None]] = {}

    def weighted(self, ops: Sequence[Op], weight: int) -> tuple[Op, ...] | None:
        """`ops` with every memory op's bytes `weight` times its own; None where they hold a loop."""
        key = (id(ops), weight)
        entry = self._weighted.get(key)
        if entry is None:
            made = None if _has_loop(ops) else tuple([_scaled(op, weight) for op in ops])
            entry = self._weighted[key] = (ops, made)
        return entry[1]

    def __reduce__(self) -> tuple[type[FoldMemo], tuple[()]]:
        return FoldMemo, ()  # unpickled empty: the ids it keys by are this process's


@dataclass(frozen=True)
class FoldedTile:
    """One tile's programs with long loops folded, flattened (no `Repeat` left), and the iteration counts."""

    programs: tuple[tuple[Op, ...], ...]  # one per role, in the kernel's role order
    # Loop iterations run by the folded programs, all roles together: top-level, then nested in loops like the
    # middle top-level iteration's (or in removed top-level iterations), like the first one's and like the last
    # one's, which fold apart (v1's first and last key blocks run other query steps than the middle ones).
    executed: tuple[int, ...]
    full: tuple[int, ...]  # the same for the unfolded programs
    # Per role, where each top-level loop lost its removed iterations: (position in the folded program, the loop);
    # and the removal, (first removed iteration, iterations removed). `widened` inserts iterations there.
    gaps: tuple[tuple[tuple[int, Repeat], ...], ...] = ()
    cut: tuple[int, int] = (0, 0)
    # How it was folded (for `widened`): the fold, and the kernel and tile (nested loops folded: refolded whole).
    spec: FoldSpec | None = None
    source: tuple[Kernel, Hashable] | None = field(default=None, compare=False, repr=False)
    nested_removed: tuple[bool, ...] = (False, False, False)  # per nested kind, whether its loops lost iterations
    # Roles whose loop iterations were counted but not built (`fold_tile`'s `bodiless`): a tile for the L2 replay
    # only, whose programs lack those roles' loop bodies.
    bodiless: tuple[int, ...] = ()
    # The weighted loop bodies made so far (`FoldMemo`), for its widenings and refolds (None: a fold that samples
    # no loop, which weights none).
    memo: FoldMemo | None = field(default=None, compare=False, repr=False)
    _derived: _Derived = field(default_factory=_Derived, init=False, compare=False, repr=False)

    @property
    def removed(self) -> tuple[int, ...]:  # asked for every tile of a replay
        derived = self._derived
        if derived.removed is None:
            derived.removed = tuple(full - executed for full, executed in zip(self.full, self.executed, strict=True))
        return derived.removed

    def widened(self, side: str, period: int) -> FoldedTile:
        """This tile folded with `period` more iterations (at most the removed ones; a multiple of the fold's period)
        kept next to the head or the tail of the removed iterations: the
        same as folding it with `FoldSpec.variant(side)`, building only the iterations added. `NESTED_SIDES` (one
        more period in every folded nested loop of a kind) fold the tile again. Made once per side and period: the
        class costs widen a kind's representative again at a second clock, and the L2 replay widens it too."""
        made = self._derived.widenings
        tile = made.get((side, period))
        if tile is None:
            tile = self._widen(side, period)
            if tile is not self:  # (a tile widened to itself is not kept in its own dict: no reference cycle)
                made[side, period] = tile
        return tile

    def _widen(self, side: str, period: int) -> FoldedTile:
        if side in NESTED_SIDES:
            if not self.nested_removed[NESTED_SIDES.index(side)] or self.spec is None or self.source is None:
                return self
            return fold_tile(*self.source, self.spec.variant(side), self.bodiless, memo=self.memo)
        first, removed = self.cut
        if not removed:
            return self
        period = min(period, removed)  # the fold removes whole periods: never more kept than were removed
        added = range(first, first + period) if side == "head" else range(first + removed - period, first + removed)
        programs, gaps = [], []
        nested = [0] * len(NESTED_SIDES)
        nested_removed = list(self.nested_removed)
        spec = self.spec
        nested_spec = spec if spec is not None and spec.nested and len(self.programs) == 1 else None
        for role, (program, role_gaps) in enumerate(zip(self.programs, self.gaps, strict=True)):
            out: list[Op] = []
            moved = []
            last = 0
            for position, loop in role_gaps:
                out.extend(program[last:position])
                if side == "tail":
                    moved.append((len(out), loop))
                references = _references(loop, nested_spec)
                sampling = _sampling(loop, spec) if nested_spec is None and spec is not None else None
                for i in added if role not in self.bodiless else ():
                    (ran, held), _ = _expand_folded(loop.body(i), out, nested_spec, references, sampling, self.memo)
                    nested = [n + r for n, r in zip(nested, ran, strict=True)]
                    nested_removed = [f or r < h for f, r, h in zip(nested_removed, ran, held, strict=True)]
                if side == "head":
                    moved.append((len(out), loop))
                last = position
            out.extend(program[last:])
            programs.append(tuple(out))
            gaps.append(tuple(moved))
        top = period * sum(len(role_gaps) for role_gaps in self.gaps)
        executed = (self.executed[TOP] + top, *(e + n for e, n in zip(self.executed[NESTED:], nested, strict=True)))
        cut = (first + period, removed - period) if side == "head" else (first, removed - period)
        widened_spec = spec.variant(side) if spec is not None else None
        return FoldedTile(
            tuple(programs),
            executed,
            self.full,
            tuple(gaps),
            cut,
            widened_spec,
            self.source,
            tuple(nested_removed),
            self.bodiless,
            self.memo,
        )

    @property
    def accesses(self) -> tuple[Load | Store, ...]:
        """The memory ops of the tile in the order the L2 replay takes them (`memory_order`)."""
        derived = self._derived
        if derived.accesses is None:
            derived.accesses = memory_accesses(self.programs)
        return derived.accesses

    @property
    def records(self) -> tuple[Record, ...]:
        """The accesses as the L2 replay walks them (`simgpu.replay.records`)."""
        derived = self._derived
        if derived.records is None:
            # One role's records are made in one pass over its program, where its memory ops are not listed yet (the
            # replay folds v2's backward at 64k tokens, 512 key blocks of a head, and asks for their records only).
            made = None
            if derived.accesses is None and len(self.programs) == 1:
                made = program_records(self.programs[0])
            derived.records = records(self.accesses) if made is None else made
        return derived.records

    @property
    def totals(self) -> TileTotals | None:
        """What the L2 replay sums over the records (`simgpu.replay.tile_totals`), for the shape's head copies."""
        derived = self._derived
        if derived.totals is None:
            derived.totals = (tile_totals(self.records),)
        return derived.totals[0]

    @property
    def marked(self) -> tuple[tuple[Op, ...], ...]:
        """The programs with the tile key of every access to bytes the tile accessed before (in `memory_order`)
        wrapped in `Retouch`, so that a fluid L2 (`simgpu.units.fluid_l2`) takes the share of later accesses."""
        derived = self._derived
        if derived.marked is None:
            derived.marked = mark_retouches(self.programs)
        return derived.marked

    def signature(self) -> Hashable:
        """The folded programs with tile keys left out: tiles with equal signatures cost the same. Built once: fast
        mode asks for it per shape and per class."""
        derived = self._derived
        if derived.signature is None:
            derived.signature = _HashedOnce(tuple(tuple(map(_shape, program)) for program in self.programs))
        return derived.signature


class _HashedOnce:
    """A tuple that is hashed once: a signature holds every op of a tile (their dataclass hashes are recomputed on
    every call), and fast mode's plan puts each in a set or a dict two or three times. Equal when the tuples are."""

    __slots__ = ("_hash", "items")

    def __init__(self, items: tuple[object, ...]) -> None:
        self.items = items
        self._hash = hash(items)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type[_HashedOnce], tuple[tuple[object, ...]]]:
        return _HashedOnce, (self.items,)  # hashed again where unpickled: string hashes differ between processes

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _HashedOnce):
            return NotImplemented
        return self is other or (self._hash == other._hash and self.items == other.items)


def memory_accesses(programs: Sequence[Sequence[Op]]) -> tuple[Load | Store, ...]:
    """The memory ops of a tile's flat role programs in `memory_order`, without their positions."""
    # Per role, its memory ops in program order; then one from each role in turn.
    streams = [[op for op in program if type(op) is Load or type(op) is Store] for program in programs]
    return tuple(_in_turn(streams))


def loop_free_accesses(programs: Sequence[Sequence[Op]]) -> Sequence[Load | Store] | None:
    """`memory_accesses` of programs that hold no loop, told in the same pass over their ops; None where one holds a
    loop. (The L2 replay takes standard attention's 20,480 loop-free tiles of a head at 16k tokens so.)"""
    streams: list[list[Load | Store]] = []
    for program in programs:
        stream: list[Load | Store] = []
        for op in program:
            kind = type(op)
            if kind is Repeat:
                return None
            if kind is Load or kind is Store:
                stream.append(op)  # type: ignore[arg-type]
        streams.append(stream)
    return _in_turn(streams)


def _in_turn(streams: Sequence[Sequence[Load | Store]]) -> Sequence[Load | Store]:
    """The roles' memory ops `streams`, one from each role in turn."""
    if len(streams) == 1:
        return streams[0]
    return [op for group in zip_longest(*streams) for op in group if op is not None]


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
            marked[role][position] = op.with_tile(Retouch(op.tile))
        touched.add(key)
    return tuple(tuple(program) for program in marked)


def fold_tile(
    kernel: Kernel,
    tile: Hashable,
    spec: FoldSpec,
    bodiless: tuple[int, ...] = (),
    programs: Sequence[Sequence[Op]] | None = None,
    memo: FoldMemo | None = None,
) -> FoldedTile:
    """The tile's programs folded by `spec`. The top-level loops of the roles in `bodiless` keep their counts and
    gaps, but their kept iterations are not built: for the L2 replay, where a tile folds like another whose
    iterations of those roles hold no memory op and no loop (`simgpu.fast_bytes`). `programs`: the tile's role
    programs where already built (`Outline.programs`); built here otherwise. `memo`: the weighted loop bodies of folds
    made before (`FoldMemo`; by default, this fold's own where it samples loops)."""
    if memo is None and (spec.sampled or spec.sampled_top):
        # Only a sampling fold weights bodies: the plan folds every shape of standard attention's 16k tokens (32,768)
        # without one.
        memo = FoldMemo()
    if programs is None:
        programs = [role.program(tile) for role in kernel.roles]
    top = [op.count for program in programs for op in program if isinstance(op, Repeat)]
    counts = NESTED + len(NESTED_SIDES)
    if not top:  # nothing to fold (standard attention's GEMM and softmax tiles: thousands of shapes)
        gapless = ((),) * len(programs)
        none = (False,) * len(NESTED_SIDES)
        return FoldedTile(
            tuple(map(tuple, programs)),
            (0,) * counts,
            (0,) * counts,
            gapless,
            (0, 0),
            spec,
            (kernel, tile),
            none,
            memo=memo,
        )
    # One removal for every role of the tile, from its shortest loop (see the module docstring).
    first, second = spec.kept(min(top))
    removed = second - first
    # Nested loops fold only in a kernel of one role: no other role's loop must stay in step with them.
    nested_spec = spec if spec.nested and len(programs) == 1 else None
    executed = [0] * counts
    full = [0] * counts
    nested_removed = [False] * len(NESTED_SIDES)
    flat = []
    gaps = []
    for role, program in enumerate(programs):
        out: list[Op] = []
        role_gaps = []
        for op in program:
            if not isinstance(op, Repeat):
                out.append(op)
                continue
            sample = spec.sampled_top > 0 and removed > 0 and not _has_loop(op.body(first))
            executed[TOP] += op.count - (0 if sample else removed)
            full[TOP] += op.count
            if role in bodiless:
                if not sample:
                    role_gaps.append((len(out), op))
                continue
            looped = False
            references = _references(op, nested_spec)
            sampling = _sampling(op, spec) if nested_spec is None else None
            for i in (*range(first), -1, *range(first + removed, op.count)):
                if i < 0:
                    if sample:
                        _sampled_middle(op, first, removed, spec, out, memo)
                    else:
                        role_gaps.append((len(out), op))
                    continue
                (ran, held), loops = _expand_folded(op.body(i), out, nested_spec, references, sampling, memo)
                looped = looped or loops
                for kind in range(len(NESTED_SIDES)):
                    executed[NESTED + kind] += ran[kind]
                    full[NESTED + kind] += held[kind]
                    nested_removed[kind] = nested_removed[kind] or ran[kind] < held[kind]
            # Removed iterations are only built when the kept ones have nested loops to count, and then only where
            # the loop cannot tell what they hold (`Repeat.held`).
            for i in range(first, first + removed) if looped else ():
                full[NESTED] += _count(op.body(i)) if op.held is None else op.held(i)
        flat.append(tuple(out))
        gaps.append(tuple(role_gaps))
    return FoldedTile(
        tuple(flat),
        tuple(executed),
        tuple(full),
        tuple(gaps),
        (first, removed),
        spec,
        (kernel, tile),
        tuple(nested_removed),
        bodiless,
        memo,
    )


@dataclass(frozen=True)
class Outline:
    """A tile's programs at their top level, loops unexpanded: `key` is equal for tiles that fold alike (their
    top-level ops up to memory keys; per loop, its trip count, or when the loops are folded, its count beyond the
    shortest and what the removal leaves over); `executed` and `full` the top-level iterations, folded and not.
    `programs`: the role programs read, for a fold of the tile to reuse (`fold_tile`): building them is most of an
    outline's cost, and the L2 replay folds the shapes it replays that the plan only outlined (a long sequence's)."""

    key: Hashable
    executed: int
    full: int
    programs: tuple[Sequence[Op], ...] = field(compare=False, repr=False)


def outline(kernel: Kernel, tile: Hashable, spec: FoldSpec) -> Outline:
    """The tile's `Outline`: its role programs built, no loop body. Tiles with equal keys fold to programs equal up
    to memory keys when loop bodies differ between tiles only in memory keys and in where they lie from either end
    of their loop (the causal diagonal lies at a loop's end): `simgpu.fast_plan` checks a group's first and last
    tile, and nested loops, whose counts an outline does not see, are folded whole."""
    programs = tuple([role.program(tile) for role in kernel.roles])
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
    return Outline(key, sum(top) - removed * len(top), sum(top), programs)


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


def _expand_folded(
    ops: Sequence[Op],
    out: list[Op],
    spec: FoldSpec | None,
    references: tuple[Hashable, ...] | None,
    sampling: _Sampling | None,
    memo: FoldMemo | None,
) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], bool]:
    """Append `ops` (an iteration of a top-level loop) to `out` with their loops expanded, those like the middle, the
    first or the last iteration's nested loop (`references`, see `_references`; None: none) folded by `spec`.
    Returns the nested iterations appended and those the ops hold, each per nested kind (a nested loop unlike every
    reference counts as like the middle, whole), and whether they hold a loop. Loops not folded are built whole,
    or sampled by `sampling` (`_expand_sampled`), their sampled iterations counted as the iterations they stand
    for (their weighted bodies made once in `memo`, where given)."""
    if spec is None or references is None:
        if sampling is not None:
            iterations, looped = _expand_sampled(ops, out, sampling, memo)
        else:
            iterations, looped = _expand(ops, out)
        return ((iterations, 0, 0), (iterations, 0, 0)), looped
    ran, held = [0, 0, 0], [0, 0, 0]
    looped = False
    for loop in _loops(ops, out):
        looped = True
        kind, first, end = _nested_cut(loop, spec, references)
        ran[kind] += loop.count - (end - first)
        held[kind] += loop.count
        for i in (*range(first), *range(end, loop.count)):
            inside = _expand(loop.body(i), out)[0]
            ran[kind] += inside
            held[kind] += inside
        held[kind] += _count_between(loop, first, end)
    return (tuple(ran), tuple(held)), looped


def _sampled_middle(
    loop: Repeat, first: int, removed: int, spec: FoldSpec, out: list[Op], memo: FoldMemo | None
) -> None:
    """Append iterations `[first, first + removed)` of `loop` (a whole number of periods; its iterations hold no
    loop) as at most `spec.sampled_top` runs of nearly equal numbers of periods, of which each builds its first
    period, its memory ops carrying the bytes of the run (`_expand_weighted`): the L2 replay sees the whole loop's
    working set in bytes, at that grain, where a fold would shrink it to the kept iterations' (FlashAttention's
    backward: a key block's sweep of every query block's Q, dO and dQ, which overflows L2 at long sequences). The
    replay samples only loops whose tiles all run the same iterations (`simgpu.fast_plan`): a causal loop starts
    elsewhere in each tile, and its runs would stand for other keys in each."""
    period = spec.period
    periods = removed // period
    runs = min(spec.sampled_top, periods)
    start = first
    for run in range(runs):
        weight = periods // runs + (run < periods % runs)
        for j in range(start, start + period):
            _expand_weighted(loop.body(j), out, weight, memo)
        start += weight * period


@dataclass(frozen=True)
class _Sampling:
    """How the nested loops of a top-level loop are sampled (`FoldSpec.sampled`): iterations `[first, end)` in runs
    of `group`, one period of each built (`_expand_sampled`)."""

    group: int
    first: int
    end: int
    period: int


def _sampling(loop: Repeat, spec: FoldSpec) -> _Sampling | None:
    """The sampling of `loop`'s nested loops by `spec` (None: built whole). Only where the nested loops of its
    middle, first and last iteration have one trip count (not v1's causal query loops, which start at the
    diagonal): the runs then lie at the same iterations in every top-level iteration, within the uniform middle of
    each of those three loops (`_nested_cut`), so a run's accesses go to the same keys in every top-level iteration,
    as the whole loop's do. The runs are long enough that the longest middle builds at most `spec.sampled` periods.
    Sampling a loop whose start moves (a causal one) would put a key in a run in one top-level iteration and in
    the built iterations of another: more distinct keys than the whole loop has (a first try read far more from HBM
    than exact mode for v1's causal forward on cut chips)."""
    if not spec.sampled or spec.nested or loop.count < 1:
        return None
    nested = [
        next((op for op in loop.body(i) if type(op) is Repeat), None) for i in (loop.count // 2, 0, loop.count - 1)
    ]
    counts = {inner.count if inner is not None else -1 for inner in nested}
    if len(counts) != 1 or min(counts) < 1:
        return None
    bounds = [
        _nested_cut(inner, spec, (_period_shape(inner, _middle(inner.count, spec.period), spec.period),))[1:]
        for inner in nested
        if inner is not None
    ]
    first, end = max(bound[0] for bound in bounds), min(bound[1] for bound in bounds)
    group = -(-(end - first) // (spec.period * spec.sampled)) * spec.period
    return _Sampling(group, first, end, spec.period) if group > spec.period else None


def _expand_sampled(ops: Sequence[Op], out: list[Op], sampling: _Sampling, memo: FoldMemo | None) -> tuple[int, bool]:
    """As `_expand`, but iterations `[first, end)` of each loop run in runs of `sampling.group` iterations (those
    of a last, shorter run are built), of which one period is built, standing for the whole run: its memory ops
    carry the run's bytes (`_expand_weighted`). The runs lie in the loop's uniform middle, whose periods are alike
    (the schedules' assumption that this module relies on), so the bytes add up to the whole loop's; a run's
    accesses go to the keys of its built period, so an L2 replay sees the whole loop's working set in bytes, at
    that granularity."""
    period, group = sampling.period, sampling.group
    iterations = 0
    looped = False
    for loop in _loops(ops, out):
        looped = True
        iterations += loop.count
        i = 0
        while i < loop.count:
            # A whole run inside the sampled iterations (and inside this loop, should it be shorter than those the
            # sampling was set from) is built once; the other iterations are built each.
            if sampling.first <= i and i + group <= min(sampling.end, loop.count) and (i - sampling.first) % group == 0:
                weight = group // period
                for j in range(i, i + period):
                    iterations += weight * _expand_weighted(loop.body(j), out, weight, memo)
                i += group
            else:
                iterations += _expand(loop.body(i), out)[0]
                i += 1
    return iterations, looped


def _loops(ops: Sequence[Op], out: list[Op]) -> Iterator[Repeat]:
    """The loops among `ops`, in order; the other ops are appended to `out` as they pass."""
    for op in ops:
        if type(op) is Repeat:
            yield op
        else:
            out.append(op)


def _expand_weighted(ops: Sequence[Op], out: list[Op], weight: int, memo: FoldMemo | None) -> int:
    """As `_expand`, with every memory op's bytes `weight` times its own; returns the loop iterations `ops` hold. A
    body without a loop is weighted once per memo (`FoldMemo.weighted`), where one is given."""
    made = None if memo is None else memo.weighted(ops, weight)
    if made is not None:
        out.extend(made)
        return 0
    iterations = 0
    for op in ops:
        if type(op) is Repeat:
            iterations += op.count
            for i in range(op.count):
                iterations += _expand_weighted(op.body(i), out, weight, memo)
        else:
            out.append(_scaled(op, weight))
    return iterations


def _scaled(op: Op, weight: int) -> Op:
    """A memory op with its bytes `weight` times its own; any other op as it is."""
    if type(op) in _MEMORY_OPS:
        memory: Load | Store = op  # type: ignore[assignment]
        return memory.with_nbytes(memory.nbytes * weight)
    return op


def _references(loop: Repeat, spec: FoldSpec | None) -> tuple[Hashable, ...] | None:
    """The ops of a period in the middle of the first nested loop of the middle, the first and the last iteration
    of `loop` (memory keys left out; None where there is none long enough to fold): a nested loop folds only where
    its middle looks like one of them, and apart by which, so that a removed nested iteration costs what one of
    the removed top-level iterations does, or what one of the first or last iteration's does (v1's first and last
    key blocks run other query steps than the blocks between). None: nothing to fold."""
    if spec is None or loop.count < 1:
        return None
    shapes: list[Hashable] = []
    for i in (loop.count // 2, 0, loop.count - 1):
        nested = next((op for op in loop.body(i) if type(op) is Repeat), None)
        if nested is None or nested.count < 2 * spec.keep + spec.period:
            shapes.append(None)
            continue
        shapes.append(_period_shape(nested, _middle(nested.count, spec.period), spec.period))
    return tuple(shapes) if any(shape is not None for shape in shapes) else None


def _middle(count: int, period: int) -> int:
    return (count // 2) // period * period


def _nested_cut(loop: Repeat, spec: FoldSpec, references: tuple[Hashable, ...]) -> tuple[int, int, int]:
    """Which reference the nested loop's middle is like (its nested kind, the first alike) and the iterations
    `[first, end)` it loses: its middle in whole periods, `spec.keep` (and `spec.extra` periods of its kind more at
    the head) kept at each end and, beyond those, the periods at either end unlike its middle (a causal mask on the
    diagonal at the start of v1's query loop), which the schedules put there. None lost when its middle is like no
    reference."""
    count, period = loop.count, spec.period
    spare = (count - 2 * spec.keep) // period
    if spare < 1:
        return 0, count, count
    middle = _period_shape(loop, _middle(count, period), period)
    if middle not in references:
        return 0, count, count
    kind = references.index(middle)
    first, end = spec.keep, spec.keep + spare * period
    while first < end and _period_shape(loop, first, period) != middle:
        first += period
    while end > first and _period_shape(loop, end - period, period) != middle:
        end -= period
    if first >= end:
        return 0, count, count
    # A fit variant's extra periods may take all the removal: the loop, whole, still counts as its kind (counted
    # as the middle's, a variant's iterations would move between kinds, and the fit would price them as such).
    first = min(first + spec.extra[kind] * period, end)
    return kind, first, end


def _period_shape(loop: Repeat, start: int, period: int) -> Hashable:
    """The ops of `period` iterations of `loop` from `start`, memory keys left out (as `FoldedTile.signature`)."""
    return tuple(_shape(op) for i in range(start, start + period) for op in loop.body(i))


def _count(ops: Sequence[Op]) -> int:
    """The loop iterations `ops` hold, counted without building their innermost bodies: a loop whose first and last
    bodies hold no loop is taken to hold none (assumed, as the module docstring says, of every schedule)."""
    iterations = 0
    for op in ops:
        if type(op) is Repeat:
            loop: Repeat = op
            iterations += loop.count
            if loop.count and (_has_loop(loop.body(0)) or _has_loop(loop.body(loop.count - 1))):
                iterations += sum(_count(loop.body(i)) for i in range(loop.count))
    return iterations


def _count_between(loop: Repeat, first: int, end: int) -> int:
    """The loop iterations that iterations `[first, end)` of `loop` hold, as `_count` counts them: none, without
    building those bodies (a folded nested loop's removed steps are most of a long sequence's), when its first and
    last bodies hold no loop."""
    if first >= end or not (_has_loop(loop.body(0)) or _has_loop(loop.body(loop.count - 1))):
        return 0
    return sum(_count(loop.body(i)) for i in range(first, end))


def _has_loop(ops: Sequence[Op]) -> bool:
    return any(type(op) is Repeat for op in ops)


def _shape(op: Op) -> Hashable:
    kind = type(op)
    if kind is Load:
        load: Load = op  # type: ignore[assignment]
        return ("load", load.tensor, load.nbytes, load.engine, load.arrive, load.acquire, load.address_instructions)
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
            store.fragment_lane_bytes,
            store.fragment_rows,
        )
    getter = _FIELDS.get(kind)
    return op if getter is None else (kind, getter(op))

"""Fast mode's plan of a kernel: which tiles share a shape, each shape folded once (`simgpu.fold`), and the fit
that adds a folded loop's removed iterations back.

Tiles whose index differs only in the kernel's `head_axes` (batch and head) have one shape; a tile of each shape is
folded at the base fold, and folded tiles whose programs are equal up to memory keys (their signatures) are of one
kind: tiles of one kind and as many removed iterations cost alike. A kernel whose tiles its schedule declares alike
but at the grid's edges (`Kernel.alike_but_edges`) has the first shape of each form folded only; the others are
like it. Nothing is timed here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from simgpu.arch import Arch
from simgpu.engine import ctas_per_sm
from simgpu.errors import ScheduleError
from simgpu.fast_whole import ORDERED_WHOLE_OPS, cheap_to_run_whole, ordered, unit_ops
from simgpu.fold import NESTED, NESTED_SIDES, FoldedTile, FoldMemo, FoldSpec, fold_tile, kernel_period, outline
from simgpu.kernel import Kernel, TileGrid
from simgpu.ops import Load, Op, Repeat, Store
from simgpu.replay import REREAD

KEEP_ITERATIONS = 4  # iterations kept at each end of a folded loop: enough for every schedule's pipeline to fill
REPLAY_NESTED_PERIODS = 64  # periods of a nested loop's uniform middle the L2 replay builds at most (`replay_spec`)
REPLAY_TOP_PERIODS = 4  # periods of a top-level loop's removed middle the L2 replay builds at most (`replay_spec`)
OUTLINED_SHAPES = 64  # shapes a kernel folds one by one at most; more are grouped by outline first
UNFOLDED = 1 << 40  # iterations kept at each end of a loop that is not folded (`KernelPlan.replay_spec`)
# Memory accesses of one head's tiles up to which a kernel of unequal tiles is replayed unfolded (`replay_spec`).
UNFOLDED_REPLAY_ACCESSES = 10_000


@dataclass(frozen=True)
class KernelPlan:
    """A kernel as fast mode sees it: CTAs per SM, the fold, and per shape its kind and removed iterations."""

    kernel: Kernel
    fit: int
    spec: FoldSpec
    sides: tuple[str, ...]  # the fit variants: one period more next to the head, the tail or in nested loops
    nested: bool  # whether nested loops were folded (then the L2 replay folds its tiles without: `replay_spec`)
    replay_sides: tuple[str, ...]  # the fit variants of the replay's folds
    sampled_top: bool  # whether the replay samples the top-level loops' middles rather than fold them (`replay_spec`)
    sources: tuple[Hashable, ...]  # one tile per shape key, in launch order of first appearance
    kinds: tuple[int, ...]  # per shape, the number of its signature (shapes of one kind cost alike)
    removed: tuple[tuple[int, ...], ...]  # per shape, the iterations its fold removes (`FoldedTile.removed`)
    # The shapes folded, by position: all, or a few of each outline (see below), or the first of each form. (The
    # mappings are typed as dicts: compiled, the L2 replay looks a shape up in them per tile, and a `Mapping`'s `get`
    # is a method call by name.)
    folded: dict[int, FoldedTile]
    # The shapes not folded, by position: the folded shape of their outline's group that they fold like.
    like: dict[int, int]
    # Per shape not folded, by position, its role programs as its outline built them (the replay folds it).
    programs: dict[int, tuple[Sequence[Op], ...]]
    index: np.ndarray  # per tile in launch order: the position of its shape
    # Whether it runs whole (`simgpu.fast_whole`): tiles of unequal cost, or CTAs ordered by semaphores; few ops.
    whole: bool
    # Whether the L2 replay walks its tiles unfolded (`replay_spec`): tiles of unequal cost, few memory accesses.
    replay_unfolded: bool = False

    @property
    def replay_spec(self) -> FoldSpec:
        """The fold of the L2 replay's tiles: nested loops not folded. A folded nested loop touches fewer distinct
        keys than the whole one, so the replay would see its working set fit in L2 where the whole run's does not.
        Where the plan folded them, their uniform middles are sampled (`FoldSpec.sampled`): at most
        `REPLAY_NESTED_PERIODS` periods built, each access carrying the bytes of the periods it stands for, so that
        the working set keeps its bytes (v1's query steps: 8,192 per key block at 128k tokens). Where every tile runs
        the same top-level iterations and they hold no loop (`sampled_top`), their middles are sampled likewise, at
        most `REPLAY_TOP_PERIODS` periods built (FlashAttention's backward: a key block sweeps every query block's Q,
        dO and dQ, and folded, the sweep fit in an L2 that the whole one overflows: on an H100 cut to 8 SMs and
        2 MB of L2, v2's backward at 8k tokens read 42 MB from HBM against exact mode's 160 MB); nothing is removed
        then, and the replay needs no fit. A kernel of unequal tiles whose tiles of one head hold at most
        `UNFOLDED_REPLAY_ACCESSES` memory accesses (or that runs whole) is replayed unfolded: a fit charges each
        tile's removed iterations what the fit variant's first touch of their keys cost, where tiles of unequal
        loops share those keys (v2's causal forward with more keys than queries, 3 heads on an H100 cut to 4 SMs:
        HBM reads 19% over exact mode's, which are the compulsory bytes)."""
        if self.replay_unfolded:
            return replace(self.spec, keep=UNFOLDED, nested=False)
        return replace(
            self.spec,
            nested=False,
            sampled=REPLAY_NESTED_PERIODS if self.nested else 0,
            sampled_top=REPLAY_TOP_PERIODS if self.sampled_top else 0,
        )

    @cached_property
    def rereads(self) -> bool:
        """Whether a tile loads a key it accessed before (`simgpu.replay.KernelAccesses.rereads`), from the folded
        shapes' records: found once per plan, as the replay asks for each of its walks and a long head's QK^T has
        thousands of shapes (16k tokens: 16,384, some 20 ms a scan)."""
        return any(record[0] == REREAD for shape in self.folded.values() for record in shape.records)

    @cached_property
    def uniform(self) -> bool:
        """Whether the kernel's tiles fold alike: one kind, as many iterations removed. Found once per plan, by
        counting (in C) rather than by a set of (kind, removed) pairs: standard attention's backward at 16k tokens
        hashed its kernels' 20,864 shapes' pairs at the L2 replay's prefix checks, 2% of a prediction
        (`docs/results/copies_63/callgrind_excerpts.txt`, `counts.txt`)."""
        kinds, removed = self.kinds, self.removed
        return bool(kinds) and kinds.count(kinds[0]) == len(kinds) and removed.count(removed[0]) == len(removed)

    @cached_property
    def fold_memo(self) -> FoldMemo:
        """The weighted loop bodies of the L2 replay's folds of this kernel (`simgpu.fold.FoldMemo`), shared by them
        in this prediction: FlashAttention's backward at long sequences samples the same Q block visits in each of
        the hundreds of key blocks the replay folds."""
        return FoldMemo()

    @property
    def looped(self) -> bool:
        """Whether the kernel's tiles have top-level loops long enough to fold."""
        return bool(self.replay_sides) or self.sampled_top

    @property
    def several_kinds(self) -> bool:
        """Whether the kernel's shapes fold to more than one kind."""
        return len(self._kinds_held) > 1

    @cached_property
    def _positions(self) -> dict[Hashable, int]:
        """The position of each shape, by its tiles' index past the `head_axes`."""
        axes = self.kernel.head_axes
        return {tuple(source[axes:]): n for n, source in enumerate(self.sources)}  # type: ignore[index]

    def kind_of(self, tile: Hashable) -> int:
        """The kind of `tile`'s shape (a kernel with `head_axes`, as `kind_waves` asks)."""
        return self.kinds[self._positions[tuple(tile[self.kernel.head_axes :])]]  # type: ignore[index]

    @cached_property
    def _kinds_held(self) -> frozenset[int]:
        return frozenset(self.kinds)

    @cached_property
    def _kind_waves(self) -> dict[int, tuple[tuple[int, int], ...] | None]:
        return {}

    def kind_waves(self, slots: int) -> tuple[tuple[int, int], ...] | None:
        """Per kind, the first and the last wave in which the chip's `slots` run its tiles of a head, counted from
        the head's first wave (tile order cut in runs of `slots`; each the median over the heads that hold the kind):
        (0, 0) for every query block of a causal grid, whose blocks of a head follow one another; (0, 0), (1, 1),
        (2, 2)... for FA3's LPT order, a group of heads' longest blocks first and the shorter ones a wave or more
        later (`simgpu.replay.KernelAccesses.kind_waves`). None where every two kinds share a wave, or the kernel does
        not declare its `memory_axes`: which tile of a head meets a key first then does not tell which kind misses."""
        if slots in self._kind_waves:
            return self._kind_waves[slots]
        waves = self._head_waves(slots)
        held = [bounds for kind, bounds in enumerate(waves or ()) if kind in self._kinds_held]
        apart = bool(held) and max(first for first, _ in held) > min(last for _, last in held)
        known = waves if apart else None
        self._kind_waves[slots] = known
        return known

    def _head_waves(self, slots: int) -> tuple[tuple[int, int], ...] | None:
        """Per kind (by number), the median over the heads of the waves of its first and last tile of a head, after
        the head's first wave; (0, 0) for a number no shape has. A head here is a batch entry's head, the tiles that
        share memory (`Kernel.memory_axes`)."""
        tiles, axes = self.kernel.tiles, self.kernel.memory_axes
        if not axes or not self.kernel.head_axes:
            return None
        kind_count = max(self.kinds) + 1
        if isinstance(tiles, TileGrid):
            # A head's tiles follow one another, their kinds in one pattern, the first head's.
            per_head = math.prod(tiles.shape[axes:])
            pattern = np.asarray(self.kinds)[self.index[:per_head]]
            starts = np.arange(len(tiles) // per_head) * per_head
            ends = []
            for pick, absent in ((np.minimum, per_head), (np.maximum, -1)):
                at = np.full(kind_count, absent)
                pick.at(at, pattern, np.arange(per_head))
                waves = ((starts[:, None] + at[None, :]) // slots - (starts // slots)[:, None]).astype(np.float64)
                waves[:, at == absent] = np.nan
                ends.append(waves)
        else:
            numbers: dict[tuple[object, ...], int] = {}
            heads = np.fromiter(
                (numbers.setdefault(tuple(tile[:axes]), len(numbers)) for tile in tiles),  # type: ignore[index]
                dtype=np.int64,
                count=len(tiles),
            )
            # Waves rise with the position: a head's (a head's kind's) first tile is at its first wave, its last at
            # its last.
            wave = np.arange(len(tiles)) // slots
            start = np.zeros(len(numbers), dtype=np.int64)
            found, firsts = np.unique(heads, return_index=True)
            start[found] = wave[firsts]
            cells = heads * kind_count + np.asarray(self.kinds)[self.index]
            ends = []
            for reverse in (False, True):
                at = np.full(len(numbers) * kind_count, np.nan)
                found, firsts = np.unique(cells[::-1] if reverse else cells, return_index=True)
                positions = len(tiles) - 1 - firsts if reverse else firsts
                at[found] = wave[positions] - start[found // kind_count]
                ends.append(at.reshape(len(numbers), kind_count))
        bounds = []
        for waves in ends:
            held = ~np.isnan(waves).all(axis=0)
            median = np.zeros(kind_count)
            median[held] = np.nanmedian(waves[:, held], axis=0)
            bounds.append(np.floor(median).astype(np.int64))
        return tuple((int(a), int(b)) for a, b in zip(bounds[0], bounds[1], strict=True))

    def representative(self, kind: int) -> FoldedTile:
        """The folded shape of `kind` with the most iterations removed (the first such)."""
        best = max((n for n in self.folded if self.kinds[n] == kind), key=lambda n: (sum(self.removed[n]), -n))
        return self.folded[best]


def plan_kernel(arch: Arch, kernel: Kernel) -> KernelPlan:
    """Fold a tile of each of the kernel's shapes and number their signatures; past `OUTLINED_SHAPES` shapes of
    programs with loops, group them by outline (`simgpu.fold.outline`) and fold a group's first and last shape (and
    its most removed one), the whole group where those two disagree with their outlines or hold nested loops. A
    kernel whose tiles cost unequally (several kinds, or one kind losing unequal iterations) runs whole where
    that is cheap (`simgpu.fast_whole`), and so does one whose CTAs order each other through semaphores, up to
    `ORDERED_WHOLE_OPS`. A kernel of tiles alike but at the grid's edges (`Kernel.alike_but_edges`) folds the first
    shape of each form only (`_fold_forms`)."""
    fit = ctas_per_sm(arch, kernel)
    spec = FoldSpec(KEEP_ITERATIONS, kernel_period(kernel))
    index, sources = _shapes(kernel)
    folded: dict[int, FoldedTile] = {}
    counts = NESTED + len(NESTED_SIDES)
    removed: list[tuple[int, ...]] = [(0,) * counts] * len(sources)
    groups: list[list[int]] = []  # the outlined shapes by outline
    outlines = []
    # Programs without loops fold as cheaply as they outline: only looped ones are grouped.
    looped = any(type(op) is Repeat for role in kernel.roles for op in role.program(sources[0]))
    forms = _Forms.of(kernel.tiles, kernel.head_axes) if kernel.alike_but_edges else None
    if len(sources) > OUTLINED_SHAPES and looped and forms is None:
        outlines = [outline(kernel, tile, spec) for tile in sources]
        by_key: dict[Hashable, list[int]] = {}
        for n, tile_outline in enumerate(outlines):
            by_key.setdefault(tile_outline.key, []).append(n)
        groups = list(by_key.values())
    numbers: dict[Hashable, int] = {}  # hashing a signature walks every op: once per folded shape
    kinds = [0] * len(sources)
    like: dict[int, int] = {}
    if forms is not None:
        kinds, removed, like = _fold_forms(kernel, sources, spec, forms, folded, numbers)
    elif not outlines:
        # Every shape is a group of its own: each folded and numbered in one pass (standard attention's 16,384 score
        # tiles at 16k tokens: the groups' bookkeeping below cost a tenth of their plan).
        for n, source in enumerate(sources):
            made = folded[n] = fold_tile(kernel, source, spec)
            removed[n] = made.removed
            kinds[n] = numbers.setdefault(made.signature(), len(numbers))

    def fold(n: int) -> FoldedTile:
        """Outlined shape n folded, from the programs its outline built."""
        return fold_tile(kernel, sources[n], spec, programs=outlines[n].programs)

    for group in groups:
        ends = sorted({group[0], group[-1]})
        for n in ends:
            folded[n] = fold(n)
        alike = len(group) == 1 or (
            len({folded[n].signature() for n in ends}) == 1
            and all(not sum(folded[n].full[NESTED:]) and folded[n].executed[0] == outlines[n].executed for n in ends)
        )
        if not alike:
            for n in group:
                if n not in folded:
                    folded[n] = fold(n)
        group_kind = numbers.setdefault(folded[group[0]].signature(), len(numbers))
        for n in group:
            shape = folded.get(n)
            if shape is None:
                removed[n] = (outlines[n].full - outlines[n].executed, *(0,) * (counts - 1))
                kinds[n] = group_kind
                like[n] = group[0]
            else:
                removed[n] = shape.removed
                kinds[n] = group_kind if n == group[0] else numbers.setdefault(shape.signature(), len(numbers))
    # Class costs simulate each kind's shape with the most iterations removed: fold it too. (Shapes not folded are
    # those like another: where none is, every one is folded; a form's shapes remove alike, and its first is folded.)
    most: dict[int, int] = {}
    if like and forms is None:
        for n, kind in enumerate(kinds):
            if kind not in most or sum(removed[n]) > sum(removed[most[kind]]):
                most[kind] = n
    for n in most.values():
        if n not in folded:
            folded[n] = fold(n)
        like.pop(n, None)
    top_removed = any(shape[0] for shape in removed)
    has_nested = any(sum(shape.full[NESTED:]) for shape in folded.values())
    # Tiles of one kind and removal run the same top-level iterations: the replay samples their loops where those
    # hold no loop (`replay_spec`); otherwise it folds them and fits the removed iterations.
    cost_classes = len(set(zip(kinds, removed, strict=True)))  # (kind, removal) pairs: more than one, unequal tiles
    sampled_top = top_removed and not has_nested and cost_classes == 1
    replay_sides: tuple[str, ...] = ()
    if top_removed and not sampled_top:
        replay_sides = ("head", "tail") if has_nested else ("head",)
    kinds_folded = [any(shape.nested_removed[k] for shape in folded.values()) for k in range(len(NESTED_SIDES))]
    nested = any(kinds_folded)
    sides = ("head",) if sampled_top else replay_sides
    if nested:  # one more period in the folded nested loops of each kind tells their iterations' cost apart
        sides = ("head",) * top_removed + ("tail",) * (top_removed and not kinds_folded[0])
        sides += tuple(side for side, folds in zip(NESTED_SIDES, kinds_folded, strict=True) if folds)
    unequal = cost_classes > 1
    whole = unequal and cheap_to_run_whole(kernel, sources, index)
    if not whole and any(ordered(kernel, source) for source in (sources[0], sources[-1])):
        whole = cheap_to_run_whole(kernel, sources, index, ORDERED_WHOLE_OPS)
    # Where the shapes have forms, a tile of each form is counted for every shape of its form.
    counted = (sources, None) if forms is None else ([sources[n] for n in forms.firsts], forms.shapes)
    replay_unfolded = unequal and (whole or _memory_accesses(kernel, *counted) <= UNFOLDED_REPLAY_ACCESSES)
    if replay_unfolded:  # the replay walks its loops whole (`replay_spec`) and fits no removed iteration
        replay_sides = ()
    return KernelPlan(
        kernel,
        fit,
        spec,
        sides,
        nested,
        replay_sides,
        sampled_top,
        tuple(sources),
        tuple(kinds),
        tuple(removed),
        folded,
        like,
        {n: outlines[n].programs for n in like} if outlines else {},
        index,
        whole,
        replay_unfolded,
    )


@dataclass(frozen=True)
class _Forms:
    """The forms of a kernel's shapes (`Kernel.alike_but_edges`): a bit per grid axis past the head axes, set where
    the shape's index is that axis's last. Per form, in order of first appearance, its first shape (by position) and
    how many shapes are of it; per shape, the number of its form."""

    firsts: list[int]
    shapes: list[int]
    of_shape: list[int]

    @staticmethod
    def of(tiles: Sequence[Hashable], axes: int) -> _Forms | None:
        """The forms of a grid's shapes (its first head's tiles); None where the tiles are not a `TileGrid`."""
        if not isinstance(tiles, TileGrid):
            return None
        extents = tiles.shape[axes:]
        bits = np.zeros(extents, dtype=np.int64)
        for axis, extent in enumerate(extents):
            edge = np.zeros(extent, dtype=np.int64)
            edge[-1] = 1 << axis
            bits += edge.reshape([extent if other == axis else 1 for other in range(len(extents))])
        _, firsts, inverse, counts = np.unique(bits.ravel(), return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(firsts)  # the forms in order of first appearance
        number = np.empty_like(order)
        number[order] = np.arange(len(order))
        return _Forms(firsts[order].tolist(), counts[order].tolist(), number[inverse].tolist())


def _fold_forms(
    kernel: Kernel,
    sources: Sequence[Hashable],
    spec: FoldSpec,
    forms: _Forms,
    folded: dict[int, FoldedTile],
    numbers: dict[Hashable, int],
) -> tuple[list[int], list[tuple[int, ...]], dict[int, int]]:
    """The kinds and removed iterations of a kernel whose tiles are alike but at their grids' edges
    (`Kernel.alike_but_edges`), from the first shape of each form folded (into `folded`) and signed (numbered in
    `numbers` in the order of the shapes, as signing every shape would): every other shape is like its form's first.
    The schedule's word is checked where it is cheap to: each form's last shape is folded too and must sign and remove
    as its first (a `ScheduleError` where not: a mask or an order that depends on the tile's index). Returns the
    kinds, the removed iterations and the shapes like another (`KernelPlan.like`)."""
    lasts = [0] * len(forms.firsts)
    for n, form in enumerate(forms.of_shape):
        lasts[form] = n
    form_kinds, form_removed = [], []
    for first, last in zip(forms.firsts, lasts, strict=True):
        made = folded[first] = fold_tile(kernel, sources[first], spec)
        if last != first:
            other = fold_tile(kernel, sources[last], spec)
            if (other.signature(), other.removed) != (made.signature(), made.removed):
                raise ScheduleError(
                    f"kernel {kernel.name} declares its tiles alike but at the grid's edges (alike_but_edges), but "
                    f"tiles {sources[first]!r} and {sources[last]!r} run different programs"
                )
        form_removed.append(made.removed)
        form_kinds.append(numbers.setdefault(made.signature(), len(numbers)))
    firsts = forms.firsts
    like = {n: firsts[form] for n, form in enumerate(forms.of_shape) if firsts[form] != n}
    return [form_kinds[form] for form in forms.of_shape], [form_removed[form] for form in forms.of_shape], like


def _memory_accesses(kernel: Kernel, sources: Sequence[Hashable], shapes: Sequence[int] | None = None) -> float:
    """The memory accesses of one tile of each shape (`sources`: one head's tiles, where the kernel has heads; or with
    `shapes`, the first of each form and how many shapes it stands for: `Kernel.alike_but_edges`), each loop counted
    as its trip count times its first iteration's (`unit_ops`), counted past `UNFOLDED_REPLAY_ACCESSES` no further
    than needed to tell."""
    total = 0.0
    for number, source in enumerate(sources):
        alike = 1 if shapes is None else shapes[number]
        for role in kernel.roles:
            total += alike * unit_ops(role.program(source), (UNFOLDED_REPLAY_ACCESSES - total) / alike, (Load, Store))
            if total > UNFOLDED_REPLAY_ACCESSES:
                return total
    return total


def _shapes(kernel: Kernel) -> tuple[np.ndarray, list[Hashable]]:
    """Per tile in launch order, the position of its shape (its index without the `head_axes`), and one tile of
    each shape in order of first appearance. A dense grid's shapes are those of its first head."""
    tiles, axes = kernel.tiles, kernel.head_axes
    if isinstance(tiles, TileGrid) and axes:
        per_head = math.prod(tiles.shape[axes:])
        return np.arange(len(tiles)) % per_head, grid_prefix(tiles, per_head)
    positions: dict[Hashable, int] = {}
    sources: list[Hashable] = []
    index = np.empty(len(tiles), dtype=np.int64)
    for n, tile in enumerate(tiles):
        key = tuple(tile[axes:]) if axes else n  # type: ignore[index]
        position = positions.get(key)
        if position is None:
            position = positions[key] = len(sources)
            sources.append(tile)
        index[n] = position
    return index, sources


def grid_prefix(grid: TileGrid, count: int) -> list[Hashable]:
    """The first `count` tiles of a dense grid, as `grid[n]` gives them, built in one row-major sweep."""
    return list(itertools.islice(itertools.product(*(range(extent) for extent in grid.shape)), count))


def solve_removed(added: Sequence[Sequence[int]], deltas: Sequence[np.ndarray]) -> np.ndarray:
    """The cost of one top-level and of one nested iteration of each kind, from fit runs that added `added[v]`
    iterations of each and changed by `deltas[v]`. When the runs cannot tell them apart (every removed iteration
    holds the same nested count, or none), the least-norm fit still extrapolates exactly along that direction."""
    matrix, changes = np.array(added, dtype=float), np.array(deltas)
    result: np.ndarray = np.zeros((matrix.shape[1], *changes.shape[1:]))
    # Only the kinds of iterations that the runs added: a column of zeros would add rounding noise to the others.
    used = np.flatnonzero(matrix.any(axis=0))
    if used.size:
        result[used] = np.linalg.lstsq(matrix[:, used], changes, rcond=None)[0]
    return result

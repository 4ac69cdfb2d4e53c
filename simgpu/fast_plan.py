"""Fast mode's plan of a kernel: which tiles share a shape, each shape folded once (`simgpu.fold`), and the fit
that adds a folded loop's removed iterations back.

Tiles whose index differs only in the kernel's `head_axes` (batch and head) have one shape; a tile of each shape is
folded at the base fold, and folded tiles whose programs are equal up to memory keys (their signatures) are of one
kind: tiles of one kind and as many removed iterations cost alike. Nothing is timed here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from simgpu.arch import Arch
from simgpu.engine import ctas_per_sm
from simgpu.fold import FoldedTile, FoldSpec, fold_tile, kernel_period, outline
from simgpu.kernel import Kernel, TileGrid
from simgpu.ops import Repeat

KEEP_ITERATIONS = 4  # iterations kept at each end of a folded loop: enough for every schedule's pipeline to fill
OUTLINED_SHAPES = 64  # shapes a kernel folds one by one at most; more are grouped by outline first


@dataclass(frozen=True)
class KernelPlan:
    """A kernel as fast mode sees it: CTAs per SM, the fold, and per shape its kind and removed iterations."""

    kernel: Kernel
    fit: int
    spec: FoldSpec
    sides: tuple[str, ...]  # the fit variants: one period more next to the head (and the tail, for nested loops)
    sources: tuple[Hashable, ...]  # one tile per shape key, in launch order of first appearance
    kinds: tuple[int, ...]  # per shape, the number of its signature (shapes of one kind cost alike)
    removed: tuple[tuple[int, int], ...]  # per shape, the (top-level, nested) iterations its fold removes
    folded: Mapping[int, FoldedTile]  # the shapes folded, by position: all, or a few of each outline (see below)
    index: np.ndarray  # per tile in launch order: the position of its shape

    def representative(self, kind: int) -> FoldedTile:
        """The folded shape of `kind` with the most iterations removed (the first such)."""
        best = max((n for n in self.folded if self.kinds[n] == kind), key=lambda n: (sum(self.removed[n]), -n))
        return self.folded[best]


def plan_kernel(arch: Arch, kernel: Kernel) -> KernelPlan:
    """Fold a tile of each of the kernel's shapes and number their signatures; past `OUTLINED_SHAPES` shapes of
    programs with loops, group them by outline (`simgpu.fold.outline`) and fold a group's first and last shape (and
    its most removed one), the whole group where those two disagree with their outlines or hold nested loops."""
    fit = ctas_per_sm(arch, kernel)
    spec = FoldSpec(KEEP_ITERATIONS, kernel_period(kernel))
    index, sources = _shapes(kernel)
    folded: dict[int, FoldedTile] = {}
    removed: list[tuple[int, int]] = [(0, 0)] * len(sources)
    groups: list[list[int]] = [[n] for n in range(len(sources))]
    outlines = []
    # Programs without loops fold as cheaply as they outline: only looped ones are grouped.
    looped = any(type(op) is Repeat for role in kernel.roles for op in role.program(sources[0]))
    if len(sources) > OUTLINED_SHAPES and looped:
        outlines = [outline(kernel, tile, spec) for tile in sources]
        by_key: dict[Hashable, list[int]] = {}
        for n, tile_outline in enumerate(outlines):
            by_key.setdefault(tile_outline.key, []).append(n)
        groups = list(by_key.values())
    numbers: dict[Hashable, int] = {}  # hashing a signature walks every op: once per folded shape
    kinds = [0] * len(sources)
    for group in groups:
        ends = sorted({group[0], group[-1]})
        for n in ends:
            folded[n] = fold_tile(kernel, sources[n], spec)
        alike = len(group) == 1 or (
            len({folded[n].signature() for n in ends}) == 1
            and all(not folded[n].full[1] and folded[n].executed[0] == outlines[n].executed for n in ends)
        )
        if not alike:
            for n in group:
                folded.setdefault(n, fold_tile(kernel, sources[n], spec))
        group_kind = numbers.setdefault(folded[group[0]].signature(), len(numbers))
        for n in group:
            shape = folded.get(n)
            if shape is None:
                removed[n] = (outlines[n].full - outlines[n].executed, 0)
                kinds[n] = group_kind
            else:
                removed[n] = shape.removed
                kinds[n] = group_kind if n == group[0] else numbers.setdefault(shape.signature(), len(numbers))
    # Class costs simulate each kind's shape with the most iterations removed: fold it too.
    most: dict[int, int] = {}
    for n, kind in enumerate(kinds):
        if kind not in most or sum(removed[n]) > sum(removed[most[kind]]):
            most[kind] = n
    for n in most.values():
        folded.setdefault(n, fold_tile(kernel, sources[n], spec))
    sides: tuple[str, ...] = ()
    if any(top for top, _ in removed):
        sides = ("head", "tail") if any(shape.full[1] for shape in folded.values()) else ("head",)
    return KernelPlan(kernel, fit, spec, sides, tuple(sources), tuple(kinds), tuple(removed), folded, index)


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
    """The cost of one top-level and of one nested iteration, from fit runs that added `added[v]` iterations of
    each and changed by `deltas[v]`. When the runs cannot tell the two apart (every removed iteration holds the
    same nested count, or none), the least-norm fit still extrapolates exactly along that one direction."""
    solution, *_ = np.linalg.lstsq(np.array(added, dtype=float), np.array(deltas), rcond=None)
    result: np.ndarray = solution
    return result

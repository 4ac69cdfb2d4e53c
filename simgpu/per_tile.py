"""Per-tile accounting: each unit's busy cycles for one main-loop tile, as the FA4 per-tile roofline tables count
them (`simulate(..., per_tile=True)`, `simgpu run --per-tile`).

A main-loop tile is one iteration of every top-level loop of a kernel's first work item, in steady state (FA4's
forward: one block of N keys against the work item's M query rows; its backward: one Q tile against its K/V block).
The engine derives it. The first work item is folded (`simgpu.fold`) with `KEEP_ITERATIONS` kept at each end of its
top-level loops, as fast mode folds, once as is and once with one fold period more next to the head
(`FoldedTile.widened`); each runs alone on one SM in exact mode, at the clock the whole work item ran at (the
power-limited one where the arch has a limit), and a unit's busy cycles in the wider run less those in the other,
over the iterations added to each loop, are the tile's. The CTA's prologue, the kept iterations (the pipeline's fill
and drain, a first key block without a rescale) and the epilogue are in both runs and cancel.
Nested loops run whole: a tile holds all of its own iterations. Busy cycles that depend on how units overlap
(H100's `contention`) are those of the steady state.

Several kernels of a pass: kernels without a top-level loop (the backward's preprocess and postprocess) have no main
loop and add nothing; the tiles of several looped kernels add up, one tile of each. A first work item whose shortest
top-level loop is too short to fold (fewer than `2 KEEP_ITERATIONS + period` iterations) is refused with an
`OptionError`, and so is a pass with no looped kernel: there is no steady state to take a tile from.

Ignored: what a pass's earlier kernels leave in L2 (each looped kernel runs alone, L2 cold), which can only move the
HBM and L2 busy cycles, not the SM's units'; a tile's busy cycles that depend on where in the loop it lies other
than in the fill and drain (every kept and added iteration is taken to be alike, as fast mode's fold assumes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from simgpu.arch import Arch
from simgpu.engine import Engine
from simgpu.errors import OptionError
from simgpu.fast_plan import KEEP_ITERATIONS
from simgpu.fold import FoldedTile, FoldSpec, fold_tile, kernel_period
from simgpu.kernel import Kernel, with_programs
from simgpu.result import unit_busy_cycles


@dataclass(frozen=True)
class MainLoop:
    """A kernel's first work item folded twice: `wider` runs `added_iterations` more of each top-level loop than
    `base`, the same otherwise."""

    kernel: Kernel
    base: FoldedTile
    wider: FoldedTile
    added_iterations: int


def main_loops(kernels: Sequence[Kernel]) -> tuple[MainLoop, ...]:
    """The folds of the first work item of each kernel with a top-level loop. Raises `OptionError` where a loop is
    too short to fold or no kernel has a loop."""
    loops = []
    for kernel in kernels:
        period = kernel_period(kernel)
        base = fold_tile(kernel, kernel.tiles[0], FoldSpec(KEEP_ITERATIONS, period, nested=False))
        counts = [loop.count for role_gaps in base.gaps for _, loop in role_gaps]
        if not counts:
            continue
        _, removed = base.cut
        if not removed:
            needed = 2 * KEEP_ITERATIONS + period
            raise OptionError(
                f"per-tile accounting needs {needed} iterations of each main loop ({KEEP_ITERATIONS} kept at each end, "
                f"{period} more to add in steady state); kernel {kernel.name}'s first work item runs {min(counts)} "
                "in its shortest: use a longer sequence"
            )
        loops.append(MainLoop(kernel, base, base.widened("head", period), period))
    if not loops:
        names = ", ".join(kernel.name for kernel in kernels)
        raise OptionError(f"per-tile accounting needs a main loop: no kernel ({names}) has a top-level loop")
    return tuple(loops)


def main_loop_unit_cycles(
    arch: Arch, loops: Sequence[MainLoop], clock_hz: float, event_budget: int
) -> Mapping[str, float]:
    """Per unit, its busy cycles per instance in one main-loop tile of every kernel of `loops`, summed: each fold
    alone on one SM of `arch`."""
    one_sm = arch.with_overrides({"sms": 1})
    tile: dict[str, float] = {}
    for loop in loops:
        base, wider = (_run(one_sm, loop.kernel, folded, clock_hz, event_budget) for folded in (loop.base, loop.wider))
        for unit, cycles in wider.items():
            tile[unit] = tile.get(unit, 0.0) + (cycles - base[unit]) / loop.added_iterations
    return tile


def _run(one_sm: Arch, kernel: Kernel, folded: FoldedTile, clock_hz: float, event_budget: int) -> dict[str, float]:
    """The busy cycles per instance of each unit when `one_sm` runs the folded first work item of `kernel`."""
    item = replace(with_programs(kernel, folded.programs), tiles=kernel.tiles[:1])
    return unit_busy_cycles(Engine(one_sm, clock_hz, None, event_budget).run([item]))

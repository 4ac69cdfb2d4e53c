"""Fast mode's small kernels of unequal tiles: every CTA run on the whole chip, as exact mode runs them.

A kernel whose tiles are of unequal length (causal: a query block visits as many key blocks as lie left of the
diagonal) and that gives the chip's CTA slots only a few tiles each ends when its last long tiles do, and where
those land depends on which slot frees first. That hangs on the phases of co-resident CTAs: two CTAs that start
together run in step, one a little ahead of the other; after unequal tiles they drift apart, and out of step they
share the SM's units differently. Fast mode's fluid schedule (`simgpu.fast_schedule`) runs a class's co-resident
CTAs in step at one rate, and there a 1% change in one class's time moves such a kernel's end by up to 8% (the
H100's v2 causal forward on 8 SMs, two tiles per slot). Such a kernel is cheap to run whole: when its unit ops
(`unit_ops`, each loop counted at its trip count) are at most `WHOLE_OPS`, the engine runs every CTA on the
chip, every loop iteration. The run's first kernel meets an empty L2, as in exact mode, and runs through the L2
model itself: which CTA misses on first touch and waits an HBM latency rather than an L2 hit moves the phases of
its co-resident CTAs (the B200's v2 causal forward on 8 and 10 SMs: -2.4% and +4.4% against exact mode with the
misses spread evenly, the H100's on 8 SMs +4.5%; now equal). A later kernel runs with the L2 replay's miss shares
(`simgpu.units.fluid_l2`), so that its L2 hits are the whole run's, not those of the kernel alone. The bytes are
still the replay's.

A kernel whose CTAs order each other through semaphores in global memory (FA4's deterministic backward: each key
block's dQ adds wait for the block before) runs whole up to `ORDERED_WHOLE_OPS` unit ops: the representative SMs
run none of the CTAs that release them, so they would not wait (on a B200 cut to 33 SMs, 2 heads of N = 2k, the main
kernel took 0.46x exact mode's cycles). Past that budget fast mode still does not see the order.

Ignored: in a later kernel, which accesses miss (the fluid L2 spreads a tensor's misses evenly; the L2 the earlier
kernels leave is the replay's, which walks folded tiles in launch order, not the timed run's).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from simgpu.arch import Arch
from simgpu.engine import Engine, RunStats
from simgpu.kernel import Kernel
from simgpu.ops import Advance, Arrive, Delay, Load, Op, Repeat, Wait
from simgpu.units.fluid_l2 import MissShares

WHOLE_OPS = 5_000  # unit ops a kernel of unequal tiles may cost to be run whole (about 50 ms of the engine)
# Unit ops a kernel whose CTAs order each other through semaphores may cost to be run whole (about half a second):
# fast mode's representative SMs run none of the CTAs that release them, so they cannot see the order.
ORDERED_WHOLE_OPS = 50_000

_NOT_UNIT_OPS = (Wait, Arrive, Advance, Delay)


def cheap_to_run_whole(
    kernel: Kernel, sources: Sequence[Hashable], index: np.ndarray, most_ops: int = WHOLE_OPS
) -> bool:
    """Whether the kernel's unit ops, one tile of each shape (`sources`, with `index` the shape of each tile in
    launch order) times its tiles, are at most `most_ops`."""
    if len(kernel.tiles) > most_ops:
        return False
    budget = float(most_ops)
    for source, tiles in zip(sources, np.bincount(index, minlength=len(sources)).tolist(), strict=True):
        budget -= tiles * sum(unit_ops(role.program(source), budget) for role in kernel.roles)
        if budget < 0:
            return False
    return True


def ordered(kernel: Kernel, source: Hashable) -> bool:
    """Whether a tile of the kernel (`source`) acquires a semaphore that other CTAs release (`Load.acquire`)."""
    return any(_acquires(role.program(source)) for role in kernel.roles)


def _acquires(ops: Sequence[Op]) -> bool:
    for op in ops:
        if type(op) is Repeat:
            if op.count and (_acquires(op.body(0)) or _acquires(op.body(op.count - 1))):
                return True
        elif type(op) is Load and op.acquire is not None:
            return True
    return False


def unit_ops(ops: Sequence[Op], limit: float = float("inf"), counted: tuple[type, ...] | None = None) -> float:
    """The unit ops a program runs (or, with `counted`, its ops of those types), each loop counted as its trip count
    times its first iteration's; past `limit` the count stops (the caller only asks whether it fits)."""
    total = 0.0
    for op in ops:
        if type(op) is Repeat:
            if op.count:
                total += op.count * unit_ops(op.body(0), limit / op.count, counted)
        elif isinstance(op, counted) if counted is not None else not isinstance(op, _NOT_UNIT_OPS):
            total += 1
        if total > limit:
            break
    return total


def run_whole(
    arch: Arch, kernel: Kernel, clock_hz: float, event_budget: int, shares: Mapping[str, MissShares] | None
) -> RunStats:
    """The kernel run on the whole chip with the replay's miss shares (None: through the L2 model itself, from
    empty): its cycles from its launch, and the busy cycles and bytes of every SM's units."""
    return Engine(arch, clock_hz, None, event_budget, miss_shares=shares).run([kernel])

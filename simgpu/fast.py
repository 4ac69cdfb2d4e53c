"""Fast mode: the engine run on representative SMs and folded loops, extrapolated back to the whole chip.

Four reductions, checked against exact mode by the tests (`tests/core/test_fast.py`, `experiments/fast_vs_exact`):

1. Steady state (`simgpu.fold`): long loops keep a few iterations at each end, and so do nested loops in kernels
   of one role (v1); the cost of a removed iteration (and of the nested iterations it holds) is fitted from runs
   with one more period kept, and added back per tile. A removed iteration lies past a slot's start-up, so it costs
   a slot's first tile what it costs a further one; a round of tiles takes at least what its busiest unit (and its
   share of HBM and L2, past the first round) is busy for.
2. Symmetry: tiles whose folded programs are equal up to memory keys form a class (`simgpu.fast_plan`; past 64 tile
   positions per head, grouped by their outlines, `simgpu.fold.outline`, and a few of each group folded; where the
   schedule declares its tiles alike but at the grid's edges, `Kernel.alike_but_edges`, one of each form folded). One SM
   runs the class's representative (`simgpu.fast_costs`) with 1, 2 and `fit` CTAs resident (other counts interpolated),
   once and twice in a row (once only where no slot takes a second tile), alone (all of the chip's HBM and L2 bandwidth)
   and with every SM busy (every SM the kernel can fill: no more than its tiles): the class's time to a slot's first
   tile, per further tile (in a kernel of unequal tiles, with the slots started apart), the first tile's tail where no
   further tile hides it (short CTAs, many per SM), and its per-tile busy cycles and bytes. With every SM busy, an SM's
   requests made before any of its data came back, which every SM makes at once and queues behind the others', get an
   equal share of the bandwidth; its later requests, which that queue has staggered, get what the other SMs leave
   (processor sharing: each uses what it used alone), at least an equal share. L2 hits come from the replay's miss
   shares (`simgpu.units.fluid_l2`), per kernel; a further tile's time is averaged over enough rounds to hold its share
   of misses, and is at least the time HBM and L2 take to serve its bytes at the SM's share.
3. Waves (`simgpu.fast_schedule`): the chip's CTA slots take the tiles in launch order, each when free; the CTAs
   of an SM share it and the busy SMs share the bandwidth (a fluid list schedule), so full waves, the tail wave and
   uneven (causal, LPT) work come out of one schedule. The tiles of a kernel of one class start and end together
   on each SM: the schedule walks runs of SMs in one state, and skips full waves whole. No kernel ends before the
   chip's L2 served what its tiles moved through it (a one-round kernel's busy SMs take what the others leave of L2
   from a demand that the launch's time dilutes: `docs/results/kernel_l2_bound_32/`).
4. Small kernels of unequal tiles (`simgpu.fast_whole`) are the exception: where a few tiles per slot of unequal
   length decide the kernel's end by where the last long ones land, which the phases of co-resident CTAs decide
   and a fluid schedule cannot follow, and every CTA costs few ops, the engine runs every CTA on the whole chip.
   The run's first kernel meets an empty L2, as in exact mode, so it runs through the L2 model itself (which
   accesses miss moves those phases); a later one takes the replay's miss shares (`simgpu.units.fluid_l2`).

HBM and L2 bytes (`simgpu.fast_bytes`) come from replaying the memory accesses of the first heads through the L2 model
(`simgpu.replay`), at the base fold (nested loops not folded, long ones sampled: `FoldSpec.sampled`; in a kernel of
equal tiles, the middles of the top-level loops sampled too: `FoldSpec.sampled_top`) and at each fit variant,
extrapolated the same way and scaled by heads (none of this depends on the clock: `plan_fast` does it once for a run
re-timed at another clock): equal to exact mode's while the run fits in L2 (the sampled loops aside: v1's forward
on cut chips reads 0.25% more, `docs/results/v1_sampled_replay.txt`). Heads beyond the first replay the first head's
folded tiles with their own keys (unless the first head alone, in its share of L2, never runs out of room: then it
stands for all); a head too large to replay whole (long sequences) replays two prefixes of its tiles and extrapolates
linearly: when every kernel's tiles are uniform with folded loops, a share of each kernel's tiles and a larger one;
when one kernel of uniform tiles folds loops and the others none (FlashAttention's backward), whole waves of that
kernel's tiles ending on the head's partial wave, beside the others' tiles whole, extrapolated by whole waves, where its
smaller prefix turns the head's share of L2 over (later waves then move what the last ones did; the miss shares are the
larger prefix's). Ignored (the measured misses in `docs/results/fast_vs_exact.csv`): that co-resident CTAs of different
classes slow each other differently from CTAs of one class, and that CTAs of one class that start together end apart
(the first placed leads; where a kernel is a few waves, that decides its end: standard attention's score tiles, two to
an SM of the H100 cut to 8 SMs, end 15,940 and 20,036 cycles into the kernel, and over 2.25 waves fast mode times the
kernel 15% slow, `docs/results/looked_at_47/few_waves.txt`); that an SM's bandwidth share does not depend on how many
CTAs it holds; which CTA takes the misses of a tile many CTAs read (the first to touch it, in exact mode: fast mode
spreads a tensor's misses evenly); that the HBM's loaded latency (`simgpu.units.hbm`) in a class's runs with every SM
busy counts the traffic of every SM the kernel fills, also in tail waves where fewer load; for runs that overflow L2,
that the replay sees the pressure of fewer heads, in their share of L2, than run side by side; and, for a head replayed
by prefixes, that the waves past them move what the replayed ones did and, in the shared prefixes, that the run's last
writes are written back at a prefix's end, untimed, where the whole head's later tiles push them out during the run
(forward at 128k tokens on the H100: timed HBM bytes 42% under the whole head's replay; HBM and L2 byte totals equal).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from simgpu.arch import Arch
from simgpu.engine import RunStats, UnitTotals
from simgpu.errors import ScheduleError
from simgpu.fast_bytes import Shares, replayed_bytes
from simgpu.fast_costs import CLAIMS, TIMES, class_costs, filled_slots, metric_names, metric_vector
from simgpu.fast_plan import KernelPlan, plan_kernel
from simgpu.fast_schedule import shared_schedule
from simgpu.fast_whole import run_whole
from simgpu.kernel import Kernel

__all__ = ["FastPlan", "plan_fast", "run_fast", "thaw"]


@dataclass(frozen=True)
class FastPlan:
    """What fast mode learns without timing anything, the same at any clock: the kernels' plans (folds, classes)
    and the L2 replay's miss shares and bytes. A run re-timed at another clock (the power-limited clock,
    `simgpu.api`) reuses it. `frozen`: whether the plan left the objects alive at its end frozen (`plan_fast`)."""

    plans: tuple[KernelPlan, ...]
    shares: Shares
    bytes_full: np.ndarray
    frozen: bool = False


def plan_fast(arch: Arch, kernels: Sequence[Kernel], freeze: bool = False) -> FastPlan:
    """The kernels' `FastPlan`. With `freeze`, the objects alive when it is made (the plan's hundreds of thousands
    of ops and records, and whatever else lives) move to the cycle collector's permanent generation, so that the
    engine runs that follow do not walk them again and again; the caller gives them back with `thaw` (standard
    attention at 16k: a third of its time went to collections of a plan that outlives them). Nothing is frozen
    where something else froze objects already (that caller's `gc.unfreeze` would also release ours)."""
    if not kernels:
        raise ScheduleError("nothing to run: no kernels")
    with _cycle_collection_paused() as enabled:
        plans = tuple(plan_kernel(arch, kernel) for kernel in kernels)
        shares, bytes_full = replayed_bytes(arch, plans)
        frozen = freeze and enabled and gc.get_freeze_count() == 0
        if frozen:
            gc.freeze()
    return FastPlan(plans, shares, bytes_full, frozen)


def thaw(planned: FastPlan) -> None:
    """Give what `plan_fast` froze back to the cycle collector (its oldest generation)."""
    if planned.frozen:
        gc.unfreeze()


@contextlib.contextmanager
def _cycle_collection_paused() -> Iterator[bool]:
    """Fast mode's plan makes hundreds of thousands of small tuples that live until it is done (the replay's
    records, the folded programs' ops), and the cycle collector would walk them again and again: a quarter to a
    third of a replay-bound prediction's time. Reference counting still frees what dies; cycles made meanwhile
    are collected after. The collector is left as it was found; yields whether it was enabled. (Not around the
    engine runs: `Engine.run` pauses it itself.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield enabled
    finally:
        if enabled:
            gc.enable()


def run_fast(
    arch: Arch, kernels: Sequence[Kernel], clock_hz: float, event_budget: int, planned: FastPlan | None = None
) -> RunStats:
    """Fast mode's run of `kernels` at `clock_hz`; `planned`: their `plan_fast` (made here when not given)."""
    if planned is None:
        planned = plan_fast(arch, kernels)
    plans, shares, bytes_full = planned.plans, planned.shares, planned.bytes_full
    names = metric_names(arch)
    l2_service = names.index("l2_service_bytes")
    launch = arch.kernel_launch_s * clock_hz
    kernel_cycles: list[float] = []
    totals = np.zeros(len(names))
    ops = 0
    for number, plan in enumerate(plans):
        if plan.whole:
            # The run's first kernel meets an empty L2, as in exact mode: it runs through the L2 model itself.
            whole = run_whole(arch, plan.kernel, clock_hz, event_budget, shares[number] if number else None)
            kernel_cycles.append(whole.cycles)
            totals += metric_vector(whole, names, arch.sms)
            ops += whole.ops
            continue
        # A kernel of fewer tiles than SMs never has more SMs busy than tiles (the first wave goes breadth-first).
        sharers = min(arch.sms, len(plan.kernel.tiles))
        costs, simulated = class_costs(arch, plan, clock_hz, event_budget, shares[number], names, sharers)
        ops += simulated
        # Tiles cost alike when their shapes fold alike and lose as many iterations: one cost class each.
        classes: dict[tuple[int, tuple[int, ...]], int] = {}
        shapes = zip(plan.kinds, plan.removed, strict=True)
        class_of_shape = np.array([classes.setdefault(shape, len(classes)) for shape in shapes])
        slots = filled_slots(plan.fit, len(plan.kernel.tiles), arch.sms)
        metrics = slice(TIMES, TIMES + len(names))
        vectors = np.zeros((len(classes), 2 * slots, TIMES + len(names) + CLAIMS))  # class, setting, cost vector
        for (kind, removed), position in classes.items():
            vectors[position] = [cost.of(removed) for cost in costs[kind]]
        tile_class = class_of_shape[plan.index]
        # Class, CTAs - 1, (busy, alone), then the times and the claims' leads.
        times = np.concatenate((vectors[:, :, :TIMES], vectors[:, :, metrics.stop :]), axis=2)
        times = times.reshape(len(classes), slots, 2, TIMES + CLAIMS)
        tiles_per_class = np.bincount(tile_class, minlength=len(classes))
        kernel_totals = tiles_per_class @ vectors[:, -2, metrics]  # as full as the tiles fill an SM, all SMs busy
        totals += kernel_totals
        # No kernel ends before the chip's L2 served what its tiles moved through it: where every SM starts its first
        # tiles at once, a representative's first tiles may take more of L2 than its share.
        l2_cycles = kernel_totals[l2_service] / arch.l2_bytes_per_cycle(clock_hz)
        kernel_cycles.append(launch + max(shared_schedule(arch.sms, slots, times, tile_class, sharers), l2_cycles))
    cycles = sum(kernel_cycles)
    return _stats(arch, clock_hz, names, totals, bytes_full, cycles, tuple(kernel_cycles), plans, ops)


def _stats(
    arch: Arch,
    clock_hz: float,
    names: Sequence[str],
    totals: np.ndarray,
    bytes_full: np.ndarray,
    cycles: float,
    kernel_cycles: tuple[float, ...],
    plans: Sequence[KernelPlan],
    ops: int,
) -> RunStats:
    value = dict(zip(names, totals, strict=True))
    hbm_read, hbm_write, hbm_timed, l2_read, l2_write = (float(x) for x in bytes_full)
    # The L2's busy time is what it served as it serves it, the representatives' (a store of parts of sectors costs
    # its sector accesses), not the replay's bytes.
    l2_served = float(value["l2_service_bytes"])
    units = {
        "hbm": UnitTotals(hbm_timed / arch.hbm_bytes_per_cycle(clock_hz), 1, hbm_timed),
        "l2": UnitTotals(l2_served / arch.l2_bytes_per_cycle(clock_hz), 1, l2_served),
    }
    for name in names:
        if name.startswith("busy:"):
            unit = name.partition(":")[2]
            units[unit] = UnitTotals(float(value[name]), arch.sms, float(value[f"amount:{unit}"]))
    return RunStats(
        cycles=cycles,
        kernel_cycles=kernel_cycles,
        units=units,
        hbm_read_bytes=hbm_read,
        hbm_write_bytes=hbm_write,
        l2_read_bytes=l2_read,
        l2_write_bytes=l2_write,
        smem_read_bytes=float(value["smem_read"]),
        smem_write_bytes=float(value["smem_write"]),
        tmem_read_bytes=float(value["tmem_read"]),
        tmem_write_bytes=float(value["tmem_write"]),
        ops=ops,
        ctas_per_sm=tuple(plan.fit for plan in plans),
        tensor_activity=float(value["tensor_native"]) / (arch.sms * cycles) if cycles else 0.0,
    )

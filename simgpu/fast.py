"""Fast mode: the engine run on representative SMs and folded loops, extrapolated back to the whole chip.

Three reductions, checked against exact mode by the tests (`tests/core/test_fast.py`, `experiments/fast_vs_exact`):

1. Steady state (`simgpu.fold`): long loops keep a few iterations at each end; the cost of a removed iteration
   (and of the nested iterations it holds) is fitted from runs with one more period kept, and added back per tile.
2. Symmetry: tiles whose folded programs are equal up to memory keys form a class. One SM runs the class's
   representative with 1, 2 and `fit` CTAs resident (other counts interpolated), once and twice in a row, with its
   share of the chip's HBM and L2 bandwidth (all SMs busy) and with all of it (alone): the class's time to a slot's
   first tile, per further tile, and its per-tile busy cycles and bytes. L2 hits come from the replay's miss
   shares (`simgpu.units.fluid_l2`).
3. Waves: the chip's CTA slots take the tiles in launch order, each when free; the CTAs of an SM share it and the
   busy SMs share the bandwidth (a fluid list schedule), so full waves, the tail wave and uneven (causal, LPT) work
   come out of one schedule. Full waves of one class are skipped whole.

HBM and L2 bytes come from replaying the memory accesses of the first heads through the L2 model (`simgpu.replay`),
at the base fold and at each fit variant, extrapolated the same way and scaled by heads: equal to exact mode's
while the run fits in L2. Ignored (the measured misses in `docs/results/fast_vs_exact.csv`): that co-resident CTAs
of different classes slow each other differently from CTAs of one class; that an SM's bandwidth share does not
depend on how many CTAs it holds; the start-up burst of a wave (its loads queue in exact mode, share in fast); and,
for runs that overflow L2, which accesses hit (a tensor's fluid share instead).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from simgpu.arch import Arch
from simgpu.engine import Engine, RunStats, UnitTotals, ctas_per_sm
from simgpu.errors import ScheduleError
from simgpu.fold import FoldedTile, FoldSpec, fold_tile, kernel_period
from simgpu.kernel import Kernel, Role, TileGrid
from simgpu.ops import Op
from simgpu.replay import KernelAccesses, replay
from simgpu.units.fluid_l2 import MissShares

KEEP_ITERATIONS = 4  # iterations kept at each end of a folded loop: enough for every schedule's pipeline to fill
SHARE_STEPS = 64  # busy-SM counts the bandwidth share distinguishes
REPLAY_TILES = 4096  # tiles a replay folds at most (more only when one head has more)
REPLAY_ACCESSES = 40_000  # memory accesses a replay walks at most (more only when one head has more)


@dataclass(frozen=True)
class _Cost:
    """What a tile of a class costs, as a vector: time to the end of a slot's first tile, time of each further
    tile, then the additive metrics (busy cycles, bytes, ops). `base` is the folded tile's; the rows of `slopes`
    are the cost of one removed top-level iteration and of one nested iteration inside it."""

    base: np.ndarray
    slopes: np.ndarray

    def of(self, removed: Sequence[int]) -> np.ndarray:
        cost: np.ndarray = self.base + np.asarray(removed, dtype=float) @ self.slopes
        return cost


@dataclass(frozen=True)
class _KernelPlan:
    kernel: Kernel
    fit: int
    spec: FoldSpec
    sides: tuple[str, ...]  # the fit variants: one period more next to the head (and the tail, for nested loops)
    shapes: tuple[FoldedTile, ...]  # one folded tile per shape key, in launch order of first appearance
    sources: tuple[Hashable, ...]  # the tile each shape was folded from
    index: np.ndarray  # per tile in launch order: the position of its shape


def run_fast(arch: Arch, kernels: Sequence[Kernel], clock_hz: float, event_budget: int) -> RunStats:
    if not kernels:
        raise ScheduleError("nothing to run: no kernels")
    plans = [_plan(arch, kernel) for kernel in kernels]
    shares, bytes_full = _replayed_bytes(arch, plans)
    names = _metric_names(arch)
    launch = arch.kernel_launch_s * clock_hz
    kernel_cycles: list[float] = []
    totals = np.zeros(len(names))
    ops = 0
    for plan in plans:
        costs, simulated = _class_costs(arch, plan, clock_hz, event_budget, shares, names)
        ops += simulated
        # Tiles cost alike when their shapes fold alike and lose as many iterations: one cost class each.
        classes: dict[tuple[Hashable, tuple[int, int]], int] = {}
        class_of_shape = np.array(
            [classes.setdefault((shape.signature(), shape.removed), len(classes)) for shape in plan.shapes]
        )
        vectors = np.zeros((len(classes), 2 * plan.fit, len(names) + 2))  # class, setting, cost vector
        for (signature, removed), number in classes.items():
            vectors[number] = [cost.of(removed) for cost in costs[signature]]
        tile_class = class_of_shape[plan.index]
        times = vectors[:, :, :2].reshape(len(classes), plan.fit, 2, 2)  # class, CTAs - 1, (busy, alone), column
        kernel_cycles.append(launch + _shared_schedule(arch.sms, plan.fit, times, tile_class))
        tiles_per_class = np.bincount(tile_class, minlength=len(classes))
        totals += tiles_per_class @ vectors[:, -2, 2:]  # all slots filled, all SMs busy
    cycles = sum(kernel_cycles)
    return _stats(arch, clock_hz, names, totals, bytes_full, cycles, tuple(kernel_cycles), plans, ops)


def _plan(arch: Arch, kernel: Kernel) -> _KernelPlan:
    fit = ctas_per_sm(arch, kernel)
    spec = FoldSpec(KEEP_ITERATIONS, kernel_period(kernel))
    index, sources = _shapes(kernel)
    shapes = tuple(fold_tile(kernel, tile, spec) for tile in sources)
    sides: tuple[str, ...] = ()
    if any(shape.removed[0] for shape in shapes):
        sides = ("head", "tail") if any(shape.full[1] for shape in shapes) else ("head",)
    return _KernelPlan(kernel, fit, spec, sides, shapes, tuple(sources), index)


def _shapes(kernel: Kernel) -> tuple[np.ndarray, list[Hashable]]:
    """Per tile in launch order, the position of its shape (its index without the `head_axes`), and one tile of
    each shape in order of first appearance. A dense grid's shapes are those of its first head."""
    tiles, axes = kernel.tiles, kernel.head_axes
    if isinstance(tiles, TileGrid) and axes:
        per_head = math.prod(tiles.shape[axes:])
        return np.arange(len(tiles)) % per_head, [tiles[n] for n in range(per_head)]
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


def _replayed_bytes(arch: Arch, plans: Sequence[_KernelPlan]) -> tuple[dict[str, MissShares], np.ndarray]:
    """The replay's miss shares and its bytes with every removed iteration added back.

    When every kernel's tiles are indexed by the same heads (`Kernel.head_axes`: heads share no memory), the first
    heads replay, as many as fill the chip's CTA slots once in every kernel (so reuse inside a kernel sees the L2
    pressure of the heads running beside it) as far as `REPLAY_TILES` and `REPLAY_ACCESSES` allow (fewer see their
    share of L2), and their bytes scale by the number of heads. Between kernels only their share of
    L2 carries over, as from one kernel to the next the whole run's data competes for it. Both are exact while
    the whole run fits in L2. Otherwise runs of up to `REPLAY_TILES` tiles replay whole, and larger ones replay
    the first f and 2f of every kernel's tiles through that share of L2 and extrapolate linearly."""
    heads = _first_heads(arch, plans)
    if heads is not None:
        total, concurrent, replayed, tiles = heads
        known = [dict(zip(plan.sources, plan.shapes, strict=True)) for plan in plans]
        folded = [
            [shapes[t] if t in shapes else fold_tile(plan.kernel, t, plan.spec) for t in ts]
            for plan, shapes, ts in zip(plans, known, tiles, strict=True)
        ]
        # Fewer heads than run side by side see that share of L2, so that reuse inside a kernel meets the same
        # pressure; between kernels the whole run's heads compete.
        shares, some = _fold_replay(arch, plans, tiles, folded, replayed / concurrent, replayed / total)
        return shares, some * total / replayed
    total_tiles = sum(len(plan.kernel.tiles) for plan in plans)
    if total_tiles <= REPLAY_TILES:
        return _prefix_bytes(arch, plans, [len(plan.kernel.tiles) for plan in plans], 1.0)
    fraction = REPLAY_TILES / (2 * total_tiles)
    counts = [[max(1, round(share * fraction * len(plan.kernel.tiles))) for plan in plans] for share in (1, 2)]
    covered = [sum(c) / total_tiles for c in counts]
    _, small = _prefix_bytes(arch, plans, counts[0], covered[0])
    shares, large = _prefix_bytes(arch, plans, counts[1], covered[1])
    return shares, large + (1.0 - covered[1]) * (large - small) / (covered[1] - covered[0])


def _first_heads(arch: Arch, plans: Sequence[_KernelPlan]) -> tuple[int, int, int, list[list[Hashable]]] | None:
    """The number of heads, how many run side by side, how many to replay, and per kernel the replayed heads' tiles
    in launch order; None unless every kernel has `head_axes` and the same heads, each with as many tiles."""
    counts = set()
    firsts = set()
    per_head = []
    for plan in plans:
        kernel = plan.kernel
        axes = kernel.head_axes
        if not axes:
            return None
        firsts.add(_head(kernel.tiles[0], axes))
        if isinstance(kernel.tiles, TileGrid):
            counts.add(math.prod(kernel.tiles.shape[:axes]))
            per_head.append(math.prod(kernel.tiles.shape[axes:]))
            continue
        sizes = Counter(_head(tile, axes) for tile in kernel.tiles)
        if len(set(sizes.values())) != 1:
            return None
        counts.add(len(sizes))
        per_head.append(len(kernel.tiles) // len(sizes))
    if len(counts) != 1 or len(firsts) != 1:
        return None
    total = counts.pop()
    if total == 1:
        return None
    # Enough heads to fill the chip's slots in every kernel, within budgets of replayed tiles and accesses.
    needed = max(-(-arch.sms * plan.fit // n) for plan, n in zip(plans, per_head, strict=True))
    accesses = sum(len(tile.accesses) for plan in plans for tile in plan.shapes)
    replayed = max(1, min(total, needed, REPLAY_TILES // sum(per_head), REPLAY_ACCESSES // max(1, accesses)))
    tiles: list[list[Hashable]] = []
    for plan in plans:
        kernel, axes = plan.kernel, plan.kernel.head_axes
        if isinstance(kernel.tiles, TileGrid):
            tiles.append([kernel.tiles[n] for n in range(replayed * math.prod(kernel.tiles.shape[axes:]))])
            continue
        chosen: dict[tuple[object, ...], None] = {}
        for tile in kernel.tiles:
            if len(chosen) == replayed and _head(tile, axes) not in chosen:
                continue
            chosen.setdefault(_head(tile, axes))
        tiles.append([tile for tile in kernel.tiles if _head(tile, axes) in chosen])
    return total, min(total, needed), replayed, tiles


def _head(tile: Hashable, axes: int) -> tuple[object, ...]:
    return tuple(tile[:axes])  # type: ignore[index]


def _prefix_bytes(
    arch: Arch, plans: Sequence[_KernelPlan], counts: Sequence[int], capacity_share: float
) -> tuple[dict[str, MissShares], np.ndarray]:
    """Replay the first `counts[k]` tiles of kernel k (all kernels in order, sharing L2)."""
    tiles = [list(plan.kernel.tiles[:count]) for plan, count in zip(plans, counts, strict=True)]
    folded = [[fold_tile(plan.kernel, tile, plan.spec) for tile in ts] for plan, ts in zip(plans, tiles, strict=True)]
    return _fold_replay(arch, plans, tiles, folded, capacity_share)


def _fold_replay(
    arch: Arch,
    plans: Sequence[_KernelPlan],
    tiles: Sequence[Sequence[Hashable]],
    folded: Sequence[Sequence[FoldedTile]],
    capacity_share: float,
    carry_share: float | None = None,
) -> tuple[dict[str, MissShares], np.ndarray]:
    """Replay `tiles` (folded at the base: `folded`) through `capacity_share` of L2, keeping `carry_share` of it
    from one kernel to the next, at the base fold and with one more period per kernel and fit variant; return
    the base's miss shares and the bytes with the removed iterations added back."""
    capacity = arch.l2.capacity_bytes * capacity_share
    carry = None if carry_share is None else arch.l2.capacity_bytes * carry_share
    accesses = [_accesses(arch, plan, ts) for plan, ts in zip(plans, folded, strict=True)]
    base = replay(arch, accesses, capacity, carry)
    full = np.array(base.vector())
    for k, plan in enumerate(plans):
        if not plan.sides:
            continue
        added, deltas = [], []
        for side in plan.sides:
            more = [fold_tile(plan.kernel, tile, plan.spec.variant(side)) for tile in tiles[k]]
            variant = list(accesses)
            variant[k] = _accesses(arch, plan, more)
            added.append(
                [sum(t.executed[d] - b.executed[d] for t, b in zip(more, folded[k], strict=True)) for d in (0, 1)]
            )
            deltas.append(np.array(replay(arch, variant, capacity, carry).vector()) - np.array(base.vector()))
        per_iteration = _solve(added, deltas)
        removed = [sum(tile.removed[d] for tile in folded[k]) for d in (0, 1)]
        full += np.asarray(removed, dtype=float) @ per_iteration
    return base.shares, full


def _accesses(arch: Arch, plan: _KernelPlan, tiles: Sequence[FoldedTile]) -> KernelAccesses:
    return KernelAccesses([tile.programs for tile in tiles], arch.sms * plan.fit)


def _solve(added: Sequence[Sequence[int]], deltas: Sequence[np.ndarray]) -> np.ndarray:
    """The cost of one top-level and of one nested iteration, from fit runs that added `added[v]` iterations of
    each and changed by `deltas[v]`. When the runs cannot tell the two apart (every removed iteration holds the
    same nested count, or none), the least-norm fit still extrapolates exactly along that one direction."""
    solution, *_ = np.linalg.lstsq(np.array(added, dtype=float), np.array(deltas), rcond=None)
    result: np.ndarray = solution
    return result


def _class_costs(
    arch: Arch,
    plan: _KernelPlan,
    clock_hz: float,
    event_budget: int,
    shares: Mapping[str, MissShares],
    names: Sequence[str],
) -> tuple[dict[Hashable, tuple[_Cost, ...]], int]:
    """Per class of tiles, per number of CTAs at once on an SM (1 to fit) and per bandwidth share (every SM busy,
    or this SM alone): simulate the class representative (the tile with the most iterations
    removed) in that many slots of one SM, at the base fold and at each fit variant of the kernel. Returns
    the costs, in the order (1 CTA, all busy), (1 CTA, alone), (2 CTAs, all busy)..., and the ops simulated."""
    representatives: dict[Hashable, tuple[int, Hashable, FoldedTile]] = {}
    for source, shape in zip(plan.sources, plan.shapes, strict=True):
        weight = sum(shape.removed)
        signature = shape.signature()
        if signature not in representatives or weight > representatives[signature][0]:
            representatives[signature] = (weight, source, shape)
    costs: dict[Hashable, tuple[_Cost, ...]] = {}
    ops = 0
    for signature, (_, source, base) in representatives.items():
        variants = [fold_tile(plan.kernel, source, plan.spec.variant(side)) for side in plan.sides]
        added = [[v.executed[d] - base.executed[d] for d in (0, 1)] for v in variants]
        fitted = any(any(row) for row in added)  # classes whose loops are too short to fold need no fit
        simulated_costs: dict[tuple[int, bool], _Cost] = {}
        for ctas, alone in itertools.product(_occupancies(plan.fit), (False, True)):
            setting = (ctas, 1.0 if alone else 1.0 / arch.sms)
            vector, simulated = _representative(arch, plan, base, setting, clock_hz, event_budget, shares, names)
            ops += simulated
            slopes = np.zeros((2, len(vector)))
            if fitted:
                deltas = []
                for variant in variants:
                    more, simulated = _representative(
                        arch, plan, variant, setting, clock_hz, event_budget, shares, names
                    )
                    ops += simulated
                    deltas.append(more - vector)
                slopes = _solve(added, deltas)
            simulated_costs[ctas, alone] = _Cost(vector, slopes)
        costs[signature] = tuple(
            _interpolated(simulated_costs, ctas, alone)
            for ctas, alone in itertools.product(range(1, plan.fit + 1), (False, True))
        )
    return costs, ops


def _constant(program: Sequence[Op]) -> Callable[[Hashable], Sequence[Op]]:
    """A role program that runs `program` for whatever tile it is given."""
    return lambda _tile: program


def _occupancies(fit: int) -> list[int]:
    """The numbers of resident CTAs simulated: 1, 2 and `fit`; the others are interpolated (a simulated SM with
    k CTAs costs k times the ops, and an SM's time grows about linearly in its CTAs once a unit saturates)."""
    return sorted({1, min(2, fit), fit})


def _interpolated(costs: Mapping[tuple[int, bool], _Cost], ctas: int, alone: bool) -> _Cost:
    """The cost with `ctas` CTAs resident, linear between the nearest simulated occupancies."""
    simulated = sorted(k for k, a in costs if a == alone)
    above = min(k for k in simulated if k >= ctas)
    below = max(k for k in simulated if k <= ctas)
    if above == below:
        return costs[ctas, alone]
    t = (ctas - below) / (above - below)
    low, high = costs[below, alone], costs[above, alone]
    return _Cost(low.base + t * (high.base - low.base), low.slopes + t * (high.slopes - low.slopes))


def _representative(
    arch: Arch,
    plan: _KernelPlan,
    tile: FoldedTile,
    setting: tuple[int, float],
    clock_hz: float,
    event_budget: int,
    shares: Mapping[str, MissShares],
    names: Sequence[str],
) -> tuple[np.ndarray, int]:
    """One SM with a share of the chip's bandwidth running the folded tile in `ctas` CTA slots at once, once and
    then twice in a row, `setting = (ctas, share)`: the cost vector (time to the first tiles' end after the
    launch, time of a further tile, metrics per tile) and the ops run."""
    ctas, share = setting
    roles = tuple(
        Role(role.name, role.warps, _constant(program))
        for role, program in zip(plan.kernel.roles, tile.programs, strict=True)
    )
    results = []
    for rounds in (1, 2):
        kernel = replace(plan.kernel, tiles=range(ctas * rounds), roles=roles)
        engine = Engine(
            arch,
            clock_hz,
            None,
            event_budget,
            sms=1,
            miss_shares=shares,
            max_ctas_per_sm=ctas,
            bandwidth_share=share,
        )
        results.append(engine.run([kernel]))
    once, twice = results
    launch = arch.kernel_launch_s * clock_hz
    metrics = (_metrics(twice, names) - _metrics(once, names)) / ctas
    vector = np.concatenate(([once.cycles - launch, twice.cycles - once.cycles], metrics))
    return vector, once.ops + twice.ops


def _metric_names(arch: Arch) -> tuple[str, ...]:
    units = tuple(Engine(arch, arch.clock_hz, sms=1).sms[0].servers())
    return (
        *(f"busy:{u}" for u in units),
        *(f"amount:{u}" for u in units),
        "smem_read",
        "smem_write",
        "tmem_read",
        "tmem_write",
        "tensor_native",
        "ops",
    )


def _metrics(stats: RunStats, names: Sequence[str]) -> np.ndarray:
    values = {
        "smem_read": stats.smem_read_bytes,
        "smem_write": stats.smem_write_bytes,
        "tmem_read": stats.tmem_read_bytes,
        "tmem_write": stats.tmem_write_bytes,
        "tensor_native": stats.tensor_activity * stats.cycles,
        "ops": float(stats.ops),
    }
    for unit, totals in stats.units.items():
        values[f"busy:{unit}"] = totals.busy_cycles
        values[f"amount:{unit}"] = totals.amount
    return np.array([values.get(name, 0.0) for name in names])


def _shared_schedule(sms: int, fit: int, times: np.ndarray, tile_class: np.ndarray) -> float:
    """When the last tile ends if every SM's `fit` CTA slots take the tiles in launch order, each when free (the
    first wave breadth-first across SMs), CTAs on one SM share it and busy SMs share the chip's bandwidth.

    `times[c, k - 1, a, f]`: the time of a tile of class c (`tile_class[t]` for tile t) with k CTAs resident on
    its SM, when every SM is busy (a = 0) or its SM is the only busy one (a = 1), as a slot's first tile (f = 0)
    or a further one (f = 1). With A SMs busy the time is interpolated linearly in A between the two, A rounded to
    a 64th of the SMs (each change moves every SM's rates); a tile advances at 1/time per cycle while k and A
    hold. Each busy SM counts as one sharer however many CTAs it holds (see the module docstring). Full waves of
    one class run in lockstep: they are skipped whole, `period` apiece.
    """
    table = times.tolist()  # plain lists: indexing numpy arrays element by element is slow
    classes = tile_class.tolist()
    # Where the run of equal classes that contains each tile ends (for skipping waves).
    run_ends = np.append(np.flatnonzero(np.diff(tile_class)) + 1, len(classes))
    steps = min(sms, SHARE_STEPS)
    slots = sms * fit
    remaining: list[list[list[float]]] = [[] for _ in range(sms)]  # per SM: [work left, class, further]
    started = [0] * sms
    updated = [0.0] * sms
    version = [0] * sms
    events: list[tuple[float, int, int]] = []
    position = 0
    weight = 1.0  # (busy SMs - 1) / (SMs - 1), rounded: 1 when all are busy

    def duration(sm: int, entry: list[float]) -> float:
        settings = table[int(entry[1])][len(remaining[sm]) - 1]
        busy, alone = settings[0][int(entry[2])], settings[1][int(entry[2])]
        return float(alone + (busy - alone) * weight)

    def share_weight(busy: int) -> float:
        return round(steps * (busy - 1) / (sms - 1)) / steps if sms > 1 else 1.0

    def advance(sm: int, now: float) -> None:
        elapsed = now - updated[sm]
        if elapsed:
            for entry in remaining[sm]:
                entry[0] -= elapsed / duration(sm, entry)
        updated[sm] = now

    def schedule(sm: int, now: float) -> None:
        version[sm] += 1
        if remaining[sm]:
            ends = min(entry[0] * duration(sm, entry) for entry in remaining[sm])
            heapq.heappush(events, (now + max(ends, 0.0), sm, version[sm]))

    def start(sm: int) -> None:
        nonlocal position
        if position < len(classes):
            remaining[sm].append([1.0, classes[position], 1.0 if started[sm] >= fit else 0.0])
            started[sm] += 1
            position += 1

    def waves_to_skip() -> int:
        """Whole waves that would repeat the chip's present state: every slot runs a further tile of the class
        that the next waves of the queue hold."""
        if position >= len(classes) or weight != 1.0:
            return 0
        upcoming = classes[position]
        run = int(run_ends[np.searchsorted(run_ends, position, side="right")]) - position
        if run < 2 * slots:
            return 0
        for entries in remaining:
            if len(entries) != fit or any(e[1] != upcoming or e[2] != 1.0 for e in entries):
                return 0
        return run // slots - 1

    for _ in range(fit):
        for sm in range(sms):
            start(sm)
    busy = sum(1 for sm in range(sms) if remaining[sm])
    weight = share_weight(busy)
    for sm in range(sms):
        schedule(sm, 0.0)
    end = 0.0
    next_check = slots
    while events:
        now, sm, seen = heapq.heappop(events)
        if seen != version[sm]:
            continue
        advance(sm, now)
        done = [entry for entry in remaining[sm] if entry[0] <= 1e-9]
        remaining[sm] = [entry for entry in remaining[sm] if entry[0] > 1e-9]
        end = max(end, now)
        for _ in done:
            start(sm)
        if not remaining[sm]:
            busy -= 1  # only an SM's own events change whether it is busy
        if share_weight(busy) != weight:
            # The chip's bandwidth is now shared by a different number of SMs: every SM's rates change.
            for other in range(sms):
                advance(other, now)
            weight = share_weight(busy)
            for other in range(sms):
                if other != sm:
                    schedule(other, now)
        schedule(sm, now)
        if position >= next_check:
            next_check = position + slots
            waves = waves_to_skip()
            if waves:
                # Each slot finishes one tile per period: shift the whole state by that many periods.
                period = duration(0, remaining[0][0])
                for other in range(sms):
                    advance(other, now)
                    updated[other] = now + waves * period
                position += waves * slots
                now += waves * period
                end = max(end, now)
                for other in range(sms):
                    schedule(other, now)
    return end


def _stats(
    arch: Arch,
    clock_hz: float,
    names: Sequence[str],
    totals: np.ndarray,
    bytes_full: np.ndarray,
    cycles: float,
    kernel_cycles: tuple[float, ...],
    plans: Sequence[_KernelPlan],
    ops: int,
) -> RunStats:
    value = dict(zip(names, totals, strict=True))
    hbm_read, hbm_write, hbm_timed, l2_read, l2_write = (float(x) for x in bytes_full)
    units = {
        "hbm": UnitTotals(hbm_timed / arch.hbm_bytes_per_cycle(clock_hz), 1, hbm_timed),
        "l2": UnitTotals((l2_read + l2_write) / arch.l2_bytes_per_cycle(clock_hz), 1, l2_read + l2_write),
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

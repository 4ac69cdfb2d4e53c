"""Fast mode: the engine run on representative SMs and folded loops, extrapolated back to the whole chip.

Three reductions, checked against exact mode by the tests (`tests/core/test_fast.py`, `experiments/fast_vs_exact`):

1. Steady state (`simgpu.fold`): long loops keep a few iterations at each end; the cost of a removed iteration
   (and of the nested iterations it holds) is fitted from runs with one more period kept, and added back per tile.
   A removed iteration lies past a slot's start-up, so it costs a slot's first tile what it costs a further one.
2. Symmetry: tiles whose folded programs are equal up to memory keys form a class. One SM runs the class's
   representative with 1, 2 and `fit` CTAs resident (other counts interpolated), once and twice in a row, alone
   (all of the chip's HBM and L2 bandwidth) and with every SM busy: the class's time to a slot's first tile, per
   further tile, and its per-tile busy cycles and bytes. With every SM busy, a slot's first tiles, which start
   together and queue for the same loads, get an equal share of the bandwidth; further tiles, which that queue
   has staggered, get what the other SMs leave (processor sharing: each uses what it used alone), at least an
   equal share. L2 hits come from the replay's miss shares (`simgpu.units.fluid_l2`), per kernel; a further tile's
   time is averaged over enough rounds to hold its share of misses, and is at least the time HBM and L2 take to
   serve its bytes at the SM's share.
3. Waves: the chip's CTA slots take the tiles in launch order, each when free; the CTAs of an SM share it and the
   busy SMs share the bandwidth (a fluid list schedule), so full waves, the tail wave and uneven (causal, LPT) work
   come out of one schedule. Full waves of one class are skipped whole.

HBM and L2 bytes come from replaying the memory accesses of the first heads through the L2 model (`simgpu.replay`),
at the base fold and at each fit variant, extrapolated the same way and scaled by heads: equal to exact mode's
while the run fits in L2. Ignored (the measured misses in `docs/results/fast_vs_exact.csv`): that co-resident CTAs
of different classes slow each other differently from CTAs of one class; that an SM's bandwidth share does not
depend on how many CTAs it holds; which CTA takes the misses of a tile many CTAs read (the first to touch it, in
exact mode: fast mode spreads a tensor's misses evenly); and, for runs that overflow L2, that the replay sees the
pressure of fewer heads, in their share of L2, than run side by side.
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
from simgpu.ops import Load, Op
from simgpu.replay import KernelAccesses, ReplayBytes, replay
from simgpu.units.fluid_l2 import MissShares

MAX_ROUNDS = 4  # further rounds a representative SM runs at most, to average its spread misses over
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


_Shares = Sequence[Mapping[str, MissShares]]  # per kernel: the replay's miss shares by tensor


@dataclass(frozen=True)
class _Run:
    """A representative SM's run: the cost vector (`_Cost`), the ops simulated, and the share of the chip's HBM or
    L2 bandwidth that it used."""

    vector: np.ndarray
    ops: int
    demand: float


@dataclass(frozen=True)
class _KernelPlan:
    kernel: Kernel
    fit: int
    spec: FoldSpec
    sides: tuple[str, ...]  # the fit variants: one period more next to the head (and the tail, for nested loops)
    shapes: tuple[FoldedTile, ...]  # one folded tile per shape key, in launch order of first appearance
    kinds: tuple[int, ...]  # per shape, the number of its signature (shapes of one kind cost alike)
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
    for number, plan in enumerate(plans):
        costs, simulated = _class_costs(arch, plan, clock_hz, event_budget, shares[number], names)
        ops += simulated
        # Tiles cost alike when their shapes fold alike and lose as many iterations: one cost class each.
        classes: dict[tuple[int, tuple[int, int]], int] = {}
        shapes = zip(plan.kinds, plan.shapes, strict=True)
        class_of_shape = np.array([classes.setdefault((kind, shape.removed), len(classes)) for kind, shape in shapes])
        vectors = np.zeros((len(classes), 2 * plan.fit, len(names) + 2))  # class, setting, cost vector
        for (kind, removed), position in classes.items():
            vectors[position] = [cost.of(removed) for cost in costs[kind]]
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
    numbers: dict[Hashable, int] = {}  # hashing a signature walks every op: once per shape
    kinds = tuple(numbers.setdefault(shape.signature(), len(numbers)) for shape in shapes)
    return _KernelPlan(kernel, fit, spec, sides, shapes, kinds, tuple(sources), index)


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


def _replayed_bytes(arch: Arch, plans: Sequence[_KernelPlan]) -> tuple[_Shares, np.ndarray]:
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
        # pressure; between kernels the whole run's heads compete. The bytes of a removed iteration are fitted on
        # the first head alone, in its share of L2 (heads are alike).
        head = _head(tiles[0][0], plans[0].kernel.head_axes)
        first = [
            [n for n, tile in enumerate(ts) if _head(tile, plan.kernel.head_axes) == head]
            for plan, ts in zip(plans, tiles, strict=True)
        ]
        fitted = _Replayed(
            [[ts[n] for n in ns] for ts, ns in zip(tiles, first, strict=True)],
            [[fs[n] for n in ns] for fs, ns in zip(folded, first, strict=True)],
            1 / concurrent,
            1 / total,
        )
        replay_set = _Replayed(tiles, folded, replayed / concurrent, replayed / total)
        shares, some = _fold_replay(arch, plans, replay_set, fitted if replayed > 1 else None)
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
) -> tuple[_Shares, np.ndarray]:
    """Replay the first `counts[k]` tiles of kernel k (all kernels in order, sharing L2)."""
    tiles = [list(plan.kernel.tiles[:count]) for plan, count in zip(plans, counts, strict=True)]
    folded = [[fold_tile(plan.kernel, tile, plan.spec) for tile in ts] for plan, ts in zip(plans, tiles, strict=True)]
    return _fold_replay(arch, plans, _Replayed(tiles, folded, capacity_share))


@dataclass(frozen=True)
class _Replayed:
    """Tiles to replay: per kernel, the tiles in launch order and folded at the base; the share of L2 they see, and
    the share of it kept from one kernel to the next (None: all of it)."""

    tiles: Sequence[Sequence[Hashable]]
    folded: Sequence[Sequence[FoldedTile]]
    capacity_share: float
    carry_share: float | None = None

    def accesses(self, arch: Arch, plans: Sequence[_KernelPlan]) -> list[KernelAccesses]:
        return [_accesses(arch, plan, folded) for plan, folded in zip(plans, self.folded, strict=True)]

    def replay(self, arch: Arch, accesses: Sequence[KernelAccesses]) -> ReplayBytes:
        capacity = arch.l2.capacity_bytes * self.capacity_share
        carry = None if self.carry_share is None else arch.l2.capacity_bytes * self.carry_share
        return replay(arch, accesses, capacity, carry)


def _fold_replay(
    arch: Arch, plans: Sequence[_KernelPlan], replayed: _Replayed, fitted: _Replayed | None = None
) -> tuple[_Shares, np.ndarray]:
    """Replay `replayed` at the base fold; fit the bytes of one removed iteration per kernel from replays of
    `fitted` (by default the same tiles) at the base and with one more period per fit variant; return the base's
    miss shares and its bytes with the removed iterations added back."""
    accesses = replayed.accesses(arch, plans)
    base = replayed.replay(arch, accesses)
    full = np.array(base.vector())
    fit = replayed if fitted is None else fitted
    fit_accesses = accesses if fitted is None else fit.accesses(arch, plans)
    fit_base = np.array((base if fitted is None else fit.replay(arch, fit_accesses)).vector())
    for k, plan in enumerate(plans):
        if not plan.sides:
            continue
        added, deltas = [], []
        for side in plan.sides:
            more = [fold_tile(plan.kernel, tile, plan.spec.variant(side)) for tile in fit.tiles[k]]
            variant = list(fit_accesses)
            variant[k] = _accesses(arch, plan, more)
            added.append(
                [sum(t.executed[d] - b.executed[d] for t, b in zip(more, fit.folded[k], strict=True)) for d in (0, 1)]
            )
            deltas.append(np.array(fit.replay(arch, variant).vector()) - fit_base)
        per_iteration = _solve(added, deltas)
        removed = [sum(tile.removed[d] for tile in replayed.folded[k]) for d in (0, 1)]
        full += np.asarray(removed, dtype=float) @ per_iteration
    return base.shares, full


def _accesses(arch: Arch, plan: _KernelPlan, tiles: Sequence[FoldedTile]) -> KernelAccesses:
    return KernelAccesses([tile.accesses for tile in tiles], arch.sms * plan.fit)


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
) -> tuple[dict[int, tuple[_Cost, ...]], int]:
    """Per kind of tiles (`_KernelPlan.kinds`), per number of CTAs at once on an SM (1 to fit) and per bandwidth
    share (every SM busy, or this SM alone): simulate the kind's representative (the tile with the most iterations
    removed) in that many slots of one SM, at the base fold and at each fit variant of the kernel. Returns the costs,
    in the order (1 CTA, all busy), (1 CTA, alone), (2 CTAs, all busy)..., and the ops simulated."""
    representatives: dict[int, tuple[int, Hashable, FoldedTile]] = {}
    for kind, source, shape in zip(plan.kinds, plan.sources, plan.shapes, strict=True):
        weight = sum(shape.removed)
        if kind not in representatives or weight > representatives[kind][0]:
            representatives[kind] = (weight, source, shape)
    simulated_costs: dict[tuple[int, int, bool], _Cost] = {}
    ops = 0
    for kind, (_, source, base) in representatives.items():
        variants = [fold_tile(plan.kernel, source, plan.spec.variant(side)) for side in plan.sides]
        added = [[v.executed[d] - base.executed[d] for d in (0, 1)] for v in variants]
        fitted = any(any(row) for row in added)  # classes whose loops are too short to fold need no fit
        demand: dict[int, float] = {}
        # Alone first: its bandwidth demand sets the share that the busy SMs leave one another.
        for ctas, alone in itertools.product(_occupancies(plan.fit), (True, False)):
            first_share, share = (1.0, 1.0) if alone else _busy_shares(arch.sms, demand[ctas])
            run = _representative(arch, plan, base, (ctas, first_share, share), clock_hz, event_budget, shares, names)
            demand.setdefault(ctas, run.demand)
            ops += run.ops
            slopes = np.zeros((2, len(run.vector)))
            if fitted:
                deltas = []
                for variant in variants:
                    more = _representative(
                        arch, plan, variant, (ctas, share, share), clock_hz, event_budget, shares, names
                    )
                    ops += more.ops
                    deltas.append(more.vector - run.vector)
                slopes = _solve(added, deltas)
                # A removed iteration lies past the start-up burst: it costs a slot's first tile what it costs a
                # further one.
                slopes[:, 0] = slopes[:, 1]
            simulated_costs[kind, ctas, alone] = _Cost(run.vector, slopes)
    costs = {
        kind: tuple(
            _interpolated(simulated_costs, kind, ctas, alone)
            for ctas, alone in itertools.product(range(1, plan.fit + 1), (False, True))
        )
        for kind in representatives
    }
    return costs, ops


def _constant(program: Sequence[Op]) -> Callable[[Hashable], Sequence[Op]]:
    """A role program that runs `program` for whatever tile it is given."""
    return lambda _tile: program


def _occupancies(fit: int) -> list[int]:
    """The numbers of resident CTAs simulated: 1, 2 and `fit`; the others are interpolated (a simulated SM with
    k CTAs costs k times the ops, and an SM's time grows about linearly in its CTAs once a unit saturates)."""
    return sorted({1, min(2, fit), fit})


def _interpolated(costs: Mapping[tuple[int, int, bool], _Cost], kind: int, ctas: int, alone: bool) -> _Cost:
    """The cost of a kind with `ctas` CTAs resident, linear between the nearest simulated occupancies."""
    simulated = sorted(k for c, k, a in costs if c == kind and a == alone)
    above = min(k for k in simulated if k >= ctas)
    below = max(k for k in simulated if k <= ctas)
    if above == below:
        return costs[kind, ctas, alone]
    t = (ctas - below) / (above - below)
    low, high = costs[kind, below, alone], costs[kind, above, alone]
    return _Cost(low.base + t * (high.base - low.base), low.slopes + t * (high.slopes - low.slopes))


def _representative(
    arch: Arch,
    plan: _KernelPlan,
    tile: FoldedTile,
    setting: tuple[int, float, float],
    clock_hz: float,
    event_budget: int,
    shares: Mapping[str, MissShares],
    names: Sequence[str],
) -> _Run:
    """One SM running the folded tile in `ctas` CTA slots at once, once and then `1 + _rounds` times in a row with
    `share` of the chip's bandwidth, and once with `first_share` (unless equal), `setting = (ctas, first_share,
    share)`: the cost vector (time to the first tiles' end after the launch at `first_share`, time of a further
    tile, metrics per tile), the ops run and the bandwidth used. A further tile takes at least the time the chip's
    HBM and L2 need to serve its bytes at `share` (its write-backs load HBM though no access waits for them)."""
    ctas, first_share, share = setting
    roles = tuple(
        Role(role.name, role.warps, _constant(program))
        for role, program in zip(plan.kernel.roles, tile.marked, strict=True)
    )

    def run(rounds: int, bandwidth_share: float) -> RunStats:
        kernel = replace(plan.kernel, tiles=range(ctas * rounds), roles=roles)
        engine = Engine(
            arch,
            clock_hz,
            None,
            event_budget,
            sms=1,
            miss_shares=shares,
            max_ctas_per_sm=ctas,
            bandwidth_share=bandwidth_share,
        )
        return engine.run([kernel])

    more = _rounds(tile, shares, ctas)
    once, later = run(1, share), run(1 + more, share)
    first = once if first_share == share else run(1, first_share)
    launch = arch.kernel_launch_s * clock_hz
    served = max(later.units[unit].busy_cycles - once.units[unit].busy_cycles for unit in ("hbm", "l2"))
    period = max(later.cycles - once.cycles, served) / more
    metrics = (_metrics(later, names) - _metrics(once, names)) / (ctas * more)
    vector = np.concatenate(([first.cycles - launch, period], metrics))
    ops = once.ops + later.ops + (first.ops if first is not once else 0)
    return _Run(vector, ops, _demand(arch, clock_hz, once, later))


def _rounds(tile: FoldedTile, shares: Mapping[str, MissShares], ctas: int) -> int:
    """Further rounds to average a round's time over: enough that each tensor's misses, spread evenly over its
    accesses (`simgpu.units.fluid_l2`), come out at their share (one whole cycle of the rarest), at most
    `MAX_ROUNDS`. A single round would hold the rarest misses once or not at all."""
    accessed: dict[tuple[str, int], int] = {}
    for op in tile.accesses:
        kind = 0 if isinstance(op, Load) else 2 if op.atomic else 1
        accessed[op.tensor, kind] = accessed.get((op.tensor, kind), 0) + 1
    per_round = [
        ctas * count * miss.kinds(False)[kind]
        for (tensor, kind), count in accessed.items()
        if (miss := shares.get(tensor)) is not None and 0 < miss.kinds(False)[kind] < 1
    ]
    return min(MAX_ROUNDS, max(1, math.ceil(1 / min(per_round)))) if per_round else 1


def _busy_shares(sms: int, demand: float) -> tuple[float, float]:
    """An SM's bandwidth share while every SM is busy: for the first tiles, which start together and queue for the
    same loads, an equal share; for further tiles, which the queue has staggered, what the other SMs leave (each
    uses `demand` of the chip's bandwidth when alone; a processor-sharing server), but at least an equal share."""
    equal = 1.0 / sms
    return equal, max(equal, 1.0 - (sms - 1) * demand)


def _demand(arch: Arch, clock_hz: float, once: RunStats, later: RunStats) -> float:
    """The share of the chip's HBM or L2 bandwidth (the larger) that the further rounds of `later` used."""
    period = later.cycles - once.cycles
    if period <= 0:
        return 0.0
    hbm = (later.units["hbm"].amount - once.units["hbm"].amount) / arch.hbm_bytes_per_cycle(clock_hz)
    l2 = (later.units["l2"].amount - once.units["l2"].amount) / arch.l2_bytes_per_cycle(clock_hz)
    return max(hbm, l2) / period


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

"""Fast mode's class costs: what a tile of each kind costs, from one SM running the kind's representative.

One SM runs the representative with 1, 2 and `fit` CTAs resident (other counts interpolated; no more than the first wave
puts on an SM, `filled_slots`), once and twice in a row, alone (all of the chip's HBM and L2 bandwidth) and with every
SM busy (that the kernel can fill: no more than its tiles): the time to a slot's first tile, per further tile, and the
per-tile busy cycles and bytes. In a kernel of unequal tiles (more than one cost class) the further tiles are timed with
the SM's slots started a round's 1 / CTAs apart, as the list schedule hands them tiles at unrelated times; a kernel of
one class keeps them in step, as its CTAs start and end together. With every SM busy, an SM gets what the other SMs
leave of the bandwidth (processor sharing: each uses what it used alone), at least an equal share, except for the
requests it makes before any of its data came back: every busy SM queues its first copies at once, and those are served
at an equal share (the burst of `simgpu.units.fluid_l2`). Before the thirty-first session a slot's first tiles took an
equal share throughout, which on a whole chip (1/128 or so) stretched each of their copies where the chip's HBM and L2
were mostly idle: FA3's forward on the whole H100 came out 5.0% slower than exact mode,
`docs/results/fast_vs_exact_whole_31/`. A further tile gains from processor sharing: while an SM's copies are not in
flight (its issue, its products) the busy SMs use its share, so it takes less than with every SM busy, down to its time
alone and the bytes at an equal share (HBM-bound GEMMs whose 2-stage ring leaves the share idle while the next copy is
issued), but by no more than the extra service its bytes took at the busy shares: the rest of what the busy run adds is
the loaded HBM's latency, which the busy chip's misses wait out whatever the sharing (before the fifty-first session the
whole difference was given back, and v3's forward at N = 512 on the whole H200 came out 3-7% faster than exact mode,
`docs/results/shared_period_51/`). L2 hits come from the replay's miss shares (`simgpu.units.fluid_l2`); a further
tile's time is averaged over enough rounds to hold its share of misses, and is at least the time HBM and L2 take to
serve its bytes at the SM's share. Where the busiest unit's work per round exceeds the rounds' period (short CTAs, many
per SM: the next round's work ran beside the first round's tail), a slot's first tile ends on the line of that work
through the longest run, and a slot's only tile takes the rest, its tail. A removed iteration's cost is fitted from runs
of the fit variants (`simgpu.fold`), each keeping `FIT_PERIODS` fold periods more, or more until what they add holds a
whole cycle of each tensor's spread misses (`_fit_variant`). In a kernel of one wave at most (no slot takes a second
tile: v1's one CTA per head), no further tile is run: a removed iteration is fitted from the single round's time, and
the per-tile metrics are that round's. A persistent CTA alone on its SM draws its next tile before its tile ends: the
runs tell how long before (`_claim_leads`), which the list schedule reads. In a kernel of `ALONE_FIT_WAVES` waves or
more the SM alone takes the busy fit's cost of a removed iteration (its own fit variants are not run): only the tail
wave has SMs alone. Where the other SMs' demand alone leaves an SM no more than an equal share (the chip's HBM or L2
saturated), its removed iterations take their idle share back as a further tile does, down to their time alone (the
alone fit runs for them then, in a kernel of many waves or of CTAs in lockstep too, and the tail wave's SMs alone keep
it) and no lower than their bytes at the equal share: the busy fit's fixed share idles while the SM issues, and serves
each of its copies at 1/N of the chip's rate, where exact mode's FCFS HBM and L2 serve each copy whole once the queue
ahead of it drains. Before the fifty-third session, the H100's default GEMM at 4096^3 came out 9.3% slower than exact
mode, and v1 (our kernel's loop) at 8 x 16 x 2048, d = 128, whose 128 CTAs wait on each copy, 51% slower
(`docs/results/saturated_53/`). Below saturation the share the others leave is the processor-sharing share of an SM that
keeps its own pace, and the busy fit stands.

Each kind of tile meets its own miss shares where the replay counted them apart: where the chip starts a head's kinds
in different waves (FA3's LPT order), the kind that starts first takes the first touches (`simgpu.replay.kind_shares`).
Ignored: that co-resident CTAs of different classes slow each other differently from CTAs of one class; that a busy
SM's kind runs beside other kinds (its busy runs take every SM to run its kind: with misses counted per kind, FA3's
LPT order on the H200 at 16 x 16 x 1k, d = 128, takes the longest blocks' first touches beside shorter blocks that
hit, and fast mode stays 3.0% under exact mode's cycles, `docs/results/first_touch_57/`); which CTA of a kind takes
the misses of a tile many CTAs read (fast mode spreads a tensor's misses evenly over a kind: where exact mode's first
readers take them behind their prefetch, the spread misses wait out the loaded HBM latency in every tile, and v2's
causal forward on the whole H200 at 16 x 16 x 1024, d = 128, comes out 3.5% slower than exact mode, 0.5% before the
busy runs kept that latency); that a loop whose demand alone saturates the chip may, waiting on its copies, hold it
below saturation in exact mode (FA1's split forward on the A100 at 8 x 32 x 2048, d = 64: exact mode's HBM 72% busy;
given the share back, fast mode went from 0.969 to 0.860 of exact mode, `docs/results/saturated_53/`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

import numpy as np

from simgpu.arch import Arch
from simgpu.engine import Engine, RunStats, estimated_ops
from simgpu.fast_plan import KernelPlan, solve_removed
from simgpu.fold import FoldedTile
from simgpu.kernel import Kernel, with_programs
from simgpu.ops import Delay, Load, Op, Store
from simgpu.replay import kind_shares
from simgpu.units.fluid_l2 import MissShares

TIMES = 3  # the times that begin a cost vector: a slot's first tile, a further tile, a lone first tile's tail (`Cost`)
# The times that end a cost vector: how long before a slot's first tile, and before a further one, ends its CTA draws
# its next tile from a persistent kernel's queue (`_claim_leads`; 0: as it ends).
CLAIMS = 2
MAX_ROUNDS = 4  # further rounds a representative SM runs at most, to average its spread misses over
# ... or more, up to a whole cycle of the rarest misses, where those rounds simulate at most this many ops. A tensor
# missed on every k-th access whose further rounds hold part of a cycle holds one miss or none there: the H100's
# S = QK^T on 10 SMs (Q and K each missed on every 12th access, 2 CTAs an SM: a cycle in 6 rounds, 4 run) timed a miss
# of each where 2/3 were owed, +1.66% against exact mode, +0.85% with the cycle (`docs/results/rounds_47/`). Six
# rounds for every kernel cost 16% more ops over the speed benchmark; bounded by ops, only standard attention's
# one-GEMM and row tiles take more rounds (1.5% more ops in all; at 16k tokens 1.4-1.8x its 2-4 thousand).
ROUNDS_OPS = 256
# Waves of a kernel (tiles over the slots of the SMs that share it) from which a removed iteration's cost with the SM
# alone is the one fitted with every SM busy: only the tail wave, a small part of such a kernel, has SMs alone, and
# the fit variants run alone cost as many ops as the busy ones (at least as slow busy: a bound on the tail). Over the
# fast-vs-exact grids, 2,045 random problems and the H200 validation no case moved by more than 0.3%, where the
# speed benchmark's v2, v3 and v4 cases took 0.875x the CPU time (median; 0.63-1.32x)
# (`docs/results/alone_fit_48/`).
ALONE_FIT_WAVES = 4
# Fold periods a fit variant keeps more than the base (fewer where fewer were removed). Where co-resident CTAs
# contend for pipes their phases wander from one iteration to the next, and a removed iteration's cost fitted from
# one period more carries that wander: v2's d = 128 forward on the fast-vs-exact grid's tail-wave shape came out
# 1.5-1.9% fast with one period, within 1% with two (`docs/results/fit_periods.txt`).
FIT_PERIODS = 2


@dataclass(frozen=True)
class Cost:
    """What a tile of a class costs, as a vector: time to the end of a slot's first tile, time of each further
    tile, the tail by which a slot's first tile outlasts the first time where no further tile follows it (`TIMES`
    times), then the additive metrics (busy cycles, bytes, ops). `base` is the folded tile's; the rows of `slopes`
    are the cost of one removed top-level iteration and of one nested iteration of each kind
    (`FoldedTile.executed`). `ctas` tiles run at once; `bounds` are the positions of the per-tile busy cycles of
    the SM's units (`bounds[0]`) and of its HBM and L2 share (`bounds[1]`), as index arrays (`of` runs per class
    and setting: with tuples of positions made into index arrays at each call it took 5.8-6.2 us, with the arrays
    made once 4.6 us, `docs/results/lines_62/fixed_costs.txt`)."""

    base: np.ndarray
    slopes: np.ndarray
    ctas: float
    bounds: tuple[np.ndarray, np.ndarray]

    def of(self, removed: Sequence[int]) -> np.ndarray:
        """The cost with `removed` iterations added back. A round of `ctas` tiles takes at least what its busiest
        unit is busy for: a linear fit from folds whose start-up hides a little less behind longer loops (a tile's
        store behind its MMAs) would otherwise extrapolate a removed iteration below its own work. The HBM share's
        busy cycles bound further tiles only: they include write-backs that a slot's first tiles do not wait for."""
        cost: np.ndarray = self.base + np.asarray(removed, dtype=float) @ self.slopes
        units, shared = self.bounds
        floor = self.ctas * float(cost[units].max())
        cost[0] = max(cost[0], floor)
        cost[1] = max(cost[1], floor, self.ctas * float(cost[shared].max()))
        return cost


class _Runnable:
    """A kernel's folded tiles as kernels of their own (`with_programs`), each cut to a number of tiles, made once
    per `class_costs` call: its representative runs take each folded tile at every occupancy, alone and busy, once
    and over further rounds, and each run made its kernel anew, a `with_programs` and a `dataclasses.replace`
    (Python functions: 5.7 and 3.5 us, `docs/results/lines_62/fixed_costs.txt`), for each of the 140 runs of v3's
    backward at 16k tokens. A plain class, never changed but for its memo; the memo keeps each tile it was asked for
    alive, so that the tile's `id` keys it alone."""

    __slots__ = ("kernel", "made")

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.made: dict[tuple[int, int], tuple[FoldedTile, Kernel]] = {}

    def of(self, tile: FoldedTile, count: int) -> Kernel:
        """The kernel running `tile`'s programs over `count` tiles (0: over the kernel's own)."""
        key = (id(tile), count)
        known = self.made.get(key)
        if known is not None:
            return known[1]
        made = with_programs(self.kernel, tile.marked) if count == 0 else replace(self.of(tile, 0), tiles=range(count))
        self.made[key] = (tile, made)
        return made


@dataclass(frozen=True)
class _Run:
    """A representative SM's run: the cost vector (`Cost`), the ops simulated, and the share of the chip's HBM or
    L2 bandwidth that it used."""

    vector: np.ndarray
    ops: int
    demand: float


def class_costs(
    arch: Arch,
    plan: KernelPlan,
    clock_hz: float,
    event_budget: int,
    by_kind: Mapping[str, MissShares],
    names: Sequence[str],
    sharers: int | None = None,
) -> tuple[dict[int, tuple[Cost, ...]], int]:
    """Per kind of tiles (`KernelPlan.kinds`), per number of CTAs at once on an SM (1 to the slots its tiles fill,
    `filled_slots`) and per bandwidth share (`sharers` SMs busy, by default all of them, or this SM alone): simulate
    the kind's representative (the tile with the most iterations removed) in that many slots of one SM, at the base
    fold and at each fit variant of the kernel, at the miss shares of its kind (`by_kind`: the replay's, which count
    each kind's misses apart where it labelled them, `simgpu.replay.kind_shares`). Returns the costs, in the order
    (1 CTA, all busy), (1 CTA, alone), (2 CTAs, all busy)..., and the ops simulated."""
    slots = filled_slots(plan.fit, len(plan.kernel.tiles), arch.sms)
    representatives = {kind: plan.representative(kind) for kind in dict.fromkeys(plan.kinds)}
    # Tiles of unequal cost reach their SMs at unrelated times (`Cost` classes: a kind and its removed iterations).
    spread = len(set(zip(plan.kinds, plan.removed, strict=True))) > 1
    # No slot takes a second tile (one wave at most): a further tile's time is never asked for (`_representative`).
    single = len(plan.kernel.tiles) <= slots * arch.sms
    # Alike tiles, one to an SM of the sharers, start together and end together: every SM stays busy until the end,
    # so the schedule reads no time of an SM alone (`simgpu.fast_schedule._at_weight` at weight 1), and the fit
    # variants run alone go unread unless the chip is saturated (below). The base run alone still sets the busy SMs'
    # shares. (v1's one CTA per head: 4 of its 10 runs.)
    lockstep = single and not spread and len(plan.kernel.tiles) == (sharers or arch.sms)
    # The ops of the kernel's costliest kind of tile: all kinds take as many further rounds at most (`ROUNDS_OPS`),
    # so that a kind's cost is not averaged over a whole cycle of its misses where another's is cut short.
    kernels = _Runnable(plan.kernel)
    tile_ops = max(estimated_ops(kernels.of(rep, 1)) for rep in representatives.values())
    bounds = (
        np.array([TIMES + n for n, name in enumerate(names) if name.startswith("busy:")], dtype=np.intp),
        np.array([TIMES + n for n, name in enumerate(names) if name.startswith("served:")], dtype=np.intp),
    )
    simulated_costs: dict[tuple[int, int, bool], Cost] = {}
    # Many waves: the busy runs' fit stands for the SM alone too (`ALONE_FIT_WAVES`).
    borrowed = len(plan.kernel.tiles) >= ALONE_FIT_WAVES * slots * (sharers or arch.sms)
    ops = 0
    for kind, base in representatives.items():
        shares = kind_shares(by_kind, kind)  # the kind's own misses, where the replay counted them apart
        variants = [_fit_variant(base, side, plan.spec.period, shares) for side in plan.sides]
        added = [[now - before for now, before in zip(v.executed, base.executed, strict=True)] for v in variants]
        fitted = any(any(row) for row in added)  # classes whose loops are too short to fold need no fit
        demand: dict[int, float] = {}
        one_deltas: dict[bool, list[np.ndarray]] = {}  # one CTA's variants over its base, alone and busy
        # Alone first: its bandwidth demand sets the share that the busy SMs leave one another.
        for ctas, alone in itertools.product(_occupancies(slots), (True, False)):
            busy = sharers or arch.sms
            burst, share, _ = (1.0, 1.0, False) if alone else _busy_shares(busy, demand[ctas])
            # Alone, the SM makes all the chip's HBM traffic; with every SM busy, one busy SM's share of it.
            traffic = 1.0 if alone else 1.0 / busy
            setting = (ctas, burst, share, traffic, max(MAX_ROUNDS, int(ROUNDS_OPS // max(1.0, ctas * tile_ops))))
            run = _representative(arch, kernels, base, setting, clock_hz, event_budget, shares, names, spread, single)
            demand.setdefault(ctas, run.demand)
            ops += run.ops
            slopes = np.zeros((len(base.executed), len(run.vector)))
            # Whether the other SMs' demand alone saturates the chip (known once the alone run set `demand`).
            saturated = _busy_shares(busy, demand[ctas])[2]
            # The alone fit is read by a kernel's tail wave, and by the busy fit of a saturated chip (below).
            alone_read = (not lockstep and not borrowed) or saturated
            if fitted and (alone_read or not alone):
                deltas = []
                for variant in variants:
                    more = _representative(
                        arch,
                        kernels,
                        variant,
                        setting,
                        clock_hz,
                        event_budget,
                        shares,
                        names,
                        spread,
                        single,
                    )
                    ops += more.ops
                    deltas.append(more.vector - run.vector)
                if ctas == 1:
                    one_deltas[alone] = deltas
                elif alone in one_deltas:
                    deltas = _within_serial(deltas, one_deltas[alone], ctas)
                slopes = solve_removed(added, deltas)
                slopes[:, -CLAIMS:] = 0.0  # a removed iteration lies before the tile's last ones, which claim
                # A removed iteration lies past the start-up burst: it costs a slot's first tile what it costs a
                # further one, and nothing of the first round's tail; and no less than its SM's share of HBM and L2
                # takes to serve its bytes (a variant's last write-backs are booked after its end, not waited for).
                served = slopes[:, bounds[1]].max(axis=1) * ctas
                slopes[:, 1] = np.maximum(slopes[:, 1], served)
                slopes[:, 0] = slopes[:, 1]
                slopes[:, 2] = 0.0
            vector = run.vector
            if not alone:
                # Processor sharing: while this SM's copies are not in flight (its issue, its products) the busy SMs
                # use its share, which gives a further tile back at most what the shares cost its bytes (their
                # service at the busy shares over alone), down to its time alone; its bytes at an equal share bound
                # it still (`Cost.of`). The rest of what the busy run adds is the loaded HBM's latency
                # (`simgpu.units.hbm`), which every SM's misses wait out while the chip is busy.
                vector = _shared_period(vector, simulated_costs[kind, ctas, True].base, bounds[1], ctas)
                if fitted and saturated:
                    # A saturated chip: the removed iterations, most of a long tile, take their idle share back as
                    # the further tile's period does (the module's docstring).
                    slopes = _shared_slopes(slopes, simulated_costs[kind, ctas, True].slopes, bounds[1], ctas)
                elif fitted and alone_read:
                    slopes = _no_faster_than_alone(slopes, simulated_costs[kind, ctas, True].slopes)
            simulated_costs[kind, ctas, alone] = Cost(vector, slopes, ctas, bounds)
            if borrowed and fitted and not alone and not alone_read:
                simulated_costs[kind, ctas, True] = replace(simulated_costs[kind, ctas, True], slopes=slopes)
    costs = {
        kind: tuple(
            _interpolated(simulated_costs, kind, ctas, alone)
            for ctas, alone in itertools.product(range(1, slots + 1), (False, True))
        )
        for kind in representatives
    }
    return costs, ops


def _shared_period(busy: np.ndarray, alone: np.ndarray, served: Sequence[int] | np.ndarray, ctas: int) -> np.ndarray:
    """`busy`'s cost vector with its further tile's time (a round of `ctas` tiles) lowered towards `alone`'s by no
    more than the extra service its HBM and L2 bytes took at the busy shares (positions `served`, per tile)."""
    shares_cost = ctas * float(sum(busy[n] - alone[n] for n in served))
    vector: np.ndarray = busy.copy()
    vector[1] = min(busy[1], max(alone[1], busy[1] - max(0.0, shares_cost)))
    return vector


def _shared_slopes(busy: np.ndarray, alone: np.ndarray, served: Sequence[int] | np.ndarray, ctas: int) -> np.ndarray:
    """`busy`'s removed-iteration costs (rows of `Cost.slopes`) with each one's time lowered towards `alone`'s as
    `_shared_period` lowers a further tile's, and no lower than its bytes take at the busy (equal) share."""
    slopes: np.ndarray = busy.copy()
    for row in range(len(slopes)):
        shared = _shared_period(busy[row], alone[row], served, ctas)[1]
        floor = ctas * float(max(busy[row][n] for n in served))
        slopes[row, 0] = slopes[row, 1] = max(shared, floor)
    return slopes


def _no_faster_than_alone(busy: np.ndarray, alone: np.ndarray) -> np.ndarray:
    """The removed-iteration costs of the SM with every SM busy (rows of `Cost.slopes`), each time at least the
    SM's alone: the other SMs take bandwidth and load the HBM, they give it none. A fit of several CTAs can price an
    iteration below that where its base and its variants fell into other phase lockings of the CTAs (the bound
    below, `_within_serial`, is the other side of the same): v1's causal forward on the H200 at 16 x 32 x 1k, d = 64,
    two CTAs an SM, busy 2,298 cycles an inner step against 2,613 alone, and its fold 0.931 of the same fast mode with
    nothing folded (`docs/results/spread_load_55/two_wave_costs_at_6097f5a.txt`)."""
    slopes: np.ndarray = busy.copy()
    slopes[:, :2] = np.maximum(busy[:, :2], alone[:, :2])
    return slopes


def _within_serial(deltas: list[np.ndarray], ones: list[np.ndarray], ctas: int) -> list[np.ndarray]:
    """The fit variants' costs over their base with `ctas` CTAs on an SM (`deltas`), their times taken down by the
    most that any variant's exceeds `ctas` times what the same variant adds to one CTA (`ones`, where that is
    positive): the tiles' further iterations take no longer than run one after another, and a variant past that
    bound is one whose base fell into a faster phase locking of its CTAs than the variants (the two steady lags of
    `docs/results/rounds_48/basin/`), an offset that every variant's cost over the same base carries. (Ignored: the
    busy runs of one CTA and of several take the SM's bandwidth share in bursts of different sizes,
    `_busy_shares`.) v1's causal forward on the H200 at 16 x 16 x 1k, d = 128, at 1800 MHz, two CTAs per SM: a
    variant of two more inner iterations 4.2 times one CTA's, and its 52 removed iterations made fast mode 1.47x
    exact mode's cycles, 1.16x with the offset taken off (`docs/results/clock_49/serial_bound*.txt`; 1.14x at 1980 MHz,
    where its runs fall into one locking). Bounding only the variant past the bound moves
    the offset into the other loops' slopes (1.30x there); bounding each loop's fitted slope cuts sums that the fit
    splits among the loops otherwise at other occupancies (v1's split forward on the A100, FA2's N = 4k, d = 64, 5
    points further from exact mode)."""
    offset = np.zeros(TIMES)
    for delta, one in zip(deltas, ones, strict=True):
        cap = ctas * one[:TIMES]
        offset = np.maximum(offset, np.where(cap > 0, delta[:TIMES] - cap, 0.0))
    for delta in deltas:  # an offset no variant's own cost can pay is not the base's alone: no variant below 0
        offset = np.minimum(offset, np.maximum(delta[:TIMES], 0.0))
    bounded = []
    for delta in deltas:
        moved: np.ndarray = delta.copy()
        moved[:TIMES] -= offset
        bounded.append(moved)
    return bounded


def folded_tile_ops(kernel: Kernel, tile: FoldedTile) -> float:
    """The unit ops one CTA of `kernel` runs for the folded `tile` (`estimated_ops` of one such tile)."""
    return estimated_ops(_Runnable(kernel).of(tile, 1))


def filled_slots(fit: int, tiles: int, sms: int) -> int:
    """The CTAs an SM holds at most over a kernel of `tiles` tiles with `fit` slots per SM: the first wave goes
    breadth-first across the SMs, so a kernel of fewer tiles than the chip's slots fills ceil(tiles / sms) of each
    SM's (v1's one CTA per head: 64 heads on 132 SMs hold one each). No SM ever runs more, so no more are simulated,
    and the per-tile metrics are those of an SM as full as the kernel fills it."""
    return min(fit, -(-tiles // sms))


def _fit_variant(base: FoldedTile, side: str, period: int, shares: Mapping[str, MissShares]) -> FoldedTile:
    """`base` widened on `side` by `FIT_PERIODS` fold periods, or by more (at most `MAX_ROUNDS` times as many, and all
    the removed iterations) until the accesses it adds hold a whole cycle of each tensor's spread misses: the fluid
    L2 misses a tensor of miss share s on every 1/s-th access (`simgpu.units.fluid_l2`), so a variant whose added
    accesses hold part of a cycle holds a miss or none, and its fit prices a removed iteration at up to twice its share
    of misses, or at none. v2's forward on an H100 with a 33x slower HBM (32 tiles, K and V missing on every 8th
    access): two periods added 4 accesses of each, and a miss of each, and fast mode came out 56% slower than exact
    mode; 14% before the twenty-first session's fit from a single round, whose further rounds had averaged it out."""
    widened = base.widened(side, FIT_PERIODS * period)
    before = _access_counts(base)
    for periods in range(FIT_PERIODS + 1, MAX_ROUNDS * FIT_PERIODS + 1):
        if _holds_miss_cycles(before, widened, shares):
            break
        wider = base.widened(side, periods * period)
        if wider.executed == widened.executed:  # every removed iteration kept
            break
        widened = wider
    return widened


def _access_counts(tile: FoldedTile) -> dict[tuple[str, int], int]:
    """The tile's memory accesses per tensor and kind (`_access_kind`)."""
    counts: dict[tuple[str, int], int] = {}
    for op in tile.accesses:
        key = (op.tensor, _access_kind(op))
        counts[key] = counts.get(key, 0) + 1
    return counts


def _holds_miss_cycles(
    before: Mapping[tuple[str, int], int], widened: FoldedTile, shares: Mapping[str, MissShares]
) -> bool:
    """Whether the accesses `widened` has beyond `before` (its base's `_access_counts`) hold, for each tensor and kind
    of access whose miss share is strictly between 0 and 1, at least one whole cycle of its misses."""
    for (tensor, kind), count in _access_counts(widened).items():
        added = count - before.get((tensor, kind), 0)
        miss = shares.get(tensor)
        if added > 0 and miss is not None and 0 < (share := miss.kinds(False)[kind]) < 1 and added * share < 1:
            return False
    return True


def _access_kind(op: Load | Store) -> int:
    """The kind of a memory access as `MissShares.kinds` orders them: load, store, atomic."""
    return 0 if isinstance(op, Load) else 2 if op.atomic else 1


def _occupancies(fit: int) -> list[int]:
    """The numbers of resident CTAs simulated: 1, 2 and `fit`; the others are interpolated (a simulated SM with
    k CTAs costs k times the ops, and an SM's time grows about linearly in its CTAs once a unit saturates)."""
    return sorted({1, min(2, fit), fit})


def _interpolated(costs: Mapping[tuple[int, int, bool], Cost], kind: int, ctas: int, alone: bool) -> Cost:
    """The cost of a kind with `ctas` CTAs resident, linear between the nearest simulated occupancies."""
    simulated = sorted(k for c, k, a in costs if c == kind and a == alone)
    above = min(k for k in simulated if k >= ctas)
    below = max(k for k in simulated if k <= ctas)
    if above == below:
        return costs[kind, ctas, alone]
    t = (ctas - below) / (above - below)
    low, high = costs[kind, below, alone], costs[kind, above, alone]
    base, slopes = low.base + t * (high.base - low.base), low.slopes + t * (high.slopes - low.slopes)
    return Cost(base, slopes, ctas, low.bounds)


def _representative(
    arch: Arch,
    kernels: _Runnable,
    tile: FoldedTile,
    setting: tuple[int, float, float, float, int],
    clock_hz: float,
    event_budget: int,
    shares: Mapping[str, MissShares],
    names: Sequence[str],
    spread: bool = False,
    single: bool = False,
) -> _Run:
    """One SM running the folded tile in `ctas` CTA slots at once, once and then `1 + _rounds` times in a row (at
    most `most` further rounds) with `share` of the chip's bandwidth, its requests made before any of its data came
    back at `burst` of it, making `traffic` of the chip's HBM traffic, `setting = (ctas, burst, share, traffic,
    most)`: the cost vector (time to the first tiles' end after the launch, time of a further tile, metrics per
    tile), the ops run and the bandwidth used. A further tile takes at least the time the chip's HBM and L2 need to
    serve its bytes at `share` (its write-backs load HBM though no access waits for them). With `spread` (a kernel
    of unequal tiles) the further tiles are timed with the slots started `1 / ctas` of the single round's time
    (launch included) apart (`_staggered`). `kernels`: the kernel's folded tiles as kernels (`_Runnable`)."""
    ctas, burst, share, traffic, most = setting

    def run(rounds: int, bandwidth_share: float, stagger_cycles: float = 0.0) -> RunStats:
        kernel = kernels.of(tile, ctas * rounds)
        if stagger_cycles:
            kernel = _staggered(kernel, tile.marked, ctas, stagger_cycles)
        engine = Engine(
            arch,
            clock_hz,
            None,
            event_budget,
            sms=1,
            miss_shares=shares,
            max_ctas_per_sm=ctas,
            bandwidth_share=bandwidth_share,
            traffic_share=traffic,
            burst_share=burst / bandwidth_share,
        )
        return engine.run([kernel])

    once = run(1, share)
    if single:
        return _single_round(arch, clock_hz, names, ctas, once)
    more = _rounds(tile, shares, ctas, most)
    stagger = once.cycles / ctas if spread and ctas > 1 else 0.0
    start = run(1, share, stagger) if stagger else once
    later = run(1 + more, share, stagger)
    launch = arch.kernel_launch_s * clock_hz
    served = max(later.units[unit].busy_cycles - start.units[unit].busy_cycles for unit in ("hbm", "l2"))
    period = max(later.cycles - start.cycles, served) / more
    metrics = (metric_vector(later, names) - metric_vector(start, names)) / (ctas * more)
    lone_cycles = first_cycles = once.cycles - launch
    # Where the busiest unit's work per round exceeds the rounds' period, the runs had not reached their steady state:
    # the first round's tail (its last loads' latency, its stores) ran beside the next round's work. A slot's first
    # tile that a further one follows then ends where the line of the steady period through the longest run puts it;
    # a slot's only tile takes the tail beside. Not where the further rounds ran with the slots started apart (their
    # period is not that of rounds that follow a first one in step).
    floor = ctas * max(metrics[n] for n, name in enumerate(names) if name.startswith("busy:"))
    if period < floor and start is once:
        first_cycles = max(lone_cycles - more * (floor - period), floor)
    leads = _claim_leads(later, launch + first_cycles, period) if ctas == 1 else (0.0, 0.0)
    vector = np.concatenate(([first_cycles, period, lone_cycles - first_cycles], metrics, leads))
    ops = once.ops + later.ops + (start.ops if start is not once else 0)
    return _Run(vector, ops, _demand(arch, clock_hz, start, later))


def _single_round(arch: Arch, clock_hz: float, names: Sequence[str], ctas: int, once: RunStats) -> _Run:
    """The cost vector of a kernel whose slots take one tile each (one wave at most), from one round (`once`): no
    further tile follows, so the period, which only the fit of a removed iteration reads then (`class_costs`), is the
    round's time, and the per-tile metrics are the round's. A third of the ops of `_representative`'s rounds (v1, a
    CTA per head, is one wave in most of the speed benchmark's cases)."""
    launch = arch.kernel_launch_s * clock_hz
    metrics = metric_vector(once, names) / ctas
    served = max(once.units[unit].busy_cycles for unit in ("hbm", "l2"))
    vector = np.concatenate(([once.cycles - launch, max(once.cycles - launch, served), 0.0], metrics, (0.0, 0.0)))
    return _Run(vector, once.ops, _demand(arch, clock_hz, None, once))


def _claim_leads(later: RunStats, first_end: float, period: float) -> tuple[float, float]:
    """How long before its first tile and before a further one end (at `first_end` and every `period` after, as the
    list schedule times them) a persistent CTA drew its next tile from the queue in the run of several rounds `later`
    (`RunStats.claim_cycles`; one CTA on the SM): the first, and the mean of the further ones (the first's where the
    run held one further tile). A CTA takes its next tile when the first of its roles is done with the current one:
    FA3's producer, once it has issued the tile's last loads, which a tile of few key blocks does as it starts. In a
    kernel of unequal tiles in the order of their work (a causal forward's LPT order), the CTAs holding short tiles
    then draw the next long ones, which the SMs of long tiles would have drawn as they ended: on an H100 cut to 33
    SMs, v3's persistent causal forward at 3 x 3 x 2048 queries over 727 keys, d = 32, took 24,370 cycles in exact
    mode, three long tiles on the SMs that started short ones, and 20,910 in fast mode, which handed tiles out as
    they ended (`docs/results/claims_56/`). No claims (a kernel that is not persistent): 0, as the tiles end."""
    leads = [max(0.0, first_end + round_ * period - claim) for round_, claim in enumerate(later.claim_cycles)]
    if not leads:
        return 0.0, 0.0
    further = leads[1:] or leads[:1]
    return leads[0], sum(further) / len(further)


def _staggered(kernel: Kernel, programs: Sequence[Sequence[Op]], ctas: int, cycles: float) -> Kernel:
    """`kernel` (its roles running `programs`) with the first CTA of slot s of the SM starting s x `cycles` late. The
    engine gives an SM's slots their first tiles in tile order, so tiles 1 to `ctas` - 1 are those CTAs.
    Why: in a kernel of unequal tiles the list schedule hands an SM's slots their tiles at unrelated times, so a
    further tile meets the other CTAs of its SM at spread phases, its start-up (the first loads' latency) beside
    their work; started in step, as the first tiles of a kernel of one class are, the representative's slots would
    wait out their start-ups together (v2's causal forward at 16k tokens: 5-9% slower than exact mode)."""

    def delayed(ops: Sequence[Op]) -> Callable[[Hashable], Sequence[Op]]:
        body = tuple(ops)
        return lambda t: (Delay(cycles * t), *body) if 0 < t < ctas else body  # type: ignore[operator]

    roles = tuple(replace(role, program=delayed(ops)) for role, ops in zip(kernel.roles, programs, strict=True))
    return replace(kernel, roles=roles)


def _rounds(tile: FoldedTile, shares: Mapping[str, MissShares], ctas: int, most: int) -> int:
    """Further rounds to average a round's time over: enough that each tensor's misses, spread evenly over its
    accesses (`simgpu.units.fluid_l2`), come out at their share (one whole cycle of the rarest), at most `most`
    (`class_costs`: `MAX_ROUNDS`, or more where rounds cost few ops). A single round would hold the rarest misses
    once or not at all."""
    accessed = _access_counts(tile)
    per_round = [
        ctas * count * miss.kinds(False)[kind]
        for (tensor, kind), count in accessed.items()
        if (miss := shares.get(tensor)) is not None and 0 < miss.kinds(False)[kind] < 1
    ]
    return min(most, max(1, math.ceil(1 / min(per_round)))) if per_round else 1


def _busy_shares(sms: int, demand: float) -> tuple[float, float, bool]:
    """An SM's bandwidth shares while every SM is busy: for the requests it makes before any of its data came back,
    which every SM makes at once and queues behind the others', an equal share; for the rest, which that queue has
    staggered, what the other SMs leave (each uses `demand` of the chip's bandwidth when alone; a processor-sharing
    server), but at least an equal share; and whether the others leave less than that (the chip saturated)."""
    equal = 1.0 / sms
    left = 1.0 - (sms - 1) * demand
    return equal, max(equal, left), left < equal


def _demand(arch: Arch, clock_hz: float, once: RunStats | None, later: RunStats) -> float:
    """The share of the chip's HBM or L2 bandwidth (the larger) that the further rounds of `later` used (all of
    its rounds where `once` is None)."""
    period = later.cycles - (once.cycles if once is not None else 0.0)
    if period <= 0:
        return 0.0
    hbm = later.units["hbm"].amount - (once.units["hbm"].amount if once is not None else 0.0)
    l2 = later.units["l2"].amount - (once.units["l2"].amount if once is not None else 0.0)
    return max(hbm / arch.hbm_bytes_per_cycle(clock_hz), l2 / arch.l2_bytes_per_cycle(clock_hz)) / period


def metric_names(arch: Arch) -> tuple[str, ...]:
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
        "served:hbm",
        "served:l2",
        "l2_service_bytes",
    )


def metric_vector(stats: RunStats, names: Sequence[str], sms: int = 1) -> np.ndarray:
    """The run's metrics in the order of `names` (`metric_names`), summed over its `sms` SMs."""
    units = stats.units
    values: list[float] = []
    for source, unit in _recipe(tuple(names)):
        if source == _UNIT_BUSY:
            totals = units.get(unit)
            values.append(0.0 if totals is None else totals.busy_cycles)
        elif source == _UNIT_AMOUNT:
            totals = units.get(unit)
            values.append(0.0 if totals is None else totals.amount)
        elif source == _SMEM_READ:
            values.append(stats.smem_read_bytes)
        elif source == _SMEM_WRITE:
            values.append(stats.smem_write_bytes)
        elif source == _TMEM_READ:
            values.append(stats.tmem_read_bytes)
        elif source == _TMEM_WRITE:
            values.append(stats.tmem_write_bytes)
        elif source == _TENSOR_NATIVE:
            values.append(stats.tensor_activity * stats.cycles * sms)
        elif source == _OPS:
            values.append(float(stats.ops))
        elif source == _L2_SERVICE:
            # What the L2 served, as it serves it (a store of parts of sectors as its sector accesses): its busy time.
            values.append(units["l2"].amount)
        else:
            values.append(0.0)
    return np.array(values)


# Where each metric of `metric_vector` comes from: a run's count, a unit's busy cycles (`busy:` and `served:`, the HBM
# and L2 shares' busy cycles, for `Cost.bounds`) or amount served, or nothing (0).
_SMEM_READ, _SMEM_WRITE, _TMEM_READ, _TMEM_WRITE, _TENSOR_NATIVE, _OPS, _L2_SERVICE = range(7)
_UNIT_BUSY, _UNIT_AMOUNT, _NOTHING = 7, 8, 9
_RUN_METRICS: Final = {
    "smem_read": _SMEM_READ,
    "smem_write": _SMEM_WRITE,
    "tmem_read": _TMEM_READ,
    "tmem_write": _TMEM_WRITE,
    "tensor_native": _TENSOR_NATIVE,
    "ops": _OPS,
    "l2_service_bytes": _L2_SERVICE,
}
# The recipes made, by names: one per set of an arch's units (a few), each read per run (`metric_vector` named each
# metric by formatting the units' names anew at every call: 5.4 us a call, 3.0 us by its recipe,
# `docs/results/lines_62/fixed_costs.txt`).
_RECIPES: Final[dict[tuple[str, ...], list[tuple[int, str]]]] = {}


def _recipe(names: tuple[str, ...]) -> list[tuple[int, str]]:
    """Per metric of `names`, where `metric_vector` reads it: (source, unit)."""
    recipe = _RECIPES.get(names)
    if recipe is None:
        recipe = []
        for name in names:
            prefix, _, unit = name.partition(":")
            if prefix in ("busy", "served") and unit:
                recipe.append((_UNIT_BUSY, unit))
            elif prefix == "amount" and unit:
                recipe.append((_UNIT_AMOUNT, unit))
            else:
                recipe.append((_RUN_METRICS.get(name, _NOTHING), ""))
        _RECIPES[names] = recipe
    return recipe

"""Fast mode's shortcuts against the slow paths they replace: the inlined L2 of the replay against the L2 unit
model, the first head's replay standing for all against the heads replayed side by side, the list schedule of one
class walking runs of SMs against the SMs walked one by one, a fast-mode plan reused at a second clock against a
fresh run, and the floor of a class cost."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from itertools import zip_longest
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simgpu.fast_bytes
import simgpu.fast_plan
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.clock import power_limited_clock_hz
from simgpu.engine import DEFAULT_EVENT_BUDGET
from simgpu.fast import plan_fast, run_fast
from simgpu.fast_costs import Cost, _within_serial
from simgpu.fast_plan import plan_kernel
from simgpu.fast_schedule import shared_schedule
from simgpu.fold import FoldSpec, fold_tile, loop_free_accesses, memory_accesses
from simgpu.ops import Load, Repeat, Store
from simgpu.replay import (
    KernelAccesses,
    Record,
    extrapolated_shares,
    head_template,
    keys_of_head,
    records,
    replay,
)
from simgpu.units.hbm import Hbm
from simgpu.units.l2 import L2

KB = 1024


def reference_replay(
    capacity: int,
    kernels: Sequence[KernelAccesses],
    carry: float | None,
    dirty_fraction: float = 1.0,
    write_cost: float = 1.0,
) -> tuple[tuple[float, ...], dict[tuple[int, str, int], float], bool]:
    """The replay's walk through `simgpu.units.l2.L2` (as the replay ran before it inlined its L2), at most
    `dirty_fraction` of the capacity dirty: its bytes (the HBM's busy bytes with a written byte at `write_cost`), the
    HBM reads per kernel, tensor and access kind, and whether a line left L2 or an access bypassed it."""
    hbm = Hbm(1.0, 0.0)
    l2 = L2(capacity, 1.0, 0.0, hbm, dirty_capacity_bytes=capacity * dirty_fraction)
    actions = (l2.load, l2.store, l2.atomic)
    reads: dict[tuple[int, str, int], float] = defaultdict(float)
    evicted = False
    for number, kernel in enumerate(kernels):
        if number and carry is not None:
            evicted = evicted or l2.used_bytes > carry
            l2.shrink(0.0, carry)
        for record in _walk_order(kernel):
            kind, tensor, key, nbytes = record
            before, resident = hbm.read_bytes, set(l2.lines)
            actions[kind % 3](0.0, key, nbytes)
            reads[number, tensor, kind] += hbm.read_bytes - before
            evicted = evicted or nbytes > capacity or not resident <= set(l2.lines)
    timed = hbm.read_bytes + write_cost * hbm.write_bytes
    l2.flush()
    return (hbm.read_bytes, hbm.write_bytes, timed, l2.read_bytes, l2.write_bytes), reads, evicted


def _walk_order(kernel: KernelAccesses) -> list[Record]:
    """The order in which the replay walks a kernel that re-reads nothing: wave by wave, one access from each tile in
    turn, but a tile's trailing stores and atomics (those after its last load) come at the next wave's start, each
    just before the first access of the tile that takes its slot next."""
    order: list[Record] = []
    ending: list[Sequence[Record]] = []
    for start in range(0, len(kernel.accesses) + kernel.slots, kernel.slots):
        wave = kernel.accesses[start : start + kernel.slots]
        cuts = [max((n + 1 for n, record in enumerate(tile) if record[0] % 3 == 0), default=0) for tile in wave]
        for slot in range(max(len(ending), len(wave))):
            order.extend(ending[slot] if slot < len(ending) else ())
            if slot < len(wave) and cuts[slot]:
                order.append(wave[slot][0])
        rounds = zip_longest(*(tile[1:cut] for tile, cut in zip(wave, cuts, strict=True)))
        order.extend(record for group in rounds for record in group if record is not None)
        ending = [tile[cut:] for tile, cut in zip(wave, cuts, strict=True)]
    return order


_ACCESS = st.tuples(st.sampled_from(["load", "store", "atomic"]), st.sampled_from("KVO"), st.integers(0, 5))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    kernels=st.lists(st.lists(st.lists(_ACCESS, max_size=6), min_size=1, max_size=5), min_size=1, max_size=3),
    sizes=st.lists(st.sampled_from([KB, 3 * KB, 8 * KB]), min_size=6, max_size=6),
    capacity=st.sampled_from([0, 2 * KB, 7 * KB, 20 * KB, 10**9]),
    slots=st.integers(1, 3),
    carry=st.sampled_from([None, 0.0, 4 * KB]),
    dirty_fraction=st.sampled_from([1.0, 0.448, 0.3]),
)
def test_replay_moves_the_bytes_the_l2_model_moves(
    kernels: list[list[list[tuple[str, str, int]]]],
    sizes: list[int],
    capacity: int,
    slots: int,
    carry: float | None,
    dirty_fraction: float,
) -> None:
    def op(kind: str, tensor: str, key: int) -> Load | Store:
        nbytes = sizes[key]
        if kind == "load":
            return Load(tensor, key, nbytes)
        return Store(tensor, key, nbytes, atomic=kind == "atomic")

    accesses = [KernelAccesses([records([op(*a) for a in tile]) for tile in tiles], slots) for tiles in kernels]
    arch = load_arch("h100").with_overrides({"l2.max_dirty_fraction": dirty_fraction})
    expected, reads, evicted = reference_replay(capacity, accesses, carry, dirty_fraction, arch.hbm.write_cost_ratio)
    result = replay(arch, accesses, capacity_bytes=capacity, carry_bytes=carry)
    assert result.vector() == expected
    assert result.evicted == evicted
    for (number, tensor, kind), read in reads.items():
        accessed = sum(r[3] for tile in accesses[number].accesses for r in tile if r[1] == tensor and r[0] == kind)
        share = result.shares[number][tensor].kinds(kind >= 3)[kind % 3]
        assert share * accessed == pytest.approx(read)


@pytest.mark.parametrize(
    ("algo", "pass_", "sizes"),
    [
        ("v2", "fwd", (4, 16, 512)),
        ("v2", "bwd", (4, 16, 512)),
        ("v1", "fwd", (4, 16, 512)),
        ("v3", "bwd", (4, 16, 512)),
        ("standard", "bwd", (2, 8, 256)),  # S and P of 64 heads would not fit L2
    ],
)
def test_the_first_head_stands_for_all_when_l2_holds_their_share(
    monkeypatch: pytest.MonkeyPatch, fast_bytes_source: ModuleType, algo: str, pass_: str, sizes: tuple[int, int, int]
) -> None:
    # The heads run side by side fit L2 together: the first head's replay, scaled, is theirs side by side.
    arch = load_arch("h100", {"sms": 32})
    batch, heads, seqlen = sizes
    kernels = schedule(arch, algo, Problem(batch, heads, seqlen, 64, pass_=pass_), {})
    plans = [plan_kernel(arch, kernel) for kernel in kernels]
    asked: list[bool] = []
    own_memory = fast_bytes_source._own_memory
    replayed = fast_bytes_source.replayed_bytes

    def spied(*args: Any) -> bool:
        asked.append(own_memory(*args))
        return asked[-1]

    monkeypatch.setattr(fast_bytes_source, "_own_memory", spied)
    shares, alone = replayed(arch, plans)
    assert asked == [True]  # nothing left the first head's share of L2: the shortcut was taken
    monkeypatch.setattr(fast_bytes_source, "_own_memory", lambda *args: False)
    side_by_side, together = replayed(arch, plans)
    assert alone == pytest.approx(together, rel=1e-12)
    assert shares == side_by_side


def _spy_alike(monkeypatch: pytest.MonkeyPatch, fast_bytes: ModuleType) -> list[tuple[bool, bool]]:
    """Each answer of `_heads_alike` in `fast_bytes`, with whether the first head's replay ran out of L2."""
    alike = fast_bytes._heads_alike
    asked: list[tuple[bool, bool]] = []

    def spied(arch: Any, accesses: Any, alone: Any, concurrent: Any, total: int) -> bool:
        asked.append((alike(arch, accesses, alone, concurrent, total), alone.evicted))
        return asked[-1][0]

    monkeypatch.setattr(fast_bytes, "_heads_alike", spied)
    return asked


@pytest.mark.parametrize(("pass_", "seqlen"), [("fwd", 4096), ("bwd", 2048)])
def test_the_first_head_stands_for_heads_alike_where_their_shares_run_out(
    monkeypatch: pytest.MonkeyPatch, fast_bytes_source: ModuleType, pass_: str, seqlen: int
) -> None:
    # v1's 16 heads run side by side (a CTA each, on 16 SMs), each on its own memory, and overflow their shares of the
    # A100's L2: the first head's replay in its share, scaled, is theirs side by side.
    arch = load_arch("a100", {"sms": 16})
    plans = [plan_kernel(arch, kernel) for kernel in schedule(arch, "v1", Problem(1, 16, seqlen, 64, pass_=pass_), {})]
    asked = _spy_alike(monkeypatch, fast_bytes_source)
    shares, alone = fast_bytes_source.replayed_bytes(arch, plans)
    assert asked == [(True, True)]  # L2 ran out of room in the first head's share, and the shortcut was taken
    monkeypatch.setattr(fast_bytes_source, "_heads_alike", lambda *args: False)
    side_by_side, together = fast_bytes_source.replayed_bytes(arch, plans)
    assert alone == pytest.approx(together, rel=1e-12)
    assert shares == side_by_side


@pytest.mark.parametrize(
    ("overrides", "algo", "sizes"),
    [
        ({"sms": 4, "l2.capacity_bytes": 8 << 20}, "v1", (1, 16, 4096)),  # 16 heads, 8 at once on 4 SMs: waves
        ({"sms": 16, "l2.capacity_bytes": 1 << 20}, "v1", (1, 16, 4096)),  # a 64 KiB share: a few of its lines
        # Three kernels whose heads run side by side: what the next kernel finds depends on a head's place in order.
        ({"l2.capacity_bytes": 8 << 20}, "standard", (1, 4, 1024)),
    ],
)
def test_heads_in_waves_in_small_shares_or_over_kernels_replay_side_by_side(
    monkeypatch: pytest.MonkeyPatch,
    fast_bytes_source: ModuleType,
    overrides: dict[str, object],
    algo: str,
    sizes: tuple[int, int, int],
) -> None:
    arch = load_arch("a100", overrides)
    plans = [plan_kernel(arch, kernel) for kernel in schedule(arch, algo, Problem(*sizes, 64), {})]
    asked = _spy_alike(monkeypatch, fast_bytes_source)
    fast_bytes_source.replayed_bytes(arch, plans)
    assert asked == [(False, True)]


@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    sms=st.integers(1, 40),
    fit=st.integers(1, 5),
    waves=st.floats(0.05, 12.0),
    factors=st.lists(st.floats(0.5, 2.0), min_size=30, max_size=30),
)
def test_the_schedule_of_one_class_walks_runs_of_sms_as_the_sms_walk(
    sms: int, fit: int, waves: float, factors: list[float]
) -> None:
    # Times of one class: more CTAs take longer, every SM busy more than alone; a first tile, a further one and the
    # first tile's tail where no further tile follows.
    times = np.zeros((1, fit, 2, 3))
    for k in range(fit):
        times[0, k] = 100.0 * (1 + k) * np.reshape(factors[6 * (k % 5) : 6 * (k % 5) + 6], (2, 3))
    tiles = np.zeros(max(1, round(waves * sms * fit)), dtype=int)
    # The same class twice over takes the schedule's general path, SM by SM.
    general = shared_schedule(sms, fit, np.concatenate([times, times]), tiles)
    assert shared_schedule(sms, fit, times, tiles) == pytest.approx(general, rel=1e-12)


def test_a_fast_plan_reused_at_another_clock_gives_a_fresh_runs_answer() -> None:
    # The H200's power-limited clock re-times a fast-mode run: its folds and L2 replay are the first run's.
    arch = load_arch("h200", {"sms": 8})
    kernels = schedule(arch, "v3", Problem(2, 2, 1024, 128), {})
    planned = plan_fast(arch, kernels)
    first = run_fast(arch, kernels, arch.clock_hz, DEFAULT_EVENT_BUDGET, planned)
    lowered = power_limited_clock_hz(arch, first.tensor_activity)
    assert lowered < arch.clock_hz
    again = run_fast(arch, kernels, lowered, DEFAULT_EVENT_BUDGET, planned)
    assert again == run_fast(arch, kernels, lowered, DEFAULT_EVENT_BUDGET)
    result = simulate(arch, "v3", Problem(2, 2, 1024, 128))
    assert (result.clock_hz, result.cycles) == (lowered, again.cycles)


def test_a_round_of_tiles_takes_at_least_its_busiest_units_time() -> None:
    # Vector: first tile, further tile, a lone first tile's tail, then busy cycles of two SM units and the HBM
    # share, per tile. Two CTAs.
    base = np.array([100.0, 90.0, 10.0, 40.0, 30.0, 60.0])
    slopes = np.array([[5.0, 5.0, 0.0, 4.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
    cost = Cost(base, slopes, 2, (np.array([3, 4]), np.array([5])))
    assert list(cost.of((0, 0))) == [100.0, 120.0, 10.0, 40.0, 30.0, 60.0]  # further tiles: 2 x the HBM share's 60
    # 20 removed iterations: 2 x (40 + 80) of the first unit bounds both; the fit's 5 per iteration would give 200.
    assert list(cost.of((20, 0))[:4]) == [240.0, 240.0, 10.0, 120.0]


def test_a_fit_variant_of_k_ctas_past_k_times_one_ctas_takes_every_variant_down_by_its_excess() -> None:
    # Variants' costs over their base: the times first (`TIMES`), then a metric. With one CTA: 10 and 4 cycles more.
    # With two, 35 and 13: the first passes 2 x 10 by 15, an offset of the shared base, so both come down by it, but
    # by no more than the second's own 13 (no variant's cost goes below 0); a time that one CTA's variants do not
    # raise (0) bounds nothing; metrics stay.
    ones = [np.array([10.0, 10.0, 0.0, 1.0]), np.array([4.0, 4.0, 0.0, 1.0])]
    twos = [np.array([35.0, 15.0, 3.0, 9.0]), np.array([13.0, 8.0, 3.0, 9.0])]
    bounded = _within_serial(twos, ones, 2)
    assert [b.tolist() for b in bounded] == [[22.0, 15.0, 3.0, 9.0], [0.0, 8.0, 3.0, 9.0]]
    assert [b.tolist() for b in _within_serial(twos, ones, 4)] == [t.tolist() for t in twos]  # within 4 x one's
    assert twos[0].tolist() == [35.0, 15.0, 3.0, 9.0]  # not changed in place


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("pass_", ["fwd", "bwd"])
def test_folding_v1s_query_loops_keeps_fast_modes_answer(
    monkeypatch: pytest.MonkeyPatch, pass_: str, causal: bool
) -> None:
    # v1 loops over 16-row query steps inside every key block: fast mode folds those nested loops too, by kind
    # (`simgpu.fold`). Against fast mode with them whole: the same answer, and from fewer simulated ops where not
    # causal; causal, at this small size, the fit variants take back all of the gain (forward: 47,280 ops against
    # 43,536 whole; at 3k queries 65,040 against 253,248, where the forward's HBM reads, not causal, differ: the
    # replay samples the query loops; docs/results/burst_31/v1_nested_fold_ops.txt).
    arch = load_arch("h100", {"sms": 8})
    kernels = schedule(arch, "v1", Problem(2, 2, 2048, 64, causal=causal, pass_=pass_), {})
    folded = run_fast(arch, kernels, arch.clock_hz, DEFAULT_EVENT_BUDGET)
    monkeypatch.setattr(simgpu.fast_plan, "FoldSpec", functools.partial(FoldSpec, nested=False))
    whole = run_fast(arch, kernels, arch.clock_hz, DEFAULT_EVENT_BUDGET)
    assert folded.cycles == pytest.approx(whole.cycles, rel=2e-3)
    assert (folded.hbm_read_bytes, folded.hbm_write_bytes) == (whole.hbm_read_bytes, whole.hbm_write_bytes)
    assert causal or folded.ops < whole.ops


@pytest.mark.parametrize(
    ("arch_name", "algo", "seqlen", "causal"), [("b200", "v4", 65536, True), ("h100", "v3", 16384, False)]
)
def test_a_replay_fold_that_leaves_out_iterations_without_memory_ops_walks_the_same_records(
    arch_name: str, algo: str, seqlen: int, causal: bool
) -> None:
    # The replay folds the shapes the plan left unfolded without the loop iterations of the roles that touch no
    # memory there (`simgpu.fast_bytes._bodiless`): the same records and iteration counts as a whole fold, widened
    # or not.
    arch = load_arch(arch_name)
    kernel = schedule(arch, algo, Problem(1, 1, seqlen, 128, causal=causal), {})[0]
    plan = plan_kernel(arch, kernel)
    assert plan.like  # more shapes than the plan folds one by one
    for n, like in list(plan.like.items())[::16]:
        roles = simgpu.fast_bytes._bodiless(kernel, plan.folded[like])
        assert roles
        lean = fold_tile(kernel, plan.sources[n], plan.replay_spec, roles)
        whole = fold_tile(kernel, plan.sources[n], plan.replay_spec)
        for side in ("", "head", "tail"):
            left, right = (
                (lean.widened(side, plan.spec.period), whole.widened(side, plan.spec.period)) if side else (lean, whole)
            )
            assert (left.records, left.removed, left.executed) == (right.records, right.removed, right.executed)


@pytest.mark.parametrize(
    ("algo", "options"),
    [("standard", {}), ("standard", {"framework": "pytorch"}), ("v2", {})],
    ids=["standard-pieces", "pytorch-shared-mask", "v2"],
)
def test_head_templates_that_share_their_cut_wholes_are_each_tiles_own(algo: str, options: dict[str, Any]) -> None:
    # Fast mode asks whether the replayed tiles touch only their head's memory with one set of checked wholes for all
    # of them (`simgpu.fast_bytes._own_memory`), and makes their copies' templates with one set of cut wholes
    # (`_head_copies`). Standard attention's softmax reads S in pieces of row blocks; PyTorch's mask is one tensor
    # every head reads (a key of no head: no template).
    arch = load_arch("h100", {"sms": 8})
    problem = Problem(2, 2, 384, 64, causal=True, pass_="bwd")
    answers = set()
    for kernel in schedule(arch, algo, problem, options):
        plan = plan_kernel(arch, kernel)
        axes = kernel.head_axes
        shapes = [fold_tile(kernel, source, plan.spec) for source in plan.sources]
        for head in {tuple(tile[:axes]) for tile in plan.kernel.tiles}:  # type: ignore[index]
            cuts: dict[Any, Any] = {}
            checked: dict[int, bool] = {}
            for shape in shapes:
                own = head_template(shape.records, axes, head)
                assert head_template(shape.records, axes, head, cuts) == own
                assert keys_of_head(shape.records, axes, head, checked) == (own is not None)
                answers.add(own is not None)
    assert answers == {True, False}


@pytest.mark.parametrize(("arch_name", "algo", "sms"), [("h100", "v2", 3), ("b200", "v4", 3)])
def test_prefix_replays_that_share_folds_and_a_walk_move_the_bytes_of_replays_made_apart(
    arch_name: str, algo: str, sms: int
) -> None:
    # A head replayed by two prefixes (`simgpu.fast_bytes._head_prefix_bytes`) folds its tiles once and walks the
    # kernels before the first whose prefixes differ once (FlashAttention's backward: the preprocessing). Each prefix
    # folded and replayed on its own, from an empty L2, gives the same bytes, and the same miss shares extrapolated
    # from the two. (The cut chip and L2 of `tests/core/test_fast_prefix.py`, where the prefixes apply from 8 tiles.)
    arch = load_arch(arch_name, {"sms": sms, "l2.capacity_bytes": 1_000_000})
    plans = [plan_kernel(arch, kernel) for kernel in schedule(arch, algo, Problem(1, 2, 8192, 128, pass_="bwd"), {})]
    fast_bytes = simgpu.fast_bytes
    known = [fast_bytes._replay_folded(plan) for plan in plans]
    heads = fast_bytes._first_heads(arch, plans, known)
    assert heads is not None
    total, concurrent, _, tiles = heads
    share = tuple(1 / each for each in concurrent)
    prefixes = fast_bytes._head_prefixes(fast_bytes._LongHead(arch, plans, tiles, 8, known, share, total))
    assert prefixes is not None and prefixes.counts[0][0] == prefixes.counts[1][0]  # the first kernel walked once
    shares, shared = fast_bytes._head_prefix_bytes(arch, plans, tiles, prefixes, share, total, known)
    apart, walks = [], []
    for count in prefixes.counts:
        firsts = [ts[:c] for ts, c in zip(tiles, count, strict=True)]
        folded = [
            fast_bytes._head_copies(plan, ts, fast_bytes._replay_folded(plan))
            for plan, ts in zip(plans, firsts, strict=True)
        ]
        replayed = fast_bytes._Replayed(firsts, folded, share, 1 / total)
        accesses = replayed.accesses(arch, plans)
        walks.append(replayed.replay(arch, accesses))
        apart.append(fast_bytes._fold_replay(arch, plans, replayed, fit_done=(accesses, walks[-1])))
    (_, small), (_, large) = apart
    covered = prefixes.covered
    assert shares == extrapolated_shares(*walks, covered)
    extrapolated = (large + (1.0 - covered[1]) * (large - small) / (covered[1] - covered[0])) * total
    assert shared.tolist() == extrapolated.tolist()


@pytest.mark.parametrize(("algo", "pass_"), [("standard", "fwd"), ("standard", "bwd"), ("v2", "bwd")])
def test_loop_free_accesses_are_the_memory_accesses_of_programs_without_loops(algo: str, pass_: str) -> None:
    # The replay tells a loop-free tile's memory ops in one pass over its programs (`simgpu.fold.loop_free_accesses`):
    # those of `memory_accesses`, or None where a program holds a loop.
    arch = load_arch("h100", {"sms": 8})
    answers = set()
    for kernel in schedule(arch, algo, Problem(1, 2, 1024, 64, pass_=pass_), {}):
        for tile in list(kernel.tiles)[:64]:
            programs = [role.program(tile) for role in kernel.roles]
            looped = any(type(op) is Repeat for program in programs for op in program)
            found = loop_free_accesses(programs)
            assert (found is None) == looped
            assert found is None or tuple(found) == memory_accesses(programs)
            answers.add(looped)
    assert answers == {True, False}

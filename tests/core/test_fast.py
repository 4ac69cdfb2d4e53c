"""Fast mode: loop folding, the fluid L2, the replay and the shared schedule as exact stories, then fast against
exact on toy kernels (exactly equal) and on every algorithm (bytes equal, cycles within 1%)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import replace
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simgpu.fast_plan
from experiments.fast_vs_exact import GRID, compare
from simgpu import GemmProblem, Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.arch import Arch
from simgpu.engine import DEFAULT_EVENT_BUDGET, Engine
from simgpu.errors import EventBudgetError, ScheduleError
from simgpu.fast import plan_fast, run_fast
from simgpu.fast_bytes import _first_heads, _replay_folded
from simgpu.fast_costs import (
    ALONE_FIT_WAVES,
    FIT_PERIODS,
    MAX_ROUNDS,
    ROUNDS_OPS,
    TIMES,
    _access_counts,
    _busy_shares,
    _fit_variant,
    _no_faster_than_alone,
    _rounds,
    _shared_period,
    _shared_slopes,
    _staggered,
    class_costs,
    filled_slots,
    folded_tile_ops,
    metric_names,
)
from simgpu.fast_plan import REPLAY_NESTED_PERIODS, grid_prefix, plan_kernel
from simgpu.fast_schedule import _at_weight, shared_schedule
from simgpu.fast_whole import unit_ops
from simgpu.fold import FoldSpec, fold_tile, mark_retouches, outline
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role, TileGrid, with_programs
from simgpu.lru_lines import Lines
from simgpu.ops import Advance, Arrive, Delay, Exp, Fma, Load, Op, Repeat, Store, Wait
from simgpu.replay import KernelAccesses, _rename_oldest, records, rehead, replay
from simgpu.result import BYTE_FIELDS
from simgpu.units.fluid_l2 import FluidL2, MissShares, Retouch
from simgpu.units.hbm import Hbm

MB = 1_000_000


def kernel(roles: Sequence[Role], tiles: Sequence[Hashable] = (0,), barriers: Sequence[BarrierSpec] = ()) -> Kernel:
    threads = 32 * sum(role.warps for role in roles)
    return Kernel("story", tuple(tiles), CtaResources(threads, 32, 0), tuple(roles), tuple(barriers))


def test_folding_keeps_both_ends_in_whole_periods_and_counts_what_it_removed() -> None:
    loop = Role("r", 4, lambda tile: (Fma(1), Repeat(21, lambda i: (Exp(i),))))
    folded = fold_tile(kernel([loop]), 0, FoldSpec(keep=4, period=2))
    # 21 - 2 x 4 = 13 spare iterations: 6 periods of 2 removed, the middle of the loop.
    assert [op.count for op in folded.programs[0] if isinstance(op, Exp)] == [0, 1, 2, 3, 16, 17, 18, 19, 20]
    assert folded.executed == (9, 0, 0, 0) and folded.full == (21, 0, 0, 0) and folded.removed == (12, 0, 0, 0)
    head = fold_tile(kernel([loop]), 0, FoldSpec(keep=4, period=2).variant("head"))
    assert [op.count for op in head.programs[0] if isinstance(op, Exp)] == [0, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20]
    tail = fold_tile(kernel([loop]), 0, FoldSpec(keep=4, period=2).variant("tail"))
    assert [op.count for op in tail.programs[0] if isinstance(op, Exp)] == [0, 1, 2, 3, 14, 15, 16, 17, 18, 19, 20]


def test_every_role_of_a_tile_loses_the_same_iterations() -> None:
    # A producer runs n iterations, its consumer n - 1: a per-loop rule would remove different amounts.
    producer = Role("p", 1, lambda tile: (Repeat(14, lambda i: (Exp(1),)),))
    consumer = Role("c", 1, lambda tile: (Repeat(13, lambda i: (Fma(1),)),))
    folded = fold_tile(kernel([producer, consumer]), 0, FoldSpec(keep=4, period=2))
    assert (len(folded.programs[0]), len(folded.programs[1])) == (14 - 4, 13 - 4)


def test_nested_loops_run_whole_in_the_kept_iterations_of_a_kernel_of_several_roles() -> None:
    nested = Role("r", 4, lambda tile: (Repeat(12, lambda i: (Repeat(10 + i, lambda j: (Fma(1),)),)),))
    other = Role("s", 1, lambda tile: (Repeat(12, lambda i: (Exp(1),)),))
    folded = fold_tile(kernel([nested, other]), 0, FoldSpec(keep=2, period=2))
    kept = [0, 1, 10, 11]  # 12 - 4 = 8 spare iterations: all 8 removed
    assert folded.full == (24, sum(10 + i for i in range(12)), 0, 0)
    assert folded.executed == (8, sum(10 + i for i in kept), 0, 0)
    assert len(folded.programs[0]) == sum(10 + i for i in kept)
    # Without the nested fold (as the L2 replay folds), one role alone keeps its nested loops whole too.
    alone = fold_tile(kernel([nested]), 0, FoldSpec(keep=2, period=2, nested=False))
    assert alone.executed == (4, sum(10 + i for i in kept), 0, 0) and not any(alone.nested_removed)


def test_nested_loops_fold_by_kind_in_a_kernel_of_one_role() -> None:
    # Top-level iteration 0 runs other nested bodies than the middle ones (v1's first key block), iteration 11
    # others again (the last): the middle ones fold alike, the first and the last apart. A nested loop keeps 2
    # iterations at each end, and the first two periods too, which are masked (Exp(2)).
    def body(i: int) -> Sequence[Op]:
        def step(j: int) -> Sequence[Op]:
            return (Fma(1 if 0 < i < 11 else 2 if i == 0 else 3), Exp(2 if j < 4 else 1))

        return (Fma(7), Repeat(20 + i, step))

    story = kernel([Role("r", 4, lambda tile: (Repeat(12, body),))])
    folded = fold_tile(story, 0, FoldSpec(keep=2, period=2))
    kept = [0, 1, 10, 11]
    expected = []
    for i in kept:
        count = 20 + i
        # Whole periods removed from 2 on: what the removal leaves over stays at the end.
        steps = (*range(4), *range(2 + (count - 4) // 2 * 2, count))
        expected += [Fma(7), *(op for j in steps for op in body(i)[1].body(j))]  # type: ignore[union-attr]
    assert list(folded.programs[0]) == expected
    assert folded.nested_removed == (True, True, True)
    assert folded.full == (12, sum(20 + i for i in range(1, 11)), 20, 31)
    assert folded.executed == (4, 7 + 6, 6, 7)
    # One more period in every folded nested loop of a kind: the same as folding with that variant.
    # Each variant widens the loops like the first one's too (they touch first what the others touch again).
    for side, added in (("inner", (0, 4, 2, 0)), ("first", (0, 0, 2, 0)), ("last", (0, 0, 2, 2))):
        widened = folded.widened(side, 2)
        assert widened.programs == fold_tile(story, 0, FoldSpec(keep=2, period=2).variant(side)).programs
        assert widened.executed == tuple(e + a for e, a in zip(folded.executed, added, strict=True))
    head = folded.widened("head", 2)
    assert (head.programs, head.executed) == (lambda f: (f.programs, f.executed))(
        fold_tile(story, 0, FoldSpec(keep=2, period=2, head=1))
    )


def test_the_replay_samples_long_nested_loops_in_runs_that_carry_their_bytes() -> None:
    # Without nested folding, a nested loop of 40 steps keeps 2 at each end (its middle [2, 38): 18 periods of 2).
    # At most 4 periods of the middle built: runs of 5 periods (10 steps) at 2, 12 and 22, one period of each built,
    # its accesses carrying 5 periods' bytes; the steps past the last whole run are built.
    def body(i: int) -> Sequence[Op]:
        return (Load("K", i, 100), Repeat(40, lambda j: (Load("Q", j, 10), Store("O", j, 20))))

    story = kernel([Role("r", 4, lambda tile: (Repeat(12, body),))])
    spec = FoldSpec(keep=2, period=2, nested=False)
    sampled = fold_tile(story, 0, replace(spec, sampled=4))
    whole = fold_tile(story, 0, spec)
    steps = [(j, 1) for j in (0, 1)] + [(j, 5) for start in (2, 12, 22) for j in (start, start + 1)]
    steps += [(j, 1) for j in range(32, 40)]
    first = [Load("K", 0, 100)] + [op for j, w in steps for op in (Load("Q", j, 10 * w), Store("O", j, 20 * w))]
    assert list(sampled.programs[0][: len(first)]) == first
    assert sampled.executed == whole.executed and sampled.full == whole.full
    for tensor in ("K", "Q", "O"):  # the bytes of the whole loops, in a fraction of the accesses
        totals = [sum(r[3] for r in fold.records if r[1] == tensor) for fold in (sampled, whole)]
        assert totals[0] == totals[1]
    assert len(sampled.records) == 4 * (1 + 2 * len(steps)) < len(whole.records) / 2
    # Nested loops whose trip counts differ between top-level iterations (a causal loop starting at the diagonal)
    # are built whole: runs at the same steps would not hold the same keys in every top-level iteration.
    shrinking = kernel([Role("r", 4, lambda tile: (Repeat(12, lambda i: (Repeat(40 - i, body(i)[1].body),)),))])
    assert fold_tile(shrinking, 0, replace(spec, sampled=4)).programs == fold_tile(shrinking, 0, spec).programs


def test_the_replay_samples_a_top_level_loops_middle_in_runs_that_carry_their_bytes() -> None:
    # A loop of 20 iterations keeping 2 at each end: its middle [2, 18) is 8 periods of 2. At most 3 periods built:
    # runs of 3, 3 and 2 periods at 2, 8 and 14, the first period of each built, its accesses carrying the run's
    # bytes; nothing is removed. A loop whose iterations hold a loop folds instead.
    story = kernel([Role("r", 4, lambda tile: (Load("Q", 0, 64), Repeat(20, lambda i: (Load("K", i, 100),))))])
    spec = FoldSpec(keep=2, period=2)
    sampled = fold_tile(story, 0, replace(spec, sampled_top=3))
    weights = [(0, 1), (1, 1), (2, 3), (3, 3), (8, 3), (9, 3), (14, 2), (15, 2), (18, 1), (19, 1)]
    assert sampled.programs[0] == (Load("Q", 0, 64), *(Load("K", i, 100 * w) for i, w in weights))
    assert sampled.executed == sampled.full and sampled.removed[0] == 0
    assert sum(r[3] for r in sampled.records if r[1] == "K") == 20 * 100
    assert fold_tile(story, 0, spec).removed[0] == 16
    nested = kernel([Role("r", 4, lambda tile: (Repeat(20, lambda i: (Repeat(3, lambda j: (Fma(1),)),)),))])
    assert fold_tile(nested, 0, replace(spec, sampled_top=3)).removed[0] == 16


def test_a_sampled_replay_keeps_a_sweep_that_overflows_l2() -> None:
    # v2's backward on an H100 cut to 8 SMs and 2 MB of L2, 2 heads of 8k tokens: each key block sweeps all 64 query
    # blocks' Q, dO and dQ (8 MB a head), so every wave reads them again. Folded, a tile's sweep kept 8 query blocks,
    # which L2 held from wave to wave: HBM reads 42 MB against exact mode's 160 MB.
    # With our CUDA kernel's main kernel every byte count agrees; with FA2's, whose two halves of a CTA the replay
    # interleaves access by access where timing staggers them, the reads do and the writes (dirty lines evicted at
    # wave edges) within 0.05%.
    arch = load_arch("h100", {"sms": 8, "l2.capacity_bytes": 2 * 2**20})
    problem = Problem(1, 2, 8192, 128, pass_="bwd")
    for layout in ("ring", "fa2"):
        options = {"bwd_layout": layout}
        assert plan_kernel(arch, schedule(arch, "v2", problem, options)[1]).sampled_top
        exact, fast = (simulate(arch, "v2", problem, options, mode=mode) for mode in ("exact", "fast"))
        assert fast.hbm_read_bytes == pytest.approx(exact.hbm_read_bytes, abs=0.5)
        if layout == "ring":
            assert all(getattr(fast, name) == pytest.approx(getattr(exact, name), abs=0.5) for name in BYTE_FIELDS)
        else:
            assert fast.hbm_write_bytes == pytest.approx(exact.hbm_write_bytes, rel=5e-4)


def test_sampled_replay_of_v1_keeps_its_bytes_against_exact_mode() -> None:
    # v1 at 4k tokens on an H100 cut to 8 SMs: 256 query steps per key block, sampled in the replay (runs of 2
    # periods). Byte totals stay exact; HBM reads come out 0.25% over exact mode's (a key read whole by the step
    # before a run and written by the run: `docs/results/v1_sampled_replay.txt`); the causal forward is not sampled.
    arch = load_arch("h100", {"sms": 8})
    for causal, reads in ((False, 0.003), (True, 0.0)):
        problem = Problem(1, 2, 4096, 128, causal=causal)
        (forward,) = schedule(arch, "v1", problem, {})
        plan = plan_kernel(arch, forward)
        assert plan.replay_spec.sampled == REPLAY_NESTED_PERIODS
        exact = simulate(arch, "v1", problem, mode="exact")
        fast = simulate(arch, "v1", problem)
        for name in ("l2_read_bytes", "l2_write_bytes", "hbm_write_bytes"):
            assert getattr(fast, name) == pytest.approx(getattr(exact, name), abs=0.5), name
        assert fast.hbm_read_bytes == pytest.approx(exact.hbm_read_bytes, rel=reads, abs=0.5)
        assert fast.cycles == pytest.approx(exact.cycles, rel=0.001)


def test_widening_a_fold_equals_folding_with_one_period_more() -> None:
    nested = Role("r", 4, lambda tile: (Fma(1), Repeat(30, lambda i: (Exp(i), Repeat(i % 3, lambda j: (Fma(j),))))))
    other = Role("s", 1, lambda tile: (Repeat(31, lambda i: (Load("K", (tile, i), 64),)),))
    story = kernel([nested, other])
    spec = FoldSpec(keep=4, period=2)
    base = fold_tile(story, 0, spec)
    for side in ("head", "tail"):
        widened, folded = base.widened(side, 2), fold_tile(story, 0, spec.variant(side))
        assert (widened.programs, widened.executed, widened.full) == (folded.programs, folded.executed, folded.full)
        assert widened.cut == folded.cut and [len(g) for g in widened.gaps] == [len(g) for g in folded.gaps]
    short = fold_tile(kernel([Role("r", 4, lambda tile: (Repeat(5, lambda i: (Exp(i),)),))]), 0, spec)
    assert short.widened("head", 2) is short  # nothing removed: nothing to widen


def test_widening_by_several_periods_keeps_them_all_and_never_more_than_were_removed() -> None:
    story = kernel([Role("r", 4, lambda tile: (Fma(1), Repeat(14, lambda i: (Exp(i + 1), Fma(i + 1)))))])
    spec = FoldSpec(keep=4, period=2)
    base = fold_tile(story, 0, spec)
    assert base.removed[0] == 6 and base.executed[0] == 8
    two = base.widened("head", 4)  # `simgpu.fast_costs.FIT_PERIODS` = 2 periods
    assert two.programs == base.widened("head", 2).widened("head", 2).programs
    assert (two.executed[0], two.cut) == (12, (8, 2))
    for side in ("head", "tail"):
        whole = base.widened(side, 8)  # more than the 6 removed: the tile unfolded, not a repeated iteration
        assert whole.programs == fold_tile(story, 0, FoldSpec(keep=7, period=1)).programs
        assert whole.executed[0] == whole.full[0] == 14 and whole.cut[1] == 0


def test_outlines_group_tiles_that_fold_alike() -> None:
    # A causal-like loop of tile + 10 iterations whose last one is masked: tiles of one parity fold alike.
    def program(tile: Hashable) -> Sequence[Op]:
        count = int(tile) + 10  # type: ignore[call-overload]
        return (Fma(1), Repeat(count, lambda i: (Exp(1 if i < count - 1 else 2),)))

    role = Role("r", 4, program)
    story = kernel([role], tiles=range(200))
    spec = FoldSpec(keep=4, period=2)
    outlines = [outline(story, t, spec) for t in (0, 2, 4, 1)]
    assert outlines[0].key == outlines[1].key == outlines[2].key != outlines[3].key
    assert [o.full - o.executed for o in outlines] == [fold_tile(story, t, spec).removed[0] for t in (0, 2, 4, 1)]
    # More shapes than are folded one by one: the plan groups them and gets every kind and removal right.
    plan = plan_kernel(load_arch("h100"), story)
    folded = [fold_tile(story, t, spec) for t in range(200)]
    assert len(plan.folded) < 10
    assert plan.removed == tuple(f.removed for f in folded)
    numbers: dict[object, int] = {}
    assert plan.kinds == tuple(numbers.setdefault(f.signature(), len(numbers)) for f in folded)


@pytest.mark.parametrize(
    ("algo", "problem", "options"),
    [
        ("standard", Problem(1, 2, 1000, 64), {}),
        ("standard", Problem(1, 2, 1024, 64), {}),
        ("standard", Problem(1, 2, 4000, 64), {}),
        ("standard", Problem(1, 2, 8000, 64), {}),
        ("v2", Problem(1, 2, 3000, 64, pass_="bwd"), {"bwd_layout": "fa2"}),
        ("v2", Problem(1, 2, 3000, 64, seqlen_k=2000, pass_="bwd"), {"bwd_layout": "ring"}),
        ("v3", Problem(1, 2, 3000, 128, seqlen_k=2500, pass_="bwd"), {}),
        ("v2", Problem(1, 2, 3000, 64, seqlen_k=2500), {}),
        ("v3", Problem(1, 2, 3000, 128, seqlen_k=2500), {"pingpong": False, "intra_wg_overlap": False}),
        ("v3", Problem(1, 2, 3000, 64), {"warp_specialization": False, "persistent": True}),
        ("v4", Problem(1, 2, 2900, 128), {}),
        ("v4", Problem(1, 2, 3000, 128, seqlen_k=2500, pass_="bwd"), {}),
        ("v4", Problem(1, 2, 3000, 64, pass_="bwd"), {"two_cta": True}),
    ],
)
def test_tiles_alike_but_at_the_edges_fold_one_of_each_form_and_plan_as_every_tile_folded(
    algo: str, problem: Problem, options: dict[str, str]
) -> None:
    # Standard attention's kernels: 1000 tokens leave a short last block of queries and of keys (unequal tiles, run
    # whole); 4000 and 8000 too, too many to run whole, with few and with too many accesses to replay unfolded.
    # FlashAttention (v2, v3), forward and backward: a short last key block and Q block, the main kernels' loops folded.
    # v4 (on the B200): a forward work item of one short Q tile (23 Q tiles), a backward with a short key block, in
    # 1-CTA and 2-CTA form (a pair's CTAs add into halves of dQ by their key block's parity).
    arch = load_arch("b200" if algo == "v4" else "h100")
    kernels = schedule(arch, algo, problem, options)
    assert all(k.alike_but_edges for k in kernels)
    for alike in kernels:
        plan = plan_kernel(arch, alike)
        every = plan_kernel(arch, replace(alike, alike_but_edges=False))
        assert len(plan.folded) == 2 ** (len(alike.tiles.shape) - alike.head_axes)  # type: ignore[attr-defined]
        assert len(every.folded) == len(every.sources) > len(plan.folded)
        assert (plan.kinds, plan.removed) == (every.kinds, every.removed)
        settings = ("whole", "replay_unfolded", "sides", "replay_sides", "sampled_top", "nested")
        assert [getattr(plan, name) for name in settings] == [getattr(every, name) for name in settings]
        ours, theirs = plan.representative(0), every.representative(0)
        assert (ours.programs, ours.executed, ours.full) == (theirs.programs, theirs.executed, theirs.full)
        assert set(plan.like) | set(plan.folded) == set(range(len(plan.sources)))
    # The whole prediction is the same, bit for bit.
    unmarked = tuple(replace(k, alike_but_edges=False) for k in kernels)
    assert run_fast(arch, kernels, arch.clock_hz, DEFAULT_EVENT_BUDGET) == run_fast(
        arch, unmarked, arch.clock_hz, DEFAULT_EVENT_BUDGET
    )


def test_tiles_wrongly_declared_alike_are_refused_by_the_plan() -> None:
    # A causal forward's Q blocks mask by their index: declared alike, the plan finds its last interior tile unlike
    # its first (8 Q blocks at 1,024 tokens: tiles 0 and 6 of the interior form) and refuses.
    arch = load_arch("h100")
    (kernel,) = schedule(arch, "v2", Problem(1, 2, 1024, 64, causal=True), {})
    assert not kernel.alike_but_edges
    with pytest.raises(ScheduleError, match="alike_but_edges"):
        plan_kernel(arch, replace(kernel, alike_but_edges=True))


def test_rehead_moves_keys_to_another_head_or_refuses() -> None:
    tile_records = records([Load("K", (0, 1, 5), 64), Store("O", (0, 1, 2), 32)])
    assert rehead(tile_records, 2, (0, 1), (3, 0)) == records([Load("K", (3, 0, 5), 64), Store("O", (3, 0, 2), 32)])
    assert rehead(records([Load("K", "shared", 64)]), 2, (0, 1), (3, 0)) is None


def test_grid_prefix_is_the_grids_first_tiles() -> None:
    grid = TileGrid((2, 3, 4))
    assert grid_prefix(grid, 17) == [grid[n] for n in range(17)]


def test_signature_ignores_tile_keys_only() -> None:
    def role(tensor: str, nbytes: int) -> Role:
        return Role("r", 4, lambda tile: (Load(tensor, tile, nbytes),))

    spec = FoldSpec(keep=4, period=2)
    a, b = fold_tile(kernel([role("K", 64)]), (0, 0), spec), fold_tile(kernel([role("K", 64)]), (3, 5), spec)
    assert a.signature() == b.signature()
    assert a.signature() != fold_tile(kernel([role("V", 64)]), 0, spec).signature()
    assert a.signature() != fold_tile(kernel([role("K", 128)]), 0, spec).signature()


def test_fluid_l2_spreads_a_tensors_misses_evenly_over_its_accesses() -> None:
    hbm = Hbm(100.0, 500.0)
    l2 = FluidL2(1000.0, 200.0, hbm, {"K": MissShares(load=0.25), "Q": MissShares(load=1.0)})
    # A quarter of K's loads miss: the second of every four (the misses owed reach one half at the second).
    ready = [l2.load(0.0, ("K", n), 1000).ready for n in range(8)]
    l2_done = [1 + n for n in range(8)]  # 1,000 B at 1000 B/cycle each, in FIFO order
    assert ready[0] == l2_done[0] + 200  # a hit: L2, then a hit's latency
    assert ready[1] == 1000 / 100 + 500  # a miss: its bytes from HBM (100 B/cycle), then a miss's latency
    assert [r == d + 200 for r, d in zip(ready, l2_done, strict=True)] == [True, False, True, True] * 2
    assert hbm.server.amount == 2 * 1000  # only the misses' bytes
    miss = l2.load(0.0, ("Q", 0), 1000)
    assert miss.ready == 3000 / 100 + 500  # behind K's two misses on HBM


def test_fluid_l2_stores_wait_for_their_write_backs_and_loads_do_not() -> None:
    # Every byte of S that is stored writes as many back (the replay's share); P's loads evict as much, dirty.
    hbm = Hbm(1.0, 500.0)
    l2 = FluidL2(1000.0, 200.0, hbm, {"S": MissShares(written=1.0), "P": MissShares(written=1.0)})
    assert l2.store(0.0, ("S", 0), 1000) == 1000  # its write-back served on HBM at 1 B/cycle (a hit: 1 + 200)
    assert l2.load(0.0, ("P", 0), 1000).ready == 2 + 200  # a hit after L2 (FIFO behind the store), not waiting
    assert hbm.server.amount == 2 * 1000  # both write-backs loaded HBM


def test_fluid_l2_keeps_a_tiles_later_accesses_to_a_key_apart() -> None:
    hbm = Hbm(100.0, 500.0)
    l2 = FluidL2(1000.0, 200.0, hbm, {"Q": MissShares(load=1.0, load_again=0.0)})
    assert not l2.load(0.0, ("Q", 0), 1000).hit
    assert l2.load(0.0, ("Q", Retouch(0)), 1000).hit


def test_fluid_l2_counts_each_cta_slots_re_reads_apart_and_their_first_reads_together() -> None:
    # Two CTAs in step on one SM each re-read their own Q (a quarter of re-reads miss) and first read a K that others
    # read too (half of first reads miss). Each slot misses its own second re-read of every four, both at the same
    # step; of the first reads, one count for the SM: the first of the two to come misses.
    hbm = Hbm(100.0, 500.0)
    l2 = FluidL2(1000.0, 200.0, hbm, {"Q": MissShares(load_again=0.25), "K": MissShares(load=0.5)})
    re_reads, first_reads = [], []
    for _ in range(4):
        for slot in (0, 1):
            l2.slot = slot
            re_reads.append(not l2.load(0.0, ("Q", Retouch(slot)), 10).hit)
            first_reads.append(not l2.load(0.0, ("K", 0), 10).hit)
    assert re_reads == [False, False, True, True, False, False, False, False]
    assert first_reads == [True, False] * 4


def test_retouches_are_marked_in_replay_order() -> None:
    q, o = Load("Q", 0, 64), Store("O", 0, 64)
    marked = mark_retouches(((q, o, Load("O", 0, 64), q), (Fma(1), Load("Q", 1, 64))))
    assert [op.tile for op in marked[0] if isinstance(op, (Load, Store))] == [0, 0, Retouch(0), Retouch(0)]
    assert marked[1] == (Fma(1), Load("Q", 1, 64))


# Which kinds of access a replay saw a tensor make (`MissShares.seen`): first and later loads; first stores.
LOADS = (True, False, False, True, False, False)
STORES = (False, True, False, False, False, False)


def test_replay_counts_l2_hits_across_kernels() -> None:
    arch = load_arch("h100")
    write = KernelAccesses([records([Store("S", (0,), MB)])], slots=1)
    read = KernelAccesses([records([Load("S", (0,), MB), Load("S", (0,), MB)])], slots=1)
    cached = replay(arch, [write, read])
    assert (cached.hbm_read_bytes, cached.hbm_write_bytes, cached.l2_read_bytes) == (0, MB, 2 * MB)
    assert cached.shares[1]["S"] == MissShares(load=0.0, load_again=0.0, seen=LOADS)
    assert not cached.evicted
    uncached = replay(arch, [write, read], capacity_bytes=0)
    assert (uncached.hbm_read_bytes, uncached.hbm_write_bytes) == (2 * MB, MB)
    assert uncached.evicted  # every access bypassed an L2 of no room
    assert replay(arch, [write, read], carry_bytes=0).evicted  # S was dropped between the kernels
    # Per kernel: S written through to HBM in one, loaded twice in the other (the second a later access of the tile).
    assert uncached.shares == (
        {"S": MissShares(written=1.0, seen=STORES)},
        {"S": MissShares(load=1.0, load_again=1.0, seen=LOADS)},
    )


def test_the_replay_tells_which_kinds_of_access_it_saw() -> None:
    # A tile that stores O and loads it back (v1's O_i: written in the first key block, read again in the later ones)
    # makes no first load of O and no later store: their shares are of no bytes, and `seen` says so.
    arch = load_arch("h100")
    tiles = [records([Store("O", (0,), MB), Load("O", (0,), MB)])]
    shares = replay(arch, [KernelAccesses(tiles, slots=1)], capacity_bytes=0).shares[0]["O"]
    assert (shares.load, shares.load_again) == (0.0, 1.0)
    assert shares.seen == (False, True, False, True, False, False)


def test_a_first_access_of_a_kind_the_replay_saw_only_later_counts_as_a_later_one() -> None:
    # A folded tile can load O_i first that the whole program loads only after storing it (v1's causal forward: a
    # later key block's kept steps read rows whose first key block's step was removed). Such a load takes the
    # re-reads' share and their count per CTA slot: two CTAs in step, a quarter of re-reads missing, miss at the same
    # step. A kind the replay saw both ways, or neither way, counts as it is.
    shares = MissShares(load_again=0.25, seen=(False, True, False, True, False, False))
    assert [shares.counted_again(0, again) for again in (False, True)] == [True, True]
    assert [shares.counted_again(1, again) for again in (False, True)] == [False, False]  # stores: first ones only
    assert [shares.counted_again(2, again) for again in (False, True)] == [False, True]  # atomics: neither seen
    assert [MissShares().counted_again(0, again) for again in (False, True)] == [False, True]
    l2 = FluidL2(1000.0, 200.0, Hbm(100.0, 500.0), {"O": shares})
    misses = []
    for step in range(4):
        for slot in (0, 1):
            l2.slot = slot
            misses.append(not l2.load(0.0, ("O", step), 10).hit)
    assert misses == [False, False, True, True, False, False, False, False]


def test_lines_the_later_heads_push_out_keep_their_tensor_under_their_new_keys() -> None:
    # The replay renames the lines that the run's later heads would push out (negative keys no access has); the
    # lines evicted as the next kernel starts charge their write-backs to their tensor, looked up by key. A negative
    # key indexed the list of numbered keys' tensors from its end: another tensor's, or past it (an IndexError).
    lines = Lines()
    for key in range(3):
        lines.add(key, MB)
    lines.mark_dirty(lines.by_key[0])
    owners = ["A", "B", "C"]
    renamed: dict[int, str] = {}
    _rename_oldest(lines, 1.5 * MB, owners, renamed)
    assert [line.key for line in lines.lru_lines()] == [-2, -1, 2]
    assert [line.key for line in lines.dirty_lines()] == [-2]
    assert renamed == {-2: "A", -1: "B"}
    _rename_oldest(lines, 0.5 * MB, owners, renamed)  # renamed again: the entry moves to the new key
    assert [line.key for line in lines.lru_lines()] == [-3, -1, 2] and renamed == {-3: "A", -1: "B"}


def test_fast_mode_answers_where_lines_are_renamed_and_then_evicted() -> None:
    # Standard attention's forward and backward, 6 heads of N = 1599 on the A100: S and P overflow its 40 MB, and
    # the backward's first kernel evicted lines the forward's later heads had pushed out: an IndexError before.
    problem = Problem(6, 1, 1599, 32, dtype="fp16", pass_="fwd_bwd")
    fast = simulate(load_arch("a100"), "standard", problem)
    assert fast.hbm_read_bytes >= problem.compulsory_read_bytes


@pytest.mark.parametrize(
    ("sms", "problem", "whole"),
    [
        (4, Problem(3, 1, 690, 128, seqlen_k=1215, causal=True), True),
        (33, Problem(3, 4, 587, 256, seqlen_k=1312, causal=True), False),
    ],
    ids=["run whole", "few accesses"],
)
def test_unequal_tiles_of_few_accesses_are_replayed_unfolded(sms: int, problem: Problem, whole: bool) -> None:
    # v2's causal forward with more keys than queries: every Q block's loop is long enough to fold, and no block
    # walks the middle key blocks whole. A fit charged each tile the first touch of the keys its removed iterations
    # read, where the tiles share them: HBM reads 19% over exact mode's (the compulsory bytes) in both. Such kernels
    # (unequal tiles; run whole, or one head's tiles of few memory accesses) are now replayed unfolded.
    arch = load_arch("h100", {"sms": sms})
    plan = plan_kernel(arch, schedule(arch, "v2", problem, {})[0])
    assert (plan.whole, plan.replay_unfolded, plan.replay_sides) == (whole, True, ())
    exact, fast = (simulate(arch, "v2", problem, mode=mode) for mode in ("exact", "fast"))
    assert exact.hbm_read_bytes == problem.compulsory_read_bytes
    assert all(getattr(fast, name) == pytest.approx(getattr(exact, name), abs=0.5) for name in BYTE_FIELDS)


def test_a_fit_variant_that_keeps_a_whole_nested_loop_counts_it_as_its_kind() -> None:
    # v1's causal forward at N = 168 on an H100 cut to 16 SMs: the first key block's query loop (11 steps) folds to 9,
    # the second's (3) is too short to fold. The fit variant that keeps two periods more there keeps the whole loop;
    # its 11 steps counted as the middle kind's, the fit priced a first-kind step at -1/9 of the added work: cycles
    # 12.7% under exact mode's, smem bytes 14% under.
    arch = load_arch("h100", {"sms": 16})
    problem = Problem(2, 2, 168, 128, causal=True)
    plan = plan_kernel(arch, schedule(arch, "v1", problem, {})[0])
    base = plan.representative(plan.kinds[0])
    assert (base.executed, base.full, plan.sides) == ((2, 3, 9, 0), (2, 3, 11, 0), ("first",))
    assert base.widened("first", 4).executed == (2, 3, 11, 0)
    exact, fast = (simulate(arch, "v1", problem, mode=mode) for mode in ("exact", "fast"))
    assert fast.smem_read_bytes == pytest.approx(exact.smem_read_bytes, rel=1e-9)
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)


def test_the_later_heads_newest_bytes_take_room_from_the_replayed_heads() -> None:
    # One replayed head of three in 5 MB of L2: kernel 0 writes its S (8 rows, 1.5 MB), kernel 1 reads each row and
    # writes a row of P. On the chip the two later heads' S (3 MB, the newest) sit beside it, leaving 0.5 MB: from
    # P's third row on, each new row evicts the head's own oldest S, rows 3-7 before they are read. The replay keeps
    # that room taken (3 MB of clean lines no access has, evicted after the head's older ones) and misses those five
    # rows, where an L2 of the head's own would hit everything.
    arch = load_arch("h100", {"l2.capacity_bytes": 5 * MB, "l2.max_dirty_fraction": 1.0})
    row = 3 * MB // 16
    write = KernelAccesses([records([Store("S", (r,), row) for r in range(8)])], slots=1)
    read = KernelAccesses(
        [records([op for r in range(8) for op in (Load("S", (r,), row), Store("P", (r,), row))])], slots=1
    )
    alone = replay(arch, [write, read])
    assert alone.hbm_read_bytes == 0
    beside = replay(arch, [write, read], carry_bytes=5 * MB / 3, later_heads=2)
    assert beside.hbm_read_bytes == 5 * row
    assert beside.evicted


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    programs=st.lists(
        st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=1, max_size=6),
        min_size=1,
        max_size=9,
    ),
    slots=st.integers(1, 4),
    waves=st.integers(1, 3),
)
def test_the_re_read_order_moves_no_byte_where_l2_holds_everything(
    programs: list[list[tuple[bool, int]]], slots: int, waves: int
) -> None:
    # Tiles that load a few keys of an input and store a few of an output (as a kernel's CTAs do: none reads what
    # another writes), walked in lockstep or in the re-read order, with and without the first heads standing for later
    # ones: where nothing is evicted the order does not matter, so the bytes are the same (the stand-in's lines are
    # clean: no write-back).
    arch = load_arch("h100", {"l2.max_dirty_fraction": 1.0})
    tiles = [
        records([Load("IN", (key,), 1000 * (1 + key)) if load else Store("OUT", (key,), 1000) for load, key in program])
        for program in programs
    ]
    lockstep = replay(arch, [KernelAccesses(tiles, slots)])
    assert not lockstep.evicted
    for later in (None, 1.0):
        reordered = replay(arch, [KernelAccesses(tiles, slots, waves=waves, rereads=True)], later_heads=later)
        assert reordered.vector() == lockstep.vector()


def test_a_fit_variant_holds_a_whole_cycle_of_each_tensors_spread_misses() -> None:
    # v2's forward, d = 128, N = 1024: 16 K/V iterations, 8 kept. With K and V missing on every 8th access (8 Q
    # blocks read a head's K/V once), the variant that adds FIT_PERIODS periods (4 iterations) adds half a cycle of
    # misses: it held one of each, and the fit priced a removed iteration at twice its misses (an H100 with a 33x
    # slower HBM: fast mode 56% over exact mode). It now adds all 8 removed iterations, a whole cycle; where every
    # access hits or misses, the FIT_PERIODS periods.
    arch = load_arch("h100")
    plan = plan_kernel(arch, schedule(arch, "v2", Problem(1, 4, 1024, 128), {})[0])
    base = plan.representative(plan.kinds[0])
    assert (base.executed[0], plan.spec.period, plan.sides) == (8, 2, ("head",))
    spread = {"Q": MissShares(load=1.0), "K": MissShares(load=0.125), "V": MissShares(load=0.125)}
    assert _fit_variant(base, "head", plan.spec.period, spread).executed[0] == 16
    whole = {"Q": MissShares(load=1.0), "K": MissShares(load=0.0), "V": MissShares(load=1.0)}
    assert _fit_variant(base, "head", plan.spec.period, whole).executed[0] == 8 + FIT_PERIODS * plan.spec.period


def test_a_representatives_further_tile_books_the_hbm_time_of_the_bytes_its_misses_move_on_average() -> None:
    # v3's forward, d = 128, N = 1024, on an H100 with a quarter of its HBM bandwidth (a what-if): 6 K and 6 V blocks
    # a tile (block_n 176), each missing on every 8th access (8 Q blocks read a head's K/V once), 0.75 misses of each
    # a round. The two further rounds that a whole miss of the rarest asked for held one miss of each, not 1.5, and
    # the representative booked 20% fewer HBM bytes per further tile than the tiles move: fast mode came out 12%
    # faster than exact mode, the HBM 118% busy. The time its further tiles are bounded by (`Cost.of`) is now that
    # of the misses at their shares: the replay's timed bytes per tile.
    arch = load_arch("h100", {"hbm.bandwidth_bytes_per_s": 0.8e12})
    planned = plan_fast(arch, schedule(arch, "v3", Problem(16, 16, 1024, 128), {}))
    plan, names = planned.plans[0], metric_names(arch)
    counts = {tensor: count for (tensor, _), count in _access_counts(plan.representative(0)).items()}
    assert (counts["Q"], counts["K"], counts["V"]) == (1, 6, 6)
    costs, _ = class_costs(arch, plan, arch.clock_hz, 10**9, planned.shares[0], names, arch.sms)
    served = costs[plan.kinds[0]][0].of(plan.removed[0])[TIMES + names.index("served:hbm")]
    booked = served * arch.hbm_bytes_per_cycle(arch.clock_hz) / arch.sms
    assert booked == pytest.approx(planned.bytes_full[2] / len(plan.kernel.tiles), rel=1e-9)


@pytest.mark.parametrize(("batch", "borrowed"), [(4, True), (1, False)])
def test_a_kernel_of_many_waves_fits_its_sm_alone_from_its_busy_runs(batch: int, borrowed: bool) -> None:
    # v2's forward on an H100 cut to 8 SMs, two CTAs an SM: 4 x 4 heads of 8 query blocks are 8 waves, of which only
    # the last can have SMs alone, and the SM alone takes the busy fit's cost of a removed iteration; 1 x 4 heads, 2
    # waves, fit it with variants of their own.
    arch = load_arch("h100", {"sms": 8})
    planned = plan_fast(arch, schedule(arch, "v2", Problem(batch, 4, 1024, 128), {}))
    plan, names = planned.plans[0], metric_names(arch)
    slots = filled_slots(plan.fit, len(plan.kernel.tiles), arch.sms)
    assert (len(plan.kernel.tiles) >= ALONE_FIT_WAVES * slots * arch.sms) == borrowed
    costs, _ = class_costs(arch, plan, arch.clock_hz, 10**9, planned.shares[0], names, arch.sms)
    busy, alone = costs[plan.kinds[0]][:2]  # one CTA: every SM busy, then alone
    assert np.any(busy.slopes)
    assert np.array_equal(alone.slopes, busy.slopes) == borrowed


def test_a_removed_iteration_takes_at_least_its_hbm_service_at_the_sms_share() -> None:
    # v1's causal forward on the A100 at a tenth of its HBM rate (a what-if), one wave of CTAs of a head each: a
    # fit variant's added query steps write O back, and the last of those write-backs are booked after the variant
    # ends, not waited for, so the fit priced a removed step below the HBM time of its bytes at the SM's share:
    # fast mode's run came out shorter than its HBM needs for the replay's bytes (HBM 1.041 busy; now 1.030, the
    # rest being the kernel's miss shares, averaged over its tensors' accesses, standing for every step alike).
    base = load_arch("a100")
    arch = load_arch("a100", {"hbm.bandwidth_bytes_per_s": base.hbm.bandwidth_bytes_per_s / 10})
    planned = plan_fast(arch, schedule(arch, "v1", Problem(4, 16, 4096, 64, causal=True), {}))
    plan, names = planned.plans[0], metric_names(arch)
    costs, _ = class_costs(arch, plan, arch.clock_hz, 10**9, planned.shares[0], names, len(plan.kernel.tiles))
    served = [TIMES + names.index("served:hbm"), TIMES + names.index("served:l2")]
    # Its tiles, alike and one to an SM, never leave an SM alone (`class_costs`, lockstep), but the slow HBM is
    # saturated: the costs alone are fitted all the same, the floor to which the busy fit gives its idle share back.
    busy, alone = costs[plan.kinds[0]][::2], costs[plan.kinds[0]][1::2]
    assert all(cost.slopes[:, 1].any() for cost in alone)
    for cost in busy:
        assert cost.slopes[:, 1].any()
        assert (cost.slopes[:, 1] >= cost.ctas * cost.slopes[:, served].max(axis=1) - 1e-6).all()
        assert (cost.slopes[:, 0] == cost.slopes[:, 1]).all()


def test_a_busy_further_tile_gives_back_to_processor_sharing_no_more_than_its_bytes_took_at_the_shares() -> None:
    # Cost vectors: (first, further, tail, served:hbm per tile, served:l2 per tile); a round holds 2 tiles.
    served = (3, 4)
    alone = np.array([100.0, 1000.0, 0.0, 30.0, 50.0])
    # Latency-bound: the shares cost the round's bytes 2 x (10 + 20) = 60 cycles, of 300 more than alone.
    latency_bound = _shared_period(np.array([110.0, 1300.0, 5.0, 40.0, 70.0]), alone, served, 2)
    assert list(latency_bound) == [110.0, 1240.0, 5.0, 40.0, 70.0]
    # Bandwidth-bound: the shares cost more than the whole difference; alone's time is the floor.
    assert _shared_period(np.array([110.0, 1300.0, 5.0, 200.0, 100.0]), alone, served, 2)[1] == 1000.0
    # Faster busy than alone (a run's phases): the busy time stands.
    assert _shared_period(np.array([110.0, 900.0, 5.0, 40.0, 70.0]), alone, served, 2)[1] == 900.0


def test_a_busy_sm_gets_what_the_others_leave_and_knows_when_that_is_only_an_equal_share() -> None:
    # 4 SMs, each using 20% of the chip's bandwidth alone: the others leave 40%; at 30% each they would leave 10%,
    # less than an equal 25% share, which the SM keeps: the chip is saturated.
    assert _busy_shares(4, 0.2) == (0.25, pytest.approx(0.4), False)
    assert _busy_shares(4, 0.3) == (0.25, 0.25, True)


def test_a_busy_sms_removed_iterations_cost_no_less_than_alone() -> None:
    # Rows of `Cost.slopes` (first, further, tail, a busy metric), per loop: v1's causal forward on the H200 at
    # 16 x 32 x 1k, d = 64, two CTAs an SM: with every SM busy the fit priced an inner step at 2,298 cycles and a first
    # key block's at 1,770, below the SM alone's 2,613 and 1,946 (their CTAs in other phase lockings); the last key
    # block's 2,569 stays above its 2,432. The metrics are left as fitted.
    busy = np.array([[2298.0, 2298.0, 0.0, 7.0], [1770.0, 1770.0, 0.0, 7.0], [2569.0, 2569.0, 0.0, 7.0]])
    alone = np.array([[2613.0, 2613.0, 0.0, 5.0], [1946.0, 1946.0, 0.0, 5.0], [2432.0, 2432.0, 0.0, 5.0]])
    assert _no_faster_than_alone(busy, alone).tolist() == [
        [2613.0, 2613.0, 0.0, 7.0],
        [1946.0, 1946.0, 0.0, 7.0],
        [2569.0, 2569.0, 0.0, 7.0],
    ]


def test_a_saturated_chips_removed_iterations_take_back_their_idle_share() -> None:
    # Rows of `Cost.slopes`: (first, further, tail, busy:tensor, served:hbm, served:l2), one CTA. The H100's default
    # GEMM at 4096^3, a k-step at the clock the run settles at, rounded: 1,181 cycles at the equal share, 1,023 alone,
    # 1,024 of tensor-core work; its bytes served at the share in 302 (HBM) and 939 (L2) cycles, alone in 2 and 7.
    served = (4, 5)
    busy = np.array([[1181.0, 1181.0, 0.0, 1024.0, 302.0, 939.0]])
    alone = np.array([[1023.0, 1023.0, 0.0, 1024.0, 2.0, 7.0]])
    # Back to its time alone: the share cost its bytes 1,232 more cycles than alone, over the 158 the busy run added.
    assert list(_shared_slopes(busy, alone, served, 1)[0]) == [1023.0, 1023.0, 0.0, 1024.0, 302.0, 939.0]
    # Its bytes at the equal share bound it: 1,100 cycles of L2 service, above its time alone.
    slow_l2 = busy.copy()
    slow_l2[0, 5] = 1100.0
    assert _shared_slopes(slow_l2, alone, served, 1)[0, :2].tolist() == [1100.0, 1100.0]


@pytest.mark.parametrize(
    "causal",
    [
        pytest.param(
            False,
            marks=pytest.mark.xfail(
                strict=True,
                reason="since the fifty-fifth session the representative meets the other SMs' HBM load at its "
                "average, not in step with its own bursts: fast mode slows by 2.0% where exact mode slows by 3.5% "
                "(2.6% and 4.1% before the sixty-seventh session's exp pass in parts); 0.3% apart before. Not "
                "explained: the representative's misses wait more of the extra in the mean than exact mode's, "
                "before and after (`docs/results/spread_load_55/loaded_latency_whatif.txt`, `miss_latency.txt`, "
                "`docs/results/session_67/loaded_latency.txt`)",
            ),
        ),
        pytest.param(
            True,
            marks=pytest.mark.xfail(
                strict=True,
                reason="fast mode slows by 4.8% where exact mode slows by 5.9% since the sixty-seventh session's exp "
                "pass in parts (5.7% and 6.7%, within the 1% bound, before): the departure of the test's other case "
                "(`docs/results/session_67/loaded_latency.txt`)",
            ),
        ),
    ],
)
def test_fast_mode_keeps_the_loaded_hbm_latency_of_a_busy_chip(causal: bool) -> None:
    # v3's forward on an H200 cut to 16 SMs, many waves, with the HBM's loaded latency raised from none to 2000 cycles
    # (what-ifs): the busy representative's further tiles wait out that latency on their misses, as every SM's do in
    # exact mode, so the latency slows both modes alike (0.26% and 0.33% apart). When the whole of what the busy run
    # adds over the SM alone was given back to processor sharing, fast mode took 3.4% (causal 5.4%) less of it; the
    # extra service of the bytes at the busy shares is all that sharing gives back now
    # (`docs/results/shared_period_51/loaded_latency_whatif.txt`). Causal, in FA3's LPT order: fast mode slowed by
    # 4.9% against exact mode's 6.7% from the fifty-fifth session until the fifty-seventh's miss shares per kind
    # gave the longest query blocks the first touches of K and V (5.7%; `docs/results/first_touch_57/`).
    problem = Problem(4, 16, 512, 64, causal=causal)
    slowdown = {}
    for mode in ("fast", "exact"):
        cycles = [
            simulate(
                load_arch("h200", {"sms": 16, "hbm.loaded_latency.extra_cycles": extra}), "v3", problem, mode=mode
            ).cycles
            for extra in (0, 2000)
        ]
        slowdown[mode] = cycles[1] / cycles[0]
    assert slowdown["fast"] == pytest.approx(slowdown["exact"], rel=0.01)


@pytest.mark.parametrize("fraction", [0.25, 0.1])
def test_fast_mode_keeps_hbm_busy_at_most_the_whole_run_on_a_slow_hbm(fraction: float) -> None:
    # The shape above with a quarter of the H100's HBM bandwidth (a what-if): the representative booked 20% fewer HBM
    # bytes per further tile than the tiles move (too few rounds to hold K's and V's misses whole), and fast mode
    # came out 12% faster than exact mode, the HBM 118% busy: faster than the HBM can serve the run's bytes.
    arch = load_arch("h100", {"hbm.bandwidth_bytes_per_s": 3.35e12 * fraction})
    fast = simulate(arch, "v3", Problem(16, 16, 1024, 128))
    assert fast.busy["hbm"] <= 1.0


def test_a_rows_second_read_meets_the_stores_of_the_ctas_that_finished_while_it_waited() -> None:
    # Four tiles in two waves of two, each reading its row twice (the two-pass softmax: a load, a wait, the load
    # again) and writing a row of P, in 3 MB of L2. In lockstep a row's second read follows only the wave's other
    # first reads: every second read hits (4 MB read). A re-reading kernel walks a wave's trailing stores after the
    # next wave's first reads, as the CTAs that finish while those wait at the HBM store then: the first wave's P
    # evicts the second wave's rows before their second reads (6 MB).
    arch = load_arch("h100", {"l2.max_dirty_fraction": 1.0})
    tiles = [records([Load("S", (t,), MB), Load("S", (t,), MB), Store("P", (t,), MB)]) for t in range(4)]
    lockstep = replay(arch, [KernelAccesses(tiles, slots=2)], capacity_bytes=3 * MB)
    assert (lockstep.hbm_read_bytes, lockstep.hbm_write_bytes) == (4 * MB, 4 * MB)
    assert lockstep.shares[0]["S"] == MissShares(load=1.0, load_again=0.0, written=0.125, seen=LOADS)
    waited = replay(arch, [KernelAccesses(tiles, slots=2, rereads=True)], capacity_bytes=3 * MB)
    assert (waited.hbm_read_bytes, waited.hbm_write_bytes) == (6 * MB, 4 * MB)
    assert waited.shares[0]["S"] == MissShares(load=1.0, load_again=0.5, written=0.125, seen=LOADS)
    # Replayed first heads that stand for later ones, where the chip runs the kernel in more waves than one: the
    # first wave's second reads also meet an earlier wave's stores (clean lines of its own stores' bytes) and miss
    # like the second's (8 MB). In a kernel of one wave on the chip there is no earlier wave.
    steady = replay(arch, [KernelAccesses(tiles, slots=2, waves=4, rereads=True)], capacity_bytes=3 * MB, later_heads=1)
    assert steady.hbm_read_bytes == 8 * MB
    single = replay(arch, [KernelAccesses(tiles, slots=2, waves=1, rereads=True)], capacity_bytes=3 * MB, later_heads=1)
    assert single.hbm_read_bytes == 6 * MB


@pytest.mark.parametrize(("seqlen", "passes"), [(1024, 1.0), (3072, 1.93)])
def test_fast_mode_finds_where_the_softmaxs_second_pass_stops_hitting(seqlen: int, passes: float) -> None:
    # Standard attention's two-pass softmax on the H200 cut to 16 SMs (L2 and bandwidths scaled alike,
    # `docs/results/softmax_cliff_small_chip/`): exact mode reads S from HBM once at N = 1k and 1.93 times at 3k,
    # as the whole H200 reads it 1.05 and 1.99 times (`validation/h200/softmax_reuse_h200.csv`). Fast mode's lockstep
    # replay hit every second read up to 4k.
    scale = 16 / 132
    arch = load_arch(
        "h200",
        {
            "sms": 16,
            "l2.capacity_bytes": int(62_914_560 * scale),
            "hbm.bandwidth_bytes_per_s": 4.8e12 * scale,
            "l2.bandwidth_bytes_per_s": 9.16e12 * scale,
        },
    )
    problem = Problem(max(1, 2048 // seqlen), 8, seqlen, 64)
    qk, softmax = schedule(arch, "standard", problem, {"softmax_passes": 2})[:2]
    s_bytes = problem.batch * problem.heads * seqlen * seqlen * 2
    before = run_fast(arch, [qk], arch.clock_hz, DEFAULT_EVENT_BUDGET).hbm_read_bytes
    fast = run_fast(arch, [qk, softmax], arch.clock_hz, DEFAULT_EVENT_BUDGET).hbm_read_bytes
    exact = Engine(arch).run([qk, softmax]).hbm_read_bytes
    assert (exact - before) / s_bytes == pytest.approx(passes, abs=0.01)
    assert (fast - before) / s_bytes == pytest.approx(passes, abs=0.1)


def test_the_write_backs_an_earlier_waves_stores_make_are_charged_to_the_accesses_they_stand_in_for() -> None:
    # Kernel 0 leaves a dirty row D; kernel 1 (above, its heads standing for later ones) puts the earlier wave's
    # stores in after its first reads, evicting D. D's write-back is charged to the wave's accesses that would
    # otherwise have evicted it, its second reads of S and its stores of P, by their bytes (2 MB each: 0.5 MB each),
    # beside the write-backs their own accesses make (1 MB each). Charged to P's stores alone, standard attention's
    # P V on the A100 at 16k tokens waited at its O stores for the softmax's dirty P: 25% over exact mode.
    arch = load_arch("h100", {"l2.max_dirty_fraction": 1.0})
    tiles = [records([Load("S", (t,), MB), Load("S", (t,), MB), Store("P", (t,), MB)]) for t in range(4)]
    write = KernelAccesses([records([Store("D", (0,), MB)])], slots=1)
    read = KernelAccesses(tiles, slots=2, waves=4, rereads=True)
    charged = replay(arch, [write, read], capacity_bytes=3 * MB, carry_bytes=3 * MB, later_heads=1)
    assert charged.hbm_write_bytes == 5 * MB
    assert charged.shares[1]["S"].written == 1.5 * MB / (8 * MB)
    assert charged.shares[1]["P"].written == 1.5 * MB / (4 * MB)


def test_fast_mode_sees_the_softmax_evict_the_s_it_has_not_read_yet() -> None:
    # Standard attention's forward on an A100 cut to 33 SMs, 3 x 2 heads, 2048 queries, 1475 keys, d = 96: S is
    # 36 MB of the 40 MB L2, and the softmax's P evicts the S of rows it has not read. Its replayed heads once had L2
    # to themselves: HBM reads 41% under exact mode's, cycles 11.7% under (`simgpu.replay._ballast`).
    arch = load_arch("a100", {"sms": 33})
    problem = Problem(3, 2, 2048, 96, seqlen_k=1475)
    exact, fast = (simulate(arch, "standard", problem, mode=mode) for mode in ("exact", "fast"))
    assert fast.hbm_read_bytes == pytest.approx(exact.hbm_read_bytes, rel=0.03)
    assert fast.hbm_write_bytes == exact.hbm_write_bytes
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.03)


def test_a_kernel_of_a_smaller_share_of_l2_starts_with_the_oldest_lines_past_it_evicted() -> None:
    # Kernel 0 writes A then B in 2 MB of L2; kernel 1 has 1 MB: A, the older, is written back as it starts (a
    # write-back of kernel 0's), and B still hits. (All of L2 may be dirty here: no write-back for want of that; a
    # written byte costs the HBM what a read one does, so its busy bytes are the bytes.)
    arch = load_arch("h100").with_overrides({"l2.max_dirty_fraction": 1.0, "hbm.write_cost_ratio": 1.0})
    write = KernelAccesses([records([Store("A", (0,), MB), Store("B", (0,), MB)])], slots=1)
    read = KernelAccesses([records([Load("B", (0,), MB)])], slots=1)
    shrunk = replay(arch, [write, read], capacity_bytes=[2 * MB, MB])
    assert (shrunk.hbm_read_bytes, shrunk.hbm_write_bytes, shrunk.hbm_timed_bytes) == (0, 2 * MB, MB)
    assert shrunk.shares[0]["A"] == MissShares(written=1.0, seen=STORES)
    assert shrunk.shares[1]["B"] == MissShares(seen=(True, False, False, False, False, False))
    assert shrunk.evicted
    assert not replay(arch, [write, read], capacity_bytes=[2 * MB, 2 * MB]).evicted


def test_fast_modes_bytes_equal_exact_modes_where_kernels_run_unequal_heads_side_by_side() -> None:
    # The H200's v2 causal backward, 16 x 32 heads: the row-wise kernels run 16 CTAs per SM (264 heads side by side),
    # the main one 1 per SM (17 heads). The replay replays 103 heads; with one share of L2 for every kernel
    # (103 / 264), the main kernel's key blocks missed Q, dO and dQ that stay in L2 on the chip: HBM reads 1.72x
    # exact mode's, writes 1.53x.
    arch = load_arch("h200")
    problem = Problem(16, 32, 1024, 64, causal=True, pass_="bwd")
    exact, fast = (simulate(arch, "v2", problem, mode=mode) for mode in ("exact", "fast"))
    assert all(getattr(fast, name) == pytest.approx(getattr(exact, name), abs=0.5) for name in BYTE_FIELDS)


def test_shared_schedule_of_uniform_tiles_is_waves_of_the_period() -> None:
    # 10 tiles, 2 SMs x 1 slot: the first tile of a slot takes 120, later ones 100, bandwidth sharing no matter; a
    # further tile hides the first one's tail of 30.
    times = np.array([[[[120.0, 100.0, 30.0], [120.0, 100.0, 30.0]]]])
    assert shared_schedule(2, 1, times, np.zeros(10, dtype=int)) == 120 + 4 * 100
    # 10,000 waves are skipped, not walked: same answer.
    assert shared_schedule(2, 1, times, np.zeros(20_000, dtype=int)) == pytest.approx(120 + 9_999 * 100)


def test_a_kernel_whose_ctas_order_each_other_runs_whole() -> None:
    # FA4's deterministic backward orders each key block's dQ adds after the block before's, through semaphores in
    # global memory. Fast mode's representative SMs run none of the releasing CTAs: on a B200 cut to 33 SMs the main
    # kernel took 0.46x exact mode's cycles. Few ops: it now runs whole, every CTA on the chip.
    arch = load_arch("b200", {"sms": 33})
    problem = Problem(2, 1, 2048, 64, pass_="bwd")
    options = {"deterministic": True}
    main = schedule(arch, "v4", problem, options)[1]
    assert plan_kernel(arch, main).whole and not plan_kernel(arch, schedule(arch, "v4", problem, {})[1]).whole
    exact, fast = (simulate(arch, "v4", problem, options, mode=mode) for mode in ("exact", "fast"))
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)


def test_tiles_of_no_time_end_as_they_start() -> None:
    # Empty CTAs (v1's splits past its query blocks) cost nothing in the representative runs. The general schedule
    # waited for them forever (a tile advances at 1 / time) and the uniform one divided by zero. 2 SMs x 1 slot: the
    # second SM's empty tiles end at once and it takes the fourth tile.
    times = np.array([[[[100.0, 100.0, 0.0], [100.0, 100.0, 0.0]]], [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]])
    assert shared_schedule(2, 1, times, np.array([0, 1, 1, 0])) == 100.0
    assert shared_schedule(2, 1, times[1:], np.zeros(5, dtype=int)) == 0.0


def test_a_kernel_with_empty_tiles_runs_in_fast_mode() -> None:
    # v1 split 8 ways over a head of 3 query blocks: five of each head's CTAs have nothing to do (fast mode hung).
    arch = load_arch("b200", {"l2.capacity_bytes": 0})
    problem = Problem(4, 4, 314, 256, dtype="fp16")
    options = {"block_m": 128, "block_n": 16, "sram_bytes": 65536, "splits": 8}
    exact, fast = (simulate(arch, "v1", problem, options, mode=mode) for mode in ("exact", "fast"))
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.05)


@pytest.mark.parametrize("general", [False, True])
def test_a_first_tile_that_no_further_tile_follows_takes_its_tail(general: bool) -> None:
    # 2 SMs x 1 slot; a first tile takes 120 and 130 more where its SM takes no further tile. One tile per slot:
    # 250. Three tiles: the first SM's second tile ends at 220, the second SM's lone tile at 250. The same class
    # twice over takes the schedule's general path.
    times = np.array([[[[120.0, 100.0, 130.0], [120.0, 100.0, 130.0]]]])
    if general:
        times = np.concatenate([times, times])
    assert shared_schedule(2, 1, times, np.zeros(2, dtype=int)) == 250.0
    assert shared_schedule(2, 1, times, np.zeros(3, dtype=int)) == 250.0
    assert shared_schedule(2, 1, times, np.zeros(4, dtype=int)) == 220.0


def test_a_persistent_slot_draws_its_next_tile_as_its_tile_claims_it() -> None:
    # 2 SMs x 1 slot, tiles A (4 cycles), B (8), C (10), D (1) in that order. Handed out as slots free: A's SM frees
    # at 4 and takes C (ends 14), B's takes D at 8: 14. B draws its next tile as it starts (a lead of 8, its whole
    # time: FA3's producer issues a short tile's few loads at once): B's SM takes C at 0 and runs it from 8 to 18,
    # A's takes D at 4: 18. A lead of 3 draws C at 5, after A's SM took it at 4: 14 again.
    times = np.zeros((4, 1, 2, 5))
    times[..., 0] = times[..., 1] = np.array([4.0, 8.0, 10.0, 1.0]).reshape(4, 1, 1)
    order = np.arange(4)
    assert shared_schedule(2, 1, times, order) == 14.0
    times[1, ..., 3] = 8.0
    assert shared_schedule(2, 1, times, order) == 18.0
    times[1, ..., 3] = 3.0
    assert shared_schedule(2, 1, times, order) == 14.0


def test_fast_matches_exact_where_persistent_ctas_of_short_tiles_draw_the_long_ones() -> None:
    # v3's persistent causal forward with fewer keys than queries: a query block sees 0 to 5 key blocks, in LPT
    # order (the longest first). In exact mode each CTA draws its next tile once its producer issued the current
    # one's last loads: the SMs that started the shortest tiles of work drew the next long ones at once and ended
    # last (24,370 cycles); handed out as tiles ended, fast mode balanced them: 0.858 of exact mode's cycles.
    arch = load_arch("h100", {"sms": 33})
    problem = Problem(3, 3, 2048, 32, seqlen_k=727, causal=True, dtype="fp16")
    exact, fast = (simulate(arch, "v3", problem, {"persistent": True}, mode=mode) for mode in ("exact", "fast"))
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)


def test_shared_schedule_shares_an_sm_between_its_resident_tiles() -> None:
    # One SM, 2 slots: a tile takes 100 alone and 150 beside another. Tiles A (work 1) and B: both at rate
    # 1/150 until both end at 150. Three tiles: the third starts alone at 150 and ends at 250.
    times = np.array([[[[100.0, 100.0, 0.0], [100.0, 100.0, 0.0]], [[150.0, 150.0, 0.0], [150.0, 150.0, 0.0]]]])
    assert shared_schedule(1, 2, times, np.zeros(3, dtype=int)) == pytest.approx(250.0)


def test_a_small_kernel_of_unequal_tiles_runs_whole() -> None:
    # Causal: query block i visits i + 1 key blocks. 32 tiles of 1..8 key blocks on 8 SMs: run whole.
    arch = load_arch("h100", {"sms": 8})
    causal = schedule(arch, "v2", Problem(2, 2, 1024, 64, causal=True), {})[0]
    assert plan_kernel(arch, causal).whole
    assert not plan_kernel(arch, schedule(arch, "v2", Problem(2, 2, 1024, 64), {})[0]).whole  # tiles alike
    many = schedule(arch, "v2", Problem(4, 16, 2048, 64, causal=True), {})[0]  # about 50,000 ops
    assert not plan_kernel(arch, many).whole


def test_further_tiles_of_unequal_kernels_are_timed_with_the_slots_started_apart() -> None:
    # Slot s's first CTA starts s x the stagger late; later CTAs of the slot and slot 0 are not delayed.
    program = (Fma(128.0),)
    story = kernel([Role("w", 4, lambda _t: program)], tiles=range(6))
    staggered = _staggered(story, (program,), ctas=3, cycles=100.0)
    starts = [staggered.roles[0].program(t)[0] for t in range(6)]
    assert starts[1:3] == [Delay(100.0), Delay(200.0)]
    assert [starts[0], *starts[3:]] == [program[0]] * 4


def test_short_ctas_rounds_follow_the_steady_period_through_the_longest_run() -> None:
    # Standard attention's softmax on the B200 cut to 8 SMs: 16 CTAs of 4 rows each per SM, MUFU-bound. One round
    # on an SM alone takes 6,870 cycles, two take 9,737: the second round's 4,104 cycles of exp ran partly beside
    # the first round's tail. The first tile's time is then the line of that period through the two-round run
    # (5,633), and a slot's only tile takes the tail beside (1,237). Before, every first tile took 6,870, and the
    # kernel, 8 waves, came out 5.2% slow against exact mode (now 1.9%).
    arch = load_arch("b200", {"sms": 8})
    kernels = schedule(arch, "standard", Problem(2, 2, 1024, 64), {})
    planned = plan_fast(arch, kernels)
    softmax = planned.plans[1]
    names = metric_names(arch)
    costs, _ = class_costs(arch, softmax, arch.clock_hz, DEFAULT_EVENT_BUDGET, planned.shares[1], names, 8)
    first, further, tail = costs[0][-1].of(softmax.removed[0])[:TIMES]  # 16 CTAs, this SM alone

    def rounds(count: int) -> float:
        tiles = replace(with_programs(softmax.kernel, softmax.representative(0).marked), tiles=range(16 * count))
        engine = Engine(
            arch, arch.clock_hz, sms=1, miss_shares=planned.shares[1], max_ctas_per_sm=16, bandwidth_share=1.0
        )
        return engine.run([tiles]).cycles - arch.kernel_launch_s * arch.clock_hz

    exp_per_round = 16 * costs[0][-1].of(softmax.removed[0])[TIMES + names.index("busy:mufu")]
    assert rounds(2) - rounds(1) < further == pytest.approx(exp_per_round)
    assert first + further == pytest.approx(rounds(2))
    assert first + tail == pytest.approx(rounds(1))
    exact = simulate(arch, "standard", Problem(2, 2, 1024, 64), mode="exact").kernel_cycles[1]
    assert simulate(arch, "standard", Problem(2, 2, 1024, 64)).kernel_cycles[1] == pytest.approx(exact, rel=0.02)


def test_fast_matches_exact_on_a_causal_kernel_of_many_unequal_tiles() -> None:
    # 1,024 CTAs of 1 to 16 key blocks, two per SM on 16 SMs: not run whole, so the list schedule takes the class
    # costs. With the representative's slots started in step it came out 8.1% slow (their start-ups meet).
    arch = load_arch("h200", {"sms": 16})
    problem = Problem(4, 16, 2048, 64, causal=True)
    assert not plan_kernel(arch, schedule(arch, "v2", problem, {})[0]).whole
    exact = simulate(arch, "v2", problem, mode="exact").cycles
    assert simulate(arch, "v2", problem, mode="fast").cycles == pytest.approx(exact, rel=0.01)


def test_unit_ops_count_a_loop_at_its_trip_count() -> None:
    program = (Load("Q", 0, 64), Repeat(10, lambda i: (Wait("kv"), Fma(1), Exp(1), Arrive("kv"))), Store("O", 0, 64))
    assert unit_ops(program) == 22
    assert unit_ops(program, limit=5) > 5  # stops counting once past the limit


def toy_pipeline(iterations: int, tiles: int) -> Kernel:
    """A producer loading through a 2-slot ring into a consumer's exp: steady state after one iteration."""
    load = Role(
        "load",
        1,
        lambda tile: (
            Repeat(
                iterations,
                lambda i: (Wait("empty"), Load("X", (tile, i), MB // 4, arrive="full"), Advance(("empty", "full"))),
            ),
        ),
    )
    exp = Role(
        "exp",
        4,
        lambda tile: (
            Repeat(iterations, lambda i: (Wait("full"), Exp(16 * 400), Arrive("empty"), Advance(("empty", "full")))),
        ),
    )
    barriers = (BarrierSpec("full", slots=2), BarrierSpec("empty", initial_phases=1, slots=2))
    return Kernel("pipe", tuple(range(tiles)), CtaResources(160, 32, 0), (load, exp), barriers)


def test_fast_matches_exact_on_a_uniform_pipeline(toy_hopper: Arch) -> None:
    arch = toy_hopper.with_overrides({"sms": 4})
    kernels = [toy_pipeline(iterations=1000, tiles=8)]
    exact = Engine(arch).run(kernels)
    fast = run_fast(arch, kernels, arch.clock_hz, 10**6)
    # HBM-bound: 8 CTAs on 4 SMs share HBM request by request in exact mode, as equal bandwidth shares in fast.
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)
    assert (fast.hbm_read_bytes, fast.l2_read_bytes) == (exact.hbm_read_bytes, exact.l2_read_bytes)
    assert fast.units["mufu"].busy_cycles == pytest.approx(exact.units["mufu"].busy_cycles)
    assert fast.ops < exact.ops / 4  # folded: far fewer ops simulated


def test_exact_mode_budget_error_points_to_fast_mode() -> None:
    with pytest.raises(EventBudgetError, match="use fast mode"):
        simulate("h100", "v2", Problem(1, 16, 8192, 128), mode="exact", event_budget=1000)


def test_further_rounds_hold_a_whole_cycle_of_misses_where_they_cost_few_ops() -> None:
    # The H100's S = QK^T on 10 SMs (the grid's second shape): Q and K each miss on every 12th access, so with 2 CTAs
    # an SM a whole cycle of their misses takes 6 rounds. Cut at `MAX_ROUNDS`, the rounds held one miss of each
    # where 2/3 were owed, and fast mode came out 1.66% slow on the kernel. Its one-GEMM tile costs few ops, and the
    # rounds that hold the cycle stay within `ROUNDS_OPS`; v2's forward tile (a loop over key blocks) does not.
    arch = load_arch("h100", {"sms": 10})
    problem = Problem(1, 3, 1536, 128)
    (scores, *_) = schedule(arch, "standard", problem, {})
    planned = plan_fast(arch, [scores])
    plan, shares = planned.plans[0], planned.shares[0]
    assert (shares["Q"].load, shares["K"].load) == (1 / 12, 1 / 12)
    tile = plan.representative(plan.kinds[0])
    assert _rounds(tile, shares, 2, MAX_ROUNDS) == 4
    assert _rounds(tile, shares, 2, 12) == 6

    def round_ops(kernel: Kernel) -> float:
        return 2 * folded_tile_ops(kernel, plan_kernel(arch, kernel).representative(0))

    (forward,) = schedule(arch, "v2", problem, {})
    assert 6 * round_ops(scores) <= ROUNDS_OPS < (MAX_ROUNDS + 1) * round_ops(forward)


# Fast mode runs a class's representative CTAs side by side in step; exact mode's causal CTAs of unequal length
# drift apart, so one's GEMMs meet the other's softmax, and of two that start together the first placed leads. With a
# few tiles per slot, where the last long tiles land decides the kernel's end, and a 1% change in one class's time
# moved it by up to 8% here (the H100's v2 causal forward on 8 SMs: +6.8% against exact mode, the B200's on 10 SMs:
# -6.4%). Such kernels are cheap: fast mode runs them whole (`simgpu.fast_whole`).
# The H100's v3 causal forward on 8 SMs (2 x 2 heads x 8 query blocks): since the sixty-seventh session's exp pass in
# parts its 10,368 unit ops exceed `WHOLE_OPS` (about 3,500 before), and the list schedule comes out 1.004% slow.
V3_CAUSAL_LIST_SCHEDULE = pytest.mark.xfail(
    strict=True,
    reason="fast mode 58,322 cycles against exact mode's 57,742 (+1.004%): too many unit ops to run whole since the "
    "exp pass is cut into parts, and the list schedule's representatives run co-resident CTAs of unequal tiles in "
    "step (`docs/results/session_67/README.md`)",
)


@pytest.mark.parametrize(
    ("arch_name", "algo", "pass_", "causal", "shape"),
    [
        pytest.param(
            *case,
            id="-".join(str(x) for x in case),
            marks=V3_CAUSAL_LIST_SCHEDULE if case == ("h100", "v3", "fwd", True, 0) else (),
        )
        for case in GRID
    ],
)
def test_fast_matches_exact(arch_name: str, algo: str, pass_: str, causal: bool, shape: int) -> None:
    row = compare(arch_name, algo, pass_, causal, shape)
    assert row["bytes_equal"]
    assert row["fast_over_exact"] == pytest.approx(1.0, abs=0.01)


def test_a_first_kernel_run_whole_is_exact_modes_run_and_a_later_one_takes_the_miss_shares() -> None:
    # The H100's v2 causal forward on 8 SMs (one kernel, 2 x 2 heads x 8 query blocks of 1 to 8 key blocks) runs
    # whole. From an empty L2, through the L2 model itself, it is exact mode's run: cycles and busy cycles equal.
    # With the fluid L2's evenly spread misses it was 4.5% slow: which CTAs wait an HBM latency for their first
    # K/V tiles moved their phases.
    arch = load_arch("h100", {"sms": 8})
    problem = Problem(2, 2, 1024, 64, causal=True)
    (forward,) = schedule(arch, "v2", problem, {})
    assert plan_kernel(arch, forward).whole
    exact = simulate(arch, "v2", problem, mode="exact")
    fast = simulate(arch, "v2", problem, mode="fast")
    assert fast.cycles == exact.cycles
    assert fast.unit_cycles["tensor"] == exact.unit_cycles["tensor"]
    # In the backward the main kernel follows the preprocessing kernel: it runs whole with the replay's miss shares.
    backward = schedule(arch, "v2", replace(problem, pass_="bwd"), {})
    assert [plan_kernel(arch, k).whole for k in backward] == [False, True, False]


def test_fast_modes_l2_is_busy_for_what_it_serves_as_exact_modes() -> None:
    # Standard attention's QK^T stores S from MMA fragments in parts of sectors, which the L2 serves as sector accesses
    # (`Sm._partial_sector_bytes`): its L2 is busy longer than its bytes take at the L2's rate. Fast mode reported the
    # replay's bytes at that rate (0.038 of the run where exact mode gives 0.059); it now reports what the
    # representatives' L2 served, as exact mode does. v2's forward stores O from its fragments likewise.
    arch = load_arch("h100", {"sms": 8})
    for algo, headdim in (("standard", 64), ("v2", 128)):
        problem = Problem(2, 4, 1024, headdim)
        fast = simulate(arch, algo, problem, mode="fast")
        exact = simulate(arch, algo, problem, mode="exact")
        served = exact.busy["l2"] * exact.cycles
        assert fast.busy["l2"] * fast.cycles == pytest.approx(served, rel=1e-9)
        assert served > (exact.l2_read_bytes + exact.l2_write_bytes) / arch.l2_bytes_per_cycle(exact.clock_hz)


def test_an_sm_holds_no_more_ctas_than_the_first_wave_puts_on_it() -> None:
    # The first wave goes breadth-first: fewer tiles than the chip's slots leave the further slots of every SM empty.
    assert [filled_slots(2, tiles, 132) for tiles in (1, 64, 132, 133, 264, 1000)] == [1, 1, 1, 2, 2, 2]
    assert filled_slots(4, 200, 132) == 2 and filled_slots(1, 5, 132) == 1


def test_fast_modes_units_are_busy_as_exact_modes_where_the_tiles_fill_one_slot_of_each_sm() -> None:
    # v1's forward takes one CTA per head: 16 heads on the A100's 108 SMs, each SM holds one though two fit. Fast mode
    # counted each tile's busy cycles as an SM holding two ran it (its tensor cores 1.44 times exact mode's busy, its
    # FMA pipes 1.17); it now runs no more CTAs on its representative SM than the first wave puts on an SM.
    # Its tiles, alike and one to an SM, start and end together: no SM ever runs alone, and the fit variants are run
    # with every SM busy only.
    problem = Problem(2, 8, 1024, 64)
    fast, exact = simulate("a100", "v1", problem), simulate("a100", "v1", problem, mode="exact")
    assert fast.ctas_per_sm == exact.ctas_per_sm == (2,)
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)
    for unit, busy in exact.busy.items():
        assert fast.busy[unit] == pytest.approx(busy, rel=1e-3, abs=1e-6), unit


def test_the_schedule_reads_the_all_busy_time_itself_with_every_sm_busy() -> None:
    # Not the SM-alone time plus the difference, rounded: a kernel that keeps every SM busy reads no alone time, so
    # fast mode need not work one out (`class_costs`, lockstep tiles).
    assert _at_weight([[1.0], [1e16]], 0, 1.0) == 1.0
    assert _at_weight([[1.0], [3.0]], 0, 0.5) == 2.0 and _at_weight([[1.0], [3.0]], 0, 0.0) == 3.0


# Standard attention writes S and P to HBM and reads them back: whether they are still in L2 depends on how much of
# the chip's L2 the replayed heads get, and fast mode's share misses exact mode's L2 contents by a few percent once
# the score buffers of the heads in flight approach L2's size (the counterexample below). The property holds for
# standard attention while they stay well inside it (seqlen <= 512 here) and for v2 at every size tried.
# Derandomized: CI must not depend on the draw.
@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    batch=st.integers(1, 3),
    heads=st.integers(1, 3),
    seqlen=st.integers(100, 1500),
    headdim=st.sampled_from([64, 128]),
    causal=st.booleans(),
    algo=st.sampled_from(["standard", "v2"]),
    pass_=st.sampled_from(["fwd", "bwd"]),
)
def test_fast_bytes_equal_exact_bytes(
    batch: int, heads: int, seqlen: int, headdim: int, causal: bool, algo: str, pass_: str
) -> None:
    if algo == "standard":
        seqlen = 100 + seqlen % 413  # 100..512
    arch = load_arch("h100", {"sms": 6})
    problem = Problem(batch, heads, seqlen, headdim, causal=causal, pass_=pass_)
    exact = simulate(arch, algo, problem, mode="exact")
    fast = simulate(arch, algo, problem, mode="fast")
    for name in BYTE_FIELDS:
        assert getattr(fast, name) == pytest.approx(getattr(exact, name), abs=0.5), name


@pytest.mark.xfail(strict=True, reason="fast HBM reads +1.55%: standard's S and P near L2's size (see above)")
def test_fast_bytes_equal_exact_bytes_when_standard_scores_approach_l2() -> None:
    arch = load_arch("h100", {"sms": 6})
    problem = Problem(2, 3, 1306, 128, pass_="bwd")
    exact = simulate(arch, "standard", problem, mode="exact")
    fast = simulate(arch, "standard", problem, mode="fast")
    assert fast.hbm_read_bytes == pytest.approx(exact.hbm_read_bytes, abs=0.5)


@pytest.mark.parametrize(
    ("sms", "heads", "pass_", "replayed"),
    [(8, 16, "fwd", 4), (2, 4, "fwd", 1), (2, 4, "bwd", 1)],
    ids=["four-heads-replayed", "one-head-fills-the-chip", "one-head-backward"],
)
def test_a_mask_that_every_head_reads_costs_its_hbm_bytes_once(sms: int, heads: int, pass_: str, replayed: int) -> None:
    # PyTorch's causal mask is one N x N tensor that every head's masked_fill reads (and its backward too): exact
    # mode reads it from HBM once, then hits. The replay walks the first heads and scales their bytes by the heads
    # they stand for, which counted the mask once per head (+768 KiB at 16 heads: three 256 KiB masks too many). It
    # now extrapolates in heads from half the replayed heads, replaying two where one head would do.
    arch = load_arch("h100", {"sms": sms})
    problem = Problem(1, heads, 512, 64, causal=True, dtype="fp16", pass_=pass_)
    kernels = schedule(arch, "standard", problem, {"framework": "pytorch"})
    plans = [plan_kernel(arch, each) for each in kernels]
    assert _first_heads(arch, plans, [_replay_folded(plan) for plan in plans])[2] == replayed  # type: ignore[index]
    exact = simulate(arch, "standard", problem, {"framework": "pytorch"}, mode="exact")
    fast = simulate(arch, "standard", problem, {"framework": "pytorch"}, mode="fast")
    for name in BYTE_FIELDS:
        assert getattr(fast, name) == getattr(exact, name), name


def test_fast_mode_predicts_the_default_hopper_gemm() -> None:
    # The persistent wgmma GEMM with clusters of 2 at 4096^3 on the H100: 512 C tiles on 132 SMs (3.9 per CTA).
    # Its folded tiles (8 of 64 k-steps) are L2-bound with every SM busy, longer ones less so: the fit of a removed
    # k-step came out below its 1,024 cycles of MMA, and fast mode under the tensor roofline (-7.5% against exact
    # mode). A round of tiles now takes at least its busiest unit's time (`simgpu.fast_costs.Cost`). Until the
    # sixty-seventh session the two consumer warpgroups' wgmmas were interleaved (`simgpu.sm`), and exact mode gave
    # 284,078 cycles against fast mode's 273,260 (-3.8%, a strict xfail: 32 of its 132 SMs ended 4-9k cycles after
    # the median one); served first come, first served, 269,837 against 272,694 (+1.1%,
    # `docs/results/session_67/gemm_h100_fast_exact.txt`).
    problem = GemmProblem(4096, 4096, 4096, "bf16")
    fast = simulate("h100", "gemm", problem)  # the API checks the roofline
    exact = simulate("h100", "gemm", problem, mode="exact")
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.02)


def test_ctas_in_lockstep_that_wait_on_their_copies_take_a_saturated_hbms_idle_share() -> None:
    # v1 as our kernel loops (`variant="algorithm1"`), 128 heads of 1,024 queries, d = 128, on the whole H100: one CTA
    # per SM, alike, one wave (in lockstep), each waiting on its copies. Their demand alone saturates the HBM, so the
    # busy representative runs at an equal share, 1/128 of the chip's rate for each copy it waits on; exact mode's HBM
    # serves each copy at the whole rate once the queue ahead drains. Fast mode came out 49.5% slower (3,007,644
    # cycles against 2,011,382); with the removed iterations' idle share given back, 2.5%.
    problem = Problem(8, 16, 1024, 128)
    options = {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}
    fast = simulate("h100", "v1", problem, options)
    exact = simulate("h100", "v1", problem, options, mode="exact")
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.03)


def test_ctas_in_step_on_an_sm_take_their_re_read_misses_together() -> None:
    # v1 as our kernel loops on the whole H200 at 32 x 32 x 512, d = 64: two CTAs an SM, 3.9 waves, no loop folded;
    # 8.9% of the re-reads of each CTA's Q, O, m and l miss. With one count of misses for the SM, they alternated
    # between the representative's two CTAs, which fell 6,500 cycles apart and then met less on the SM's store path:
    # fast mode came out 14.9% faster than exact mode (1,111,853 cycles against 1,306,276), whose CTAs stay in step.
    problem = Problem(32, 32, 512, 64)
    options = {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}
    fast = simulate("h200", "v1", problem, options)
    exact = simulate("h200", "v1", problem, options, mode="exact")
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)


def test_a_folded_causal_v1_reads_rows_first_that_the_whole_loop_reads_again() -> None:
    # v1's causal forward on the whole H200 at 16 x 16 x 1024, d = 128 (two CTAs an SM, one wave). The folded tile
    # keeps the first key block's query steps 0-8 and 61-63; the next key block starts at step 8, so its kept steps
    # read O_i and the LSE of rows whose first step was removed: first loads in the folded program, which the replay
    # never saw (the whole program stores them first) and which hit at the share of no bytes. The fit's variants turn
    # some back into re-reads, a removed first-key-block step cost 4,757 cycles (exact mode's take 2,172-2,233), and
    # fast mode came out 1.198 times itself with no loop folded (16.9% slower than exact mode), its tensor cores 0.4%
    # busy. Such loads now count as re-reads (`MissShares.counted_again`): the fold costs what the whole loops cost.
    problem = Problem(16, 16, 1024, 128, causal=True)
    folded = simulate("h200", "v1", problem)
    with mock.patch.object(simgpu.fast_plan, "KEEP_ITERATIONS", 10**9):
        whole = simulate("h200", "v1", problem)
    assert folded.cycles == pytest.approx(whole.cycles, rel=0.02)
    assert folded.busy["tensor"] == pytest.approx(whole.busy["tensor"], rel=0.05)


def test_a_representatives_misses_meet_the_other_sms_load_at_its_average() -> None:
    # v1 on the whole H200 at 2 x 16 x 4096, d = 128: one CTA on each of 32 SMs, the HBM 12% busy. The representative
    # counted the other 31 SMs' HBM traffic in step with its own bursts, so its misses waited out the loaded extra
    # latency of a chip whose every SM loads at once (+298 cycles in the mean, exact mode's +185), and fast mode came
    # out 3.2% slower than exact mode; their load now comes at its average (`simgpu.units.hbm.Hbm.latency`).
    problem = Problem(2, 16, 4096, 128)
    fast = simulate("h200", "v1", problem)
    exact = simulate("h200", "v1", problem, mode="exact")
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)


def test_a_saturated_l2_lends_an_idle_share_to_a_gemms_removed_k_steps() -> None:
    # The H100's default GEMM at 8192 x 8192 x 2048: 2,048 C tiles, 32 k-steps each, 24 of them removed from the
    # folded tile. Its SMs' demand alone exceeds the L2's bandwidth, so a busy SM runs at an equal share; there a
    # removed k-step took 1,106 cycles, 8% more than its tensor cores' 1,024, the share idle while the SM issues, and
    # fast mode came out 5.5% slower than exact mode, whose other SMs take that idle bandwidth. Processor sharing now
    # gives the removed k-steps their time alone back (1,023 cycles), as it gives a further tile's period.
    problem = GemmProblem(8192, 8192, 2048, "bf16")
    fast = simulate("h100", "gemm", problem)
    exact = simulate("h100", "gemm", problem, mode="exact")
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)


@pytest.mark.xfail(
    strict=True,
    reason="fast +5.5%: HBM idle in the tail waves (+3.3% at 128 SMs, 8 whole waves; -0.2% at 64), which an untimed "
    "write-back of O hid until the replay timed the write-backs later heads push out",
)
def test_an_sm_idle_share_of_hbm_goes_to_the_busy_sms() -> None:
    # Standard attention's P V on the A100 (1024 tiles, one CTA per SM) is HBM-bound: exact mode 97.8% HBM busy. A
    # representative SM at an equal bandwidth share leaves its share idle while it issues its next copies (2-stage
    # ring), where on the chip the other SMs use it: fast mode was 28% slow before a further tile was bounded by the
    # same SM alone and its bytes at an equal share. It came within 1% with O's write-backs after the run, untimed;
    # timed as exact mode times most of them (299 MB of HBM traffic in the run, fast 302), it is 5.5% slow.
    arch = load_arch("a100")
    (_, _, pv) = schedule(arch, "standard", Problem(8, 16, 1024, 64), {})
    exact = Engine(arch).run([pv])
    fast = run_fast(arch, [pv], arch.clock_hz, 10**8)
    assert exact.units["hbm"].busy_cycles > 0.95 * exact.cycles
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)


def test_fast_mode_predicts_fa3s_forward_on_a_whole_chip() -> None:
    # v3's forward, 8 heads of 2,048 queries, d = 128: 128 tiles, one wave on the H100's 132 SMs. Fast mode was 5.0%
    # slow while a slot's first tile took an equal share of HBM and L2 throughout
    # (docs/results/fast_vs_exact_whole_31/): the grid's chips cut to 8 and 10 SMs give it 1/8 to 1/10 of the
    # bandwidth, a whole chip 1/128, which stretched
    # each of its copies where the chip's HBM and L2 (17% and 48% busy at that share: share_probe_v3_fwd_h100.txt)
    # serve it whole. Only its first copies, which every SM queues at once, now take an equal share (the burst,
    # `simgpu.fast_costs`); its other requests take what the other SMs leave: -0.3%.
    problem = Problem(1, 8, 2048, 128)
    exact = simulate("h100", "v3", problem, mode="exact")
    fast = simulate("h100", "v3", problem, mode="fast")
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)


def test_no_kernel_ends_before_the_chips_l2_served_its_bytes() -> None:
    # FA3's backward converts dQ at its end: each of 256 tiles reads 128 rows of the fp32 accumulator (hits: the main
    # kernel's atomics left it in L2) and writes them as bf16, one wave of two CTAs on most of the H100's 132 SMs. A
    # representative's stores take what the other SMs leave of L2, from their demand alone, which the launch's 2.5k
    # cycles dilute: its kernel ran 2,137 cycles past the launch, less than the 2,514 the chip's L2 takes to serve
    # the kernel's 12.6 MB (exact mode: 3,129). No kernel ends before that (`simgpu.fast.run_fast`). With the main
    # kernel's 64-query tiles, the default at d = 64 until the sixty-eighth session took FA3's 128 x 128 (then the
    # conversion's own runs take 3,003 cycles, past the floor).
    arch = load_arch("h100")
    batch, heads, seqlen, headdim = 4, 16, 512, 64
    l2_bytes = batch * heads * seqlen * headdim * (4 + 2)  # dQ read as fp32, written as bf16
    problem = Problem(batch, heads, seqlen, headdim, pass_="bwd")
    fast = simulate(arch, "v3", problem, {"block_m": 64}, mode="fast")
    launch = arch.kernel_launch_s * fast.clock_hz
    assert fast.kernel_cycles[-1] - launch == pytest.approx(l2_bytes / arch.l2_bytes_per_cycle(fast.clock_hz))


def test_every_head_replayed_times_the_softmaxs_write_backs_in_the_softmax() -> None:
    # Standard attention's forward on the whole H200, 4 x 16 heads, N = 512, d = 64: the softmax writes P, 34 MB,
    # past L2's dirty capacity (27 MB), and exact mode writes 34 MB back during it and 4 MB during P V. The replayed
    # first heads' dirty lines outlived their kernel there (only the later heads' bytes push them out), and their
    # write-backs were timed in P V (35 MB) and 4 MB in the softmax, which came out 19% fast. Where the later heads push
    # the first heads' lines out and every head replays cheaply, the miss shares come from every head
    # (`simgpu.fast_bytes._all_heads`): P written back once in full during the softmax, O during P V.
    problem = Problem(4, 16, 512, 64)
    arch = load_arch("h200")
    kernels = schedule(arch, "standard", problem, {})
    shares = plan_fast(arch, kernels).shares
    assert shares[1]["P"].written == pytest.approx(1.0, rel=1e-3)
    assert shares[2]["O"].written == pytest.approx(1.0, rel=1e-3)
    fast = simulate(arch, "standard", problem, mode="fast")
    exact = simulate(arch, "standard", problem, mode="exact")
    assert fast.kernel_cycles[1] == pytest.approx(exact.kernel_cycles[1], rel=0.01)


def test_splits_launched_apart_replay_as_heads_of_their_own() -> None:
    # v1's split grid on an A100 cut to 16 SMs (32 slots) and 4 MiB of L2: 64 heads of 4 splits, a head's splits 64
    # CTAs apart, the run's data 30 MiB. Exact mode's later splits find none of the K_j, V_j an earlier one read; the
    # replay walked a head's splits together and read a third of its HBM bytes (12.6 MB of 37.8). Each split is now
    # a head of the replay's own (`Kernel.launched_apart_axis`).
    arch = load_arch("a100", {"sms": 16, "l2.capacity_bytes": 4 * 2**20})
    problem, options = Problem(4, 16, 512, 64), {"splits": 4}
    assert schedule(arch, "v1", problem, options)[0].launched_apart_axis == 2
    fast = simulate(arch, "v1", problem, options)
    exact = simulate(arch, "v1", problem, options, mode="exact")
    assert fast.hbm_read_bytes == pytest.approx(exact.hbm_read_bytes, rel=0.002)
    assert fast.hbm_write_bytes == pytest.approx(exact.hbm_write_bytes, rel=1e-6)
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)


def test_every_head_replayed_gives_the_bytes_where_the_first_heads_stand_badly_for_the_rest() -> None:
    # Standard attention's forward on the whole A100, 16 heads, N = 1k, d = 64: S (32 MB) about fills the 40 MB L2,
    # and the softmax's P pushes out the S of the heads it has not read yet. The first 12 heads, replayed in their
    # share and scaled to 16, read 18.9 MB from HBM where exact mode reads 23.9 MB; every head replayed reads exact
    # mode's bytes (with each wave's stores handed over slot by slot to the next wave's first loads).
    problem = Problem(1, 16, 1024, 64)
    fast = simulate("a100", "standard", problem, mode="fast")
    exact = simulate("a100", "standard", problem, mode="exact")
    assert [getattr(fast, name) for name in BYTE_FIELDS] == [getattr(exact, name) for name in BYTE_FIELDS]


def test_a_wave_hands_its_slots_over_store_by_store_to_the_next_waves_first_loads() -> None:
    # A kernel writes S_0..S_3 (1 KB each) into a 5 KB L2; the next, 2 slots, reads S_i and writes P_i per tile. The
    # replay walks the first wave's loads, then per slot the finished tile's store and the first load of the tile
    # that takes the slot next: P_0, S_2 (a hit), P_1 (evicting S_3), S_3 (a miss). In lockstep, P_0 and P_1 both
    # came before the second wave's loads and evicted S_2 and S_3: two misses where exact mode's CTAs make one.
    kb = 1024
    write = KernelAccesses([records([Store("S", row, kb)]) for row in range(4)], slots=4)
    softmax = KernelAccesses([records([Load("S", row, kb), Store("P", row, kb)]) for row in range(4)], slots=2)
    assert replay(load_arch("h100"), [write, softmax], capacity_bytes=5 * kb).hbm_read_bytes == kb


def test_the_write_backs_that_later_heads_force_are_timed_in_the_last_kernel() -> None:
    # Standard attention's softmax alone on an H200 cut to 8 SMs, 2 MB of L2 and 8/132 of its HBM rate, 128 heads:
    # it reads S and writes P, 64 MB of each, HBM-bound. The replay walks the first head, whose P fits its share of
    # L2; on the chip the later heads push it out during the run. Fast mode left those write-backs after the run,
    # untimed, times the heads: 0.46x exact mode's cycles. Now they are written back in the run, as in exact mode.
    arch = load_arch("h200", {"sms": 8, "l2.capacity_bytes": 2 * MB, "hbm.bandwidth_bytes_per_s": 4.8e12 * 8 / 132})
    softmax = schedule(arch, "standard", Problem(8, 16, 512, 64), {})[1]
    exact = Engine(arch).run([softmax])
    fast = run_fast(arch, [softmax], arch.clock_hz, 10**8)
    assert (fast.hbm_read_bytes, fast.hbm_write_bytes) == (exact.hbm_read_bytes, exact.hbm_write_bytes)
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.02)

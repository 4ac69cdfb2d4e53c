"""Small exact stories about the engine: each expectation is worked out by hand from the toy chip's rates."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import pytest

from algorithms._schedule.softmax import online_softmax
from simgpu.arch import Arch, load_arch
from simgpu.engine import Engine, ctas_per_sm
from simgpu.errors import DeadlockError, EventBudgetError, ResourceError, ScheduleError
from simgpu.kernel import BarrierSpec, CtaResources, Kernel, Role
from simgpu.ops import Advance, Arrive, Delay, Exp, Fma, Load, Mma, Op, Repeat, Smem, Store, Vector, Wait
from simgpu.trace import Trace
from tests.core.conftest import TOY

MB = 1_000_000  # 1 MB takes 1000 cycles at the toy HBM's 1000 B/cycle
ISSUE = 1  # a TMA copy is one instruction: one issue cycle before the engine starts it
# Dependency latencies that the sync stories' ops (Delay, Arrive, Wait) never meet: only the sync keys matter there.
SYNC_ONLY_LATENCY = {"fma_cycles": 1, "alu_cycles": 1, "mufu_cycles": 1, "shuffle_cycles": 1, "smem_cycles": 1,
                     "mma_sync_cycles": 1, "mma_async_cycles": 0}  # fmt: skip


def one_cta(roles: Sequence[Role], barriers: Sequence[BarrierSpec] = (), smem: int = 0, tiles: int = 1) -> Kernel:
    threads = 32 * sum(role.warps for role in roles)
    return Kernel("story", tuple(range(tiles)), CtaResources(threads, 32, smem), tuple(roles), tuple(barriers))


def fixed(*ops: Op) -> Role:
    return Role("r", 4, lambda tile: ops)


def test_one_load_takes_bytes_over_bandwidth(toy_hopper: Arch) -> None:
    stats = Engine(toy_hopper).run([one_cta([fixed(Load("Q", 0, MB))])])
    assert stats.cycles == ISSUE + 1000
    assert stats.hbm_read_bytes == MB


LOADED = {"extra_cycles": 400.0, "knee_utilization": 0.5, "window_cycles": 1000.0}


def test_a_miss_returns_later_while_the_hbm_is_busy(toy_hopper: Arch) -> None:
    # The toy HBM serves 1000 B/cycle; a load books its bytes at once, so over a window of 1000 cycles 250 KB is a
    # utilization of 0.25: half the knee, half the 400-cycle extra. 1 MB is past the knee: the whole extra.
    arch = toy_hopper.with_overrides({"hbm.loaded_latency": LOADED})

    def run(nbytes: int) -> float:
        return Engine(arch).run([one_cta([fixed(Load("Q", 0, nbytes))])]).cycles

    assert run(250_000) == pytest.approx(ISSUE + 250 + 200)
    assert run(MB) == pytest.approx(ISSUE + 1000 + 400)


def test_two_loads_sharing_hbm_take_twice_as_long(toy_hopper: Arch) -> None:
    a = Role("a", 4, lambda tile: (Load("Q", "a", MB),))
    b = Role("b", 4, lambda tile: (Load("K", "b", MB),))
    stats = Engine(toy_hopper).run([one_cta([a, b])])
    assert stats.cycles == ISSUE + 2000
    assert stats.units["hbm"].busy_cycles == 2000


def test_async_mma_overlaps_exp_on_another_unit(toy_blackwell: Arch) -> None:
    # tcgen05 128x256x64 bf16: 2*128*256*64 / 8192 FLOP/cycle = 512 cycles; smem operands 48 KiB / 128 = 384.
    mma = Mma(128, 256, 64, "bf16", a="smem", b="smem", acc="tmem", arrive="mma_done")
    exp = Exp(16 * 300)  # 4800 ex2 at 16/cycle = 300 cycles on MUFU
    overlapped = fixed(mma, exp, Wait("mma_done"))
    stats = Engine(toy_blackwell).run([one_cta([overlapped], [BarrierSpec("mma_done")])])
    assert stats.cycles == 512
    serial = fixed(Mma(128, 256, 64, "bf16", a="smem", b="smem", acc="tmem"), exp)
    assert Engine(toy_blackwell).run([one_cta([serial])]).cycles == 512 + 300


def pipeline(iterations: int) -> Kernel:
    """load (1000 cycles) -> exp (1500 cycles, the slowest) -> fma (500 cycles), two-slot rings between stages."""

    def load(tile: Hashable) -> Sequence[Op]:
        step = lambda i: (Wait("empty1"), Load("X", i, MB, arrive="full1"), Advance(("empty1", "full1")))  # noqa: E731
        return (Repeat(iterations, step),)

    def exp(tile: Hashable) -> Sequence[Op]:
        def step(i: int) -> Sequence[Op]:
            return (
                Wait("full1"),
                Exp(16 * 1500),
                Arrive("empty1"),
                Wait("empty2"),
                Arrive("full2"),
                Advance(("full1", "empty1", "full2", "empty2")),
            )

        return (Repeat(iterations, step),)

    def fma(tile: Hashable) -> Sequence[Op]:
        step = lambda i: (Wait("full2"), Fma(128 * 500), Arrive("empty2"), Advance(("full2", "empty2")))  # noqa: E731
        return (Repeat(iterations, step),)

    rings = [
        BarrierSpec("full1", slots=2),
        BarrierSpec("empty1", initial_phases=1, slots=2),
        BarrierSpec("full2", slots=2),
        BarrierSpec("empty2", initial_phases=1, slots=2),
    ]
    roles = [Role("load", 1, load), Role("exp", 4, exp), Role("fma", 4, fma)]
    return one_cta(roles, rings)


def test_three_stage_pipeline_period_is_the_slowest_stage(toy_hopper: Arch) -> None:
    short = Engine(toy_hopper).run([pipeline(10)]).cycles
    long = Engine(toy_hopper).run([pipeline(20)]).cycles
    assert (long - short) / 10 == 1500
    # Fill: the first load (issue + 1000) and the last fma (500) are not hidden.
    assert short == ISSUE + 1000 + 10 * 1500 + 500


def test_cta_that_does_not_fit_in_smem_is_rejected(toy_hopper: Arch) -> None:
    kernel = one_cta([fixed(Fma(1))], smem=toy_hopper.smem.per_cta_bytes + 1)
    with pytest.raises(ResourceError, match="shared memory per CTA"):
        Engine(toy_hopper).run([kernel])


def test_occupancy_is_limited_by_the_scarcest_resource(toy_hopper: Arch) -> None:
    # 100 KiB of smem per CTA: two fit in 228 KiB; 4 warps x 32 registers are no limit.
    assert ctas_per_sm(toy_hopper, one_cta([fixed(Fma(1))], smem=100 * 1024)) == 2


def test_bytes_and_busy_cycles_add_up(toy_hopper: Arch) -> None:
    loads = [Load("Q", i, 3000 * (i + 1)) for i in range(4)]
    stats = Engine(toy_hopper).run([one_cta([fixed(*loads, Fma(128 * 700))], tiles=3)])
    moved = 3 * sum(op.nbytes for op in loads)  # every tile reloads: L2 capacity is 0
    assert stats.hbm_read_bytes == stats.l2_read_bytes == moved
    assert stats.units["hbm"].busy_cycles == moved / 1000
    assert stats.units["fma"].busy_cycles == 3 * 700


def test_l2_hit_costs_no_hbm_bytes(toy_hopper: Arch) -> None:
    cached = toy_hopper.with_overrides({"l2.capacity_bytes": 10 * MB})
    stats = Engine(cached).run([one_cta([fixed(Load("K", 0, MB), Load("K", 0, MB))])])
    assert stats.hbm_read_bytes == MB
    assert stats.l2_read_bytes == 2 * MB


def test_a_kernel_of_stores_ends_when_the_write_backs_past_the_dirty_capacity_do(toy_hopper: Arch) -> None:
    # 3 MB of L2, at most half of it dirty: three 1 MB stores (one TMA issue cycle each). The second and the third
    # each push the dirty bytes over 1.5 MB, so each writes the oldest dirty tile back (1000 cycles at 1000 B/cycle,
    # one after the other): the kernel ends with the third's write-back. The last tile stays dirty until the end.
    stores = fixed(*(Store("S", n, MB, engine="tma") for n in range(3)))
    capped = toy_hopper.with_overrides({"l2.capacity_bytes": 3 * MB, "l2.max_dirty_fraction": 0.5})
    stats = Engine(capped).run([one_cta([stores])])
    assert stats.cycles == pytest.approx(2 * ISSUE + 2000)
    assert (stats.units["hbm"].busy_cycles, stats.hbm_write_bytes) == (2000, 3 * MB)
    # All of L2 may be dirty: nothing is written back while the kernel runs, all of it after.
    uncapped = capped.with_overrides({"l2.max_dirty_fraction": 1.0})
    stats = Engine(uncapped).run([one_cta([stores])])
    assert stats.cycles == pytest.approx(3 * ISSUE, abs=0.01)
    assert (stats.units["hbm"].busy_cycles, stats.hbm_write_bytes) == (0, 3 * MB)


def test_a_write_back_takes_the_hbms_write_cost(toy_hopper: Arch) -> None:
    # The same three stores with written bytes at 1.25 read bytes' time: each write-back takes 1250 cycles.
    stores = fixed(*(Store("S", n, MB, engine="tma") for n in range(3)))
    costly = toy_hopper.with_overrides(
        {"l2.capacity_bytes": 3 * MB, "l2.max_dirty_fraction": 0.5, "hbm.write_cost_ratio": 1.25}
    )
    stats = Engine(costly).run([one_cta([stores])])
    assert stats.cycles == pytest.approx(2 * ISSUE + 2500)
    assert (stats.units["hbm"].busy_cycles, stats.hbm_write_bytes) == (2500, 3 * MB)


def test_deadlock_names_the_waiting_role_and_barrier(toy_hopper: Arch) -> None:
    stuck = Role("consumer", 4, lambda tile: (Wait("full"),))
    with pytest.raises(DeadlockError, match=r"role 'consumer' waits on barrier 'full' phase 1"):
        Engine(toy_hopper).run([one_cta([stuck], [BarrierSpec("full")])])


def test_event_budget_stops_a_runaway_simulation(toy_hopper: Arch) -> None:
    # A program whose first tile looks cheap but whose later tiles loop for ever: caught while running.
    endless = Role("r", 4, lambda tile: (Repeat(10**9 if tile else 1, lambda i: (Fma(1),)),))
    kernel = Kernel("story", (0, 1), CtaResources(128, 32, 0), (endless,))
    with pytest.raises(EventBudgetError, match="event budget of 1,000"):
        Engine(toy_hopper, event_budget=1000).run([kernel])


def test_persistent_ctas_pull_tiles_in_order(toy_hopper: Arch) -> None:
    # One SM, one CTA at a time (smem-bound): a persistent CTA runs all 5 tiles back to back.
    role = fixed(Fma(128 * 100))
    kernel = Kernel("p", tuple(range(5)), CtaResources(128, 32, 200 * 1024), (role,), persistent=True)
    stats = Engine(toy_hopper).run([kernel])
    assert stats.cycles == 500
    assert stats.claim_cycles == (100, 200, 300, 400)  # its one role draws each next tile as it ends the last


def test_a_role_with_nothing_to_do_does_not_drain_the_queue_into_its_cta() -> None:
    # Two SMs, one persistent CTA each, 8 tiles of 100 cycles of FMA work; a second role has no op for any tile. It
    # may take tile k only once the working role has started tile k - 1, so the SMs share the tiles 4 and 4 (the
    # queue drained into one CTA would take 7 x 100 there).
    arch = load_arch("h100", {**TOY, "sms": 2})
    work, idle = Role("work", 4, lambda tile: (Fma(128 * 100),)), Role("idle", 1, lambda tile: ())
    kernel = Kernel("p", tuple(range(8)), CtaResources(160, 32, 200 * 1024), (work, idle), persistent=True)
    stats = Engine(arch).run([kernel])
    assert stats.cycles == 4 * 100
    # The idle role asks as soon as the working role starts a tile: each CTA draws its next tile as its last starts.
    assert stats.claim_cycles == (0, 0, 100, 100, 200, 200)


def test_a_role_can_fill_and_drain_one_ring_with_two_cursors(toy_hopper: Arch) -> None:
    # One role prefetches block i + 1 through the "@load" view while consuming block i through the plain cursor.
    def step(i: int) -> Sequence[Op]:
        prefetch = (Load("X", i + 1, MB, arrive="full@load"), Advance(("full@load",))) if i + 1 < 4 else ()
        return (*prefetch, Wait("full"), Fma(128 * 1500), Advance(("full",)))

    role = Role("r", 4, lambda tile: (Load("X", 0, MB, arrive="full@load"), Advance(("full@load",)), Repeat(4, step)))
    cycles = Engine(toy_hopper).run([one_cta([role], [BarrierSpec("full", slots=2)])]).cycles
    # Loads (1000 each) hide under the 1500-cycle compute of the previous block: issue + 1000 + 4 x 1500, plus the
    # issue slot of the prefetches of blocks 2 and 3, issued between FMA blocks (block 1's goes out during the wait).
    assert cycles == ISSUE + 1000 + 4 * 1500 + 2 * ISSUE


def test_pipes_slow_down_while_the_tensor_cores_run(toy_hopper: Arch) -> None:
    # H100's measured contention: ex2 runs at a fraction of its rate while wgmma is busy. An async MMA of
    # 2 x 128 x 256 x 64 FLOP / 4096 = 1024 cycles beside 4800 ex2 (300 cycles alone, all inside the MMA).
    assert toy_hopper.contention is not None
    mufu_rate = toy_hopper.contention.mufu_rate_while_tensor_busy
    mma = Role("mma", 4, lambda tile: (Mma(128, 256, 64, "bf16", a="smem", b="smem", acc="reg"),))
    exps = Role("exp", 4, lambda tile: (Delay(10), Exp(16 * 300)))
    stats = Engine(toy_hopper).run([one_cta([mma, exps])])
    assert stats.units["mufu"].busy_cycles == pytest.approx(300 / mufu_rate)
    assert stats.units["tensor"].busy_cycles == pytest.approx(1024)  # wgmma keeps its rate beside ex2
    free = toy_hopper.with_overrides({"contention": None})
    assert Engine(free).run([one_cta([mma, exps])]).units["mufu"].busy_cycles == 300


def test_a_role_that_issues_an_async_mma_waits_until_the_tensor_cores_take_its_instructions(toy_hopper: Arch) -> None:
    # wgmma m64n256k16 instructions of 2 x 64 x 256 x 16 / 4096 = 128 cycles each; an MMA of K = 64 is 4 of them
    # (512 cycles). With a queue of q instructions the issuing role goes on once all but q + 1 have started.
    mma = Mma(64, 256, 64, "bf16", a="smem", b="smem", acc="reg", arrive="done")
    role = fixed(mma, Fma(128 * 1000), Wait("done"))

    def cycles(queue: int | None) -> float:
        arch = toy_hopper.with_overrides({"contention": None, "tensor_core.issue_queue_instructions": queue})
        return Engine(arch).run([one_cta([role], [BarrierSpec("done")])]).cycles

    # The FMA block (1000 cycles, longer than the MMA) starts when the role is released and ends the run. Without
    # a hold it starts after the MMA's issue slot (4 instructions on 4 schedulers: 1 cycle).
    assert cycles(None) == 1 + 1000
    assert cycles(0) == pytest.approx(512 - 128 + 1000)
    assert cycles(1) == pytest.approx(512 - 256 + 1000)
    assert cycles(3) == 1 + 1000  # the whole MMA fits the queue


def test_an_mma_from_smem_reads_b_once_per_instruction_row_and_a_once_per_instruction_column(
    toy_hopper: Arch,
) -> None:
    # wgmma's instruction is m64nNk16 with N up to 256: an MMA of M = 128 is two instruction rows, each reading the
    # whole B tile (N x K), and one of N = 512 two instruction columns, each reading the whole A tile (M x K).
    def smem_read(m: int, n: int, a: str = "smem") -> float:
        role = fixed(Mma(m, n, 64, "bf16", a=a, b="smem", acc="reg"))
        return Engine(toy_hopper).run([one_cta([role])]).smem_read_bytes

    a_bytes, b_bytes = 64 * 64 * 2, 128 * 64 * 2  # M = 64 or N = 128 by K = 64, 2 bytes each
    assert smem_read(64, 128) == a_bytes + b_bytes
    assert smem_read(128, 128) == 2 * a_bytes + 2 * b_bytes  # A is twice as tall, B read twice
    assert smem_read(128, 128, a="reg") == 2 * b_bytes
    assert smem_read(64, 512) == 2 * a_bytes + 4 * b_bytes  # B is four times as wide, A read twice


def test_an_empty_mma_is_refused_with_its_shape(toy_hopper: Arch) -> None:
    # A schedule that splits a product into k-steps must not leave an empty one (a ZeroDivisionError before).
    with pytest.raises(ScheduleError, match="an MMA needs positive M, N and K; got 64x128x0"):
        Engine(toy_hopper).run([one_cta([fixed(Mma(64, 128, 0, "bf16"))])])


def test_a_launched_apart_axis_among_the_head_axes_is_refused() -> None:
    role = Role("w", 1, lambda _tile: [Delay(1)])
    with pytest.raises(ScheduleError, match="launched_apart_axis must lie past the head axes"):
        Kernel("k", [(0, 0, 0)], CtaResources(32, 32, 0), (role,), head_axes=2, launched_apart_axis=1)


def test_memory_axes_short_of_the_head_axes_are_refused() -> None:
    role = Role("w", 1, lambda _tile: [Delay(1)])
    with pytest.raises(ScheduleError, match="memory_axes must hold the head axes"):
        Kernel("k", [(0, 0, 0)], CtaResources(32, 32, 0), (role,), head_axes=2, memory_axes=1)


def test_work_already_queued_on_a_pipe_is_stretched_by_a_later_mma(toy_hopper: Arch) -> None:
    # 3000 cycles of ex2 are reserved first; 100 cycles later a 1024-cycle wgmma starts. The ex2 work still pending
    # runs at the contended rate for those 1024 cycles, so the MUFU is busy (1 - rate) x 1024 cycles longer, and a
    # second ex2 op of the same role starts only after the stretched work.
    assert toy_hopper.contention is not None
    mufu_rate = toy_hopper.contention.mufu_rate_while_tensor_busy
    exps = Role("exp", 4, lambda tile: (Exp(16 * 3000), Exp(16 * 100)))
    mma = Role("mma", 4, lambda tile: (Delay(100), Mma(128, 256, 64, "bf16", a="smem", b="smem", acc="reg")))
    stats = Engine(toy_hopper).run([one_cta([exps, mma])])
    stretch = (1 - mufu_rate) * 1024
    assert stats.units["mufu"].busy_cycles == pytest.approx(3100 + stretch)
    assert stats.cycles >= 3100 + stretch


def test_an_op_in_flight_ends_when_its_stretched_work_does(toy_hopper: Arch) -> None:
    # The same 3000 cycles of ex2, reserved alone at 0: a wgmma reserved 100 cycles later stretches the MUFU work
    # still pending by (1 - rate) x 1024, and the exp op itself, whose end was 3000 when it was reserved, ends then
    # too (its role waits for the revised end before its next op).
    assert toy_hopper.contention is not None
    mufu_rate = toy_hopper.contention.mufu_rate_while_tensor_busy
    exps = Role("exp", 4, lambda tile: (Exp(16 * 3000),))
    mma = Role("mma", 4, lambda tile: (Delay(100), Mma(128, 256, 64, "bf16", a="smem", b="smem", acc="reg")))
    trace = Trace()
    Engine(toy_hopper, trace=trace).run([one_cta([exps, mma])])
    (exp_span,) = [span for span in trace.spans if span.track.endswith(" exp")]
    assert exp_span.end_cycles == pytest.approx(3000 + (1 - mufu_rate) * 1024)
    # Stretched twice: two wgmmas of 1024 cycles, one after the other, beside the same op.
    twice = Role("mma", 4, lambda tile: (Delay(100), *(Mma(128, 256, 64, "bf16", a="smem", b="smem", acc="reg"),) * 2))
    trace = Trace()
    Engine(toy_hopper, trace=trace).run([one_cta([exps, twice])])
    (exp_span,) = [span for span in trace.spans if span.track.endswith(" exp")]
    assert exp_span.end_cycles == pytest.approx(3000 + 2 * (1 - mufu_rate) * 1024)


def test_two_roles_issuing_wgmma_at_once_are_served_in_turn(toy_hopper: Arch) -> None:
    # Two warpgroups each issue one 1024-cycle wgmma (2 x 128 x 256 x 64 FLOP at 4096/cycle), the second one cycle
    # later. The tensor cores take them first come, first served, issue hold or not: the second's result comes 1024
    # cycles after the first's: FA3's consumers at d = 128 take turns on the chip from every start delay.
    # (Each then loads a few bytes: the time its wait ended.)
    def role(name: str, start: int) -> Role:
        mma = Mma(128, 256, 64, "bf16", a="smem", b="smem", acc="reg", arrive=name)
        return Role(name, 4, lambda tile: (Delay(start), mma, Wait(name), Load("x", name, 64)))

    def results_at(arch: Arch) -> dict[str, float]:
        trace = Trace()
        kernel = one_cta([role("a", 0), role("b", 1)], [BarrierSpec("a"), BarrierSpec("b")])
        Engine(arch, trace=trace).run([kernel])
        return {span.track[-1]: span.start_cycles for span in trace.spans if span.name == "Load"}

    held = results_at(toy_hopper)
    assert held["b"] - held["a"] == pytest.approx(1024)
    free = results_at(toy_hopper.with_overrides({"tensor_core.issue_queue_instructions": None}))
    assert free == held


def test_two_roles_exp_passes_in_parts_share_the_mufu(toy_hopper: Arch) -> None:
    # Two warpgroups run the same exp pass (64 x 128 scores: 8256 ex2, 516 cycles of MUFU), the second one cycle
    # later. Alone, a pass takes 654.5 cycles whole or in 16 parts (its in-order issue beside the MUFU). Whole, the
    # MUFU serves the first's pass and then the second's: the second ends a pass later. In 16 parts they take the
    # MUFU a part at a time (32.25 cycles) and end a part apart, as two warpgroups sharing it an instruction at a
    # time do on the chip, with the MUFU busy throughout: each one's issue fills the other's gaps.
    def ends(parts: int, names: Sequence[str]) -> dict[str, float]:
        def role(name: str, start: int) -> Role:
            ops = online_softmax(64, 128, 128, masked=False, parts=parts)[2:]
            return Role(name, 4, lambda tile: (Delay(start), *ops, Load("x", name, 64)))

        trace = Trace()
        Engine(toy_hopper, trace=trace).run([one_cta([role(name, n) for n, name in enumerate(names)], [])])
        return {span.track[-1]: span.start_cycles for span in trace.spans if span.name == "Load"}

    alone = ends(1, "a")["a"]
    assert alone == pytest.approx(654.51) and ends(16, "a")["a"] == pytest.approx(alone)
    whole, cut = ends(1, "ab"), ends(16, "ab")
    assert whole["a"] == pytest.approx(alone) and whole["b"] - whole["a"] == pytest.approx(alone - 1, abs=0.1)
    assert cut["b"] - cut["a"] == pytest.approx(8256 / 16 / 16)
    assert cut["b"] == pytest.approx(2 * 8256 / 16, rel=0.01)


def test_mma_sync_and_ffma_slow_each_other_down(toy_hopper: Arch) -> None:
    # mma.sync reads all its operands from the register file: beside a busy FMA pipe the tensor cores run at
    # `tensor_rate_while_fma_busy` and the FMA pipe at the legacy path's `fma_rate_while_tensor_busy`. A long
    # mma.sync (2 x 64 x 256 x 512 FLOP at 2730 FLOP/cycle) starts first; 500 cycles of FFMA join it, take 500 / f_fma
    # cycles beside it, and the tensor cores run at f_tensor for that long.
    assert toy_hopper.contention is not None and toy_hopper.contention.mma_sync is not None
    rates = toy_hopper.contention.mma_sync
    mma = Role("mma", 4, lambda tile: (Mma(64, 256, 512, "bf16", a="reg", b="reg", instruction="mma_sync"),))
    ffma = Role("ffma", 4, lambda tile: (Delay(10), Fma(128 * 500)))
    stats = Engine(toy_hopper).run([one_cta([mma, ffma])])
    assert stats.units["fma"].busy_cycles == pytest.approx(500 / rates.fma_rate_while_tensor_busy)
    alone = 2 * 64 * 256 * 512 / 2730
    beside = 500 / rates.fma_rate_while_tensor_busy
    assert stats.units["tensor"].busy_cycles == pytest.approx(alone + (1 - rates.tensor_rate_while_fma_busy) * beside)


def test_ldmatrix_traffic_and_mma_sync_slow_each_other_down(toy_hopper: Arch) -> None:
    # Thread-issued smem traffic (ldmatrix) passes through the register file as mma.sync's operands do: beside a
    # long mma.sync, 500 cycles of port traffic run at `smem_rate_while_tensor_busy` and stretch the mma.sync by
    # (1 - tensor_rate_while_smem_busy) x their slowed time.
    assert toy_hopper.contention is not None and toy_hopper.contention.mma_sync is not None
    rates = toy_hopper.contention.mma_sync
    mma = Role("mma", 4, lambda tile: (Mma(64, 256, 512, "bf16", a="reg", b="reg", instruction="mma_sync"),))
    loads = Role("ldsm", 4, lambda tile: (Delay(10), Smem(read_bytes=128 * 500)))
    stats = Engine(toy_hopper).run([one_cta([mma, loads])])
    assert stats.units["smem"].busy_cycles == pytest.approx(500 / rates.smem_rate_while_tensor_busy)
    alone = 2 * 64 * 256 * 512 / 2730
    beside = 500 / rates.smem_rate_while_tensor_busy
    assert stats.units["tensor"].busy_cycles == pytest.approx(alone + (1 - rates.tensor_rate_while_smem_busy) * beside)


def test_a_run_far_over_the_event_budget_is_refused_before_it_starts(toy_hopper: Arch) -> None:
    import time

    huge = Role("r", 4, lambda tile: (Repeat(10**12, lambda i: (Fma(1),)),))
    started = time.perf_counter()
    with pytest.raises(EventBudgetError, match=r"needs about 1,000,000,000,000 ops"):
        Engine(toy_hopper).run([one_cta([huge])])
    assert time.perf_counter() - started < 1.0


def test_one_warp_per_scheduler_overlaps_its_pipes_only_in_part(toy_hopper: Arch) -> None:
    # 300 cycles of ex2 with 100 cycles each of FFMA and FMNMX: from 2 warps per scheduler the pipes overlap (the
    # longest, 300); from one, in-order issue adds the fraction f of the others' 200 cycles.
    arch = toy_hopper.with_overrides({"contention": None, "sm.single_warp_serial_fraction": 0.5})
    op = Vector(fma=128 * 100, alu=64 * 100, ex2=16 * 300)
    for warps, cycles in ((4, 300 + 0.5 * 200), (8, 300)):
        role = Role("softmax", warps, lambda tile: (op,))
        assert Engine(arch).run([one_cta([role])]).cycles == pytest.approx(cycles), warps
    role = Role("softmax", 4, lambda tile: (op,))
    assert Engine(arch.with_overrides({"sm.single_warp_serial_fraction": None})).run([one_cta([role])]).cycles == 300


def test_instructions_on_no_pipe_take_issue_slots(toy_hopper: Arch) -> None:
    # 100 cycles of FFMA (128 lanes a cycle) issue 400 warp instructions: 100 cycles of 4 schedulers. 800 more warp
    # instructions on no modeled pipe (branches, narrow loads: `Vector.issue`) make the op issue-bound, 300 cycles.
    arch = toy_hopper.with_overrides({"contention": None, "sm.single_warp_serial_fraction": None})
    assert arch.sm.warp_schedulers == 4
    for issue, cycles in ((0.0, 100), (800 * 32, 300)):
        role = Role("r", 8, lambda tile, issue=issue: (Vector(fma=128 * 100, issue=issue),))  # type: ignore[misc]
        assert Engine(arch).run([one_cta([role])]).cycles == pytest.approx(cycles), issue
    negative = Role("r", 8, lambda tile: (Vector(fma=128, issue=-1.0),))
    with pytest.raises(ScheduleError, match=r"issue \(lane instructions on no pipe\) must be >= 0, got -1.0"):
        Engine(arch).run([one_cta([negative])])


@pytest.mark.parametrize("engine", ["cp_async", "tma"])
def test_a_copy_landing_in_smem_takes_its_engines_share_of_the_port(toy_hopper: Arch, engine: str) -> None:
    # 128,000 bytes land in smem: at 128 B/cycle the port would need 1000 cycles for them; a copy engine takes its
    # measured share of that (0 under the FA4 roofline's convention), and the bytes count as written either way.
    shares = {"smem.cp_async_write_port_fraction": 0.75, "smem.tma_write_port_fraction": 0.25}
    arch = toy_hopper.with_overrides({**shares, "contention": None})
    stats = Engine(arch).run([one_cta([fixed(Load("K", 0, 128_000, engine=engine))])])  # type: ignore[arg-type]
    assert stats.units["smem"].busy_cycles == pytest.approx(shares[f"smem.{engine}_write_port_fraction"] * 1000)
    convention = arch.with_overrides({f"smem.{engine}_write_port_fraction": 0.0})
    assert (
        Engine(convention).run([one_cta([fixed(Load("K", 0, 128_000, engine=engine))])]).units["smem"].busy_cycles == 0
    )


def test_a_cp_async_copy_holds_its_warps_while_they_issue_it(toy_hopper: Arch) -> None:
    # 64 KiB by 4 warps: 4096 copies of 16 bytes, 32 per warp. Each costs its warp 3 address instructions at the ALU
    # latency (4 cycles) and 8 cycles on the load path: 32 x (3 x 4 + 8) = 640 cycles before the role goes on to
    # its 100 cycles of FFMA (issue slots, 4096 x 4 / 32 / 4 = 128, and the ALU pipe, 4096 x 3 / 64 = 192, are
    # shorter). The data (65.5 cycles from HBM) lands under the FFMA.
    timed = {key: value for key, value in TOY.items() if key != "latency"}  # the H100's dependency latencies
    arch = load_arch("h100", timed).with_overrides(  # its waits free: the last Wait is only the end of the story
        {"sm.cp_async_issue_cycles": 8.0, "sm.cp_async_bytes_per_cycle": None, "contention": None,
         "latency.wait_cycles": None}
    )  # fmt: skip
    assert arch.latency is not None and arch.latency.alu_cycles == 4 and arch.latency.fma_cycles == 4

    def run(load: Load, **overrides: object) -> float:
        ops = (load, Fma(128 * 100), Wait("kv"))
        return Engine(arch.with_overrides(overrides)).run([one_cta([fixed(*ops)], [BarrierSpec("kv")])]).cycles

    copy = Load("K", 0, 65536, engine="cp_async", arrive="kv", address_instructions=3)
    assert run(copy) == pytest.approx(640 + 100)
    assert run(copy, **{"sm.cp_async_issue_cycles": None}) == pytest.approx(32 * 3 * 4 + 100)
    # Addresses for free and no load-path pace: the role waits for its copies' issue slots, 4096 / 32 / 4 = 32.
    assert run(Load("K", 0, 65536, engine="cp_async", arrive="kv"), **{"sm.cp_async_issue_cycles": None}) == 32 + 100
    # ld.global does not hold its role: the data comes one address chain (384 cycles) plus 65.5 after the start.
    assert run(Load("K", 0, 65536, engine="ldg", arrive="kv", address_instructions=3)) == pytest.approx(384 + 65.536)
    with pytest.raises(ScheduleError, match="address_instructions must be >= 0"):
        run(Load("K", 0, 65536, engine="cp_async", arrive="kv", address_instructions=-1))


def test_a_load_in_dependent_rounds_takes_a_latency_per_round(toy_hopper: Arch) -> None:
    # 10 kB come from HBM in 10 cycles and land 500 later; made in 4 dependent rounds (each thread loads, uses and
    # stores a part before it loads the next) they take 4 x 500 from the issue, unless the bytes take longer: 10 MB
    # in 10,000 cycles. A hit (the second load of a tile that stays in L2) waits the L2's 100 per round.
    arch = toy_hopper.with_overrides(
        {"hbm.latency_cycles": 500, "l2.hit_latency_cycles": 100, "l2.capacity_bytes": 100 * MB}
    )

    def run(*loads: Load) -> float:
        return Engine(arch).run([one_cta([fixed(*loads)])]).cycles

    one = run(Load("S", 0, 10_000, engine="ldg"))
    assert run(Load("S", 0, 10_000, engine="ldg", rounds=4)) - one == pytest.approx(4 * 500 - (10 + 500))
    assert run(Load("S", 0, 10 * MB, engine="ldg", rounds=4)) == run(Load("S", 0, 10 * MB, engine="ldg"))
    again = run(Load("S", 0, 10_000, engine="ldg"), Load("S", 0, 10_000, engine="ldg"))
    rounds = run(Load("S", 0, 10_000, engine="ldg"), Load("S", 0, 10_000, engine="ldg", rounds=4))
    assert rounds - again == pytest.approx(3 * 100)
    with pytest.raises(ScheduleError, match="a load's rounds must be >= 1, got 0"):
        run(Load("S", 0, 10_000, engine="ldg", rounds=0))
    with pytest.raises(ScheduleError, match="rounds are the round trips of a thread-issued load"):
        run(Load("S", 0, 10_000, engine="tma", rounds=2))


def test_fragment_stores_hold_their_warps_while_the_store_path_takes_them(toy_hopper: Arch) -> None:
    # 64 KiB written 4 bytes per thread from accumulator fragments: 16384 thread stores, 512 warp instructions. At 16
    # cycles each on the SM's store path the role is held 8192 cycles before its 100 cycles of FFMA; the write
    # itself (65.5 cycles at the toy HBM's rate) drains meanwhile. 8 bytes per thread: half the instructions.
    arch = toy_hopper.with_overrides({"sm.fragment_store_cycles": 16.0})

    def run(store: Store, chip: Arch = arch) -> float:
        return Engine(chip).run([one_cta([fixed(store, Fma(128 * 100))])]).cycles

    assert run(Store("O", 0, 65536, fragment_lane_bytes=4)) == pytest.approx(512 * 16 + 100)
    assert run(Store("O", 0, 65536, fragment_lane_bytes=8)) == pytest.approx(256 * 16 + 100)
    # REDs hold the role alike; their read-modify-write (read from and written back to HBM: the toy's L2 holds
    # nothing, 2 x 65.5 cycles) is booked when they start and done long before.
    assert run(Store("dQ", 0, 65536, atomic=True, fragment_lane_bytes=4)) == pytest.approx(512 * 16 + 100)
    # Without a store path the role waits only for its issue slots: 16384 / 32 / 4 schedulers = 128.
    assert run(Store("O", 0, 65536, fragment_lane_bytes=4), toy_hopper) == pytest.approx(128 + 100)
    # A 16-byte-per-thread store does not hold its role: it goes on after its 32 issue cycles.
    assert run(Store("O", 0, 65536)) == pytest.approx(65536 / 16 / 32 / 4 + 100)
    with pytest.raises(ScheduleError, match="fragment_lane_bytes must be >= 0"):
        run(Store("O", 0, 65536, fragment_lane_bytes=-4))


def test_a_store_instruction_over_fewer_rows_costs_its_share_of_rows_but_at_least_the_floor(toy_hopper: Arch) -> None:
    # The H200's store path: 16 cycles per warp instruction over 8 rows, 8 over 4, 5 over one row of 128 bytes
    # (validation/h200/dq_atomics_rows_h200.csv). 512 instructions as above.
    arch = toy_hopper.with_overrides({"sm.fragment_store_cycles": 16.0, "sm.fragment_store_min_cycles": 5.0})

    def run(rows: int) -> float:
        store = Store("dQ", 0, 65536, atomic=True, fragment_lane_bytes=4, fragment_rows=rows)
        return Engine(arch).run([one_cta([fixed(store, Fma(128 * 100))])]).cycles

    assert [run(rows) for rows in (8, 4, 1)] == pytest.approx([512 * 16 + 100, 512 * 8 + 100, 512 * 5 + 100])
    with pytest.raises(ScheduleError, match="fragment_rows must be 1 to 8, got 16"):
        run(16)


def test_a_fragment_store_writing_parts_of_sectors_costs_the_l2_two_sector_accesses_per_row(toy_hopper: Arch) -> None:
    # 64 KiB from fragments, 4 bytes per thread over 8 rows: 16 bytes per row and instruction, half a 32-byte sector,
    # which the L2 reads and writes (`l2.partial_sector_write_accesses` 2): 4096 row segments x 2 x 32 bytes of its
    # service. 8 bytes per thread (32-byte rows) and one row of 128 bytes write whole sectors: their bytes. The bytes
    # counted as written to L2 are the store's in every case.
    arch = toy_hopper.with_overrides({"l2.partial_sector_write_accesses": 2.0})

    def l2_service(store: Store, chip: Arch = arch) -> tuple[float, float]:
        stats = Engine(chip).run([one_cta([fixed(store)])])
        return stats.units["l2"].amount, stats.l2_write_bytes

    assert l2_service(Store("S", 0, 65536, fragment_lane_bytes=4)) == pytest.approx((4096 * 2 * 32, 65536))
    assert l2_service(Store("S", 0, 65536, fragment_lane_bytes=8)) == pytest.approx((65536, 65536))
    assert l2_service(Store("S", 0, 65536, fragment_lane_bytes=4, fragment_rows=1)) == pytest.approx((65536, 65536))
    plain = toy_hopper.with_overrides({"l2.partial_sector_write_accesses": None})
    assert l2_service(Store("S", 0, 65536, fragment_lane_bytes=4), plain) == pytest.approx((65536, 65536))


def test_a_wait_takes_its_round_trip_even_when_the_phase_has_completed(toy_hopper: Arch) -> None:
    # A wait returns no sooner than `latency.wait_cycles` after its role reaches it (an mbarrier try_wait, a
    # wgmma.wait_group); a wait that blocks returns when the phase completes, if that is later.
    arch = toy_hopper.with_overrides({"latency": {**SYNC_ONLY_LATENCY, "wait_cycles": 48}})

    def run(arrive_after: float, wait_after: float, chip: Arch = arch) -> float:
        arriving = Role("a", 4, lambda tile: (Delay(arrive_after), Arrive("b")))
        waiting = Role("w", 4, lambda tile: (Delay(wait_after), Wait("b")))
        return Engine(chip).run([one_cta([arriving, waiting], [BarrierSpec("b")])]).cycles

    assert run(arrive_after=0, wait_after=30) == 30 + 48  # complete when reached: the round trip
    assert run(arrive_after=100, wait_after=0) == 100  # blocked past its round trip: the arrival
    assert run(arrive_after=20, wait_after=0) == 48  # blocked, but the round trip is longer
    no_wait_cost = arch.with_overrides({"latency.wait_cycles": None})
    assert run(arrive_after=0, wait_after=30, chip=no_wait_cost) == 30


def test_an_arrival_reaches_a_blocked_waiter_one_hand_off_later(toy_hopper: Arch) -> None:
    # Two roles hand a phase back and forth (the v3_pieces probe's pattern): each round trip is two hand-offs, of
    # `latency.mbarrier_handoff_cycles` on mbarriers and `latency.named_handoff_cycles` on named barriers.
    handoffs = {"mbarrier_handoff_cycles": 78, "named_handoff_cycles": 38}
    arch = toy_hopper.with_overrides({"latency": {**SYNC_ONLY_LATENCY, **handoffs}})
    rounds = 10

    def run(named: bool) -> float:
        ping = Role("ping", 4, lambda tile: (Repeat(rounds, lambda i: (Arrive("a"), Wait("b"))),))
        pong = Role("pong", 4, lambda tile: (Repeat(rounds, lambda i: (Wait("a"), Arrive("b"))),))
        barriers = [BarrierSpec("a", named=named), BarrierSpec("b", named=named)]
        return Engine(arch).run([one_cta([ping, pong], barriers)]).cycles

    assert run(named=False) == rounds * 2 * 78
    assert run(named=True) == rounds * 2 * 38


def test_a_ctas_first_tma_copy_of_each_tensor_waits_one_l2_round_trip_for_its_map(toy_hopper: Arch) -> None:
    # Q's first copy waits 287 cycles for Q's tensor map, the second copy of Q does not, K's first copy waits
    # again. Each copy is 1 MB from HBM: 1000 cycles after its issue cycle. A second CTA on the slot reads the maps
    # again (a new CTA has no maps).
    arch = toy_hopper.with_overrides({"l2.hit_latency_cycles": 287})
    copies = (("Q", 0), ("Q", 1), ("K", 0))

    def program(tile: Hashable) -> Sequence[Op]:
        return tuple(
            op for name, i in copies for op in (Load(name, (tile, i), MB, engine="tma", arrive="c"), Wait("c"))
        )

    per_cta = 3 * (ISSUE + 1000) + 2 * 287
    assert Engine(arch).run([one_cta([fixed(*program(0))], [BarrierSpec("c")])]).cycles == per_cta
    kernel = Kernel("story", (0, 1), CtaResources(128, 32, 200_000), (Role("r", 4, program),), (BarrierSpec("c"),))
    assert Engine(arch.with_overrides({"sms": 1})).run([kernel]).cycles == 2 * per_cta


def test_a_roles_setup_runs_once_per_cta_before_its_first_tile(toy_hopper: Arch) -> None:
    # A persistent CTA takes both tiles: its role's 500-cycle setup runs once; one CTA per tile runs it per tile.
    work = Role("r", 4, lambda tile: (Delay(100),), setup=(Delay(500),))
    for persistent, expected in ((True, 500 + 2 * 100), (False, 2 * (500 + 100))):
        kernel = Kernel("story", (0, 1), CtaResources(128, 32, 200_000), (work,), persistent=persistent)
        assert Engine(toy_hopper.with_overrides({"sms": 1})).run([kernel]).cycles == expected


def test_fragment_stores_do_not_hold_back_another_sms_loads(toy_hopper: Arch) -> None:
    # Two SMs. SM 0 stores 64 KiB from fragments: its role is held 8192 cycles on its own store path, while the
    # write's 65.5 cycles of HBM are booked at once. SM 1 loads 1 MB from t = 10: after that write, done at
    # 65.5 + 1000, not behind a booking at the end of SM 0's issue (9257.5).
    arch = toy_hopper.with_overrides({"sms": 2, "sm.fragment_store_cycles": 16.0})

    def program(tile: Hashable) -> Sequence[Op]:
        if tile == 0:
            return (Store("O", 0, 65536, fragment_lane_bytes=4),)
        return (Delay(10), Load("Q", 1, MB, arrive="q"), Wait("q"))

    kernel = Kernel("story", (0, 1), CtaResources(128, 32, 200_000), (Role("r", 4, program),), (BarrierSpec("q"),))
    trace = Trace(sms=(0, 1))
    assert Engine(arch, trace=trace).run([kernel]).cycles == pytest.approx(512 * 16)
    spans = {(span.process, span.name): (span.start_cycles, span.end_cycles) for span in trace.spans}
    assert spans["SM 0", "Store"] == (0.0, pytest.approx(512 * 16))
    assert spans["SM 1", "Load"] == (10.0, pytest.approx(65.536 + 1000))


def test_tma_copies_pass_the_copy_engine_at_its_rate(toy_hopper: Arch) -> None:
    # 1 MB from HBM (1000 cycles at the toy's rate) through a copy engine of 250 B/cycle: 4000 cycles, plus the
    # issue cycle; two copies issued together share it: 8000.
    arch = toy_hopper.with_overrides({"tma.bytes_per_cycle": 250.0})
    copy = (Load("Q", 0, MB, engine="tma", arrive="q"), Wait("q"))
    one = Engine(arch).run([one_cta([fixed(*copy)], [BarrierSpec("q")])])
    assert one.cycles == pytest.approx(ISSUE + 4000)
    two = (Load("K", 0, MB, engine="tma", arrive="kv"), Load("V", 0, MB, engine="tma", arrive="kv"), Wait("kv"))
    both = Engine(arch).run([one_cta([fixed(*two)], [BarrierSpec("kv", arrivals=2)])])
    assert both.cycles == pytest.approx(ISSUE + 8000)


@pytest.mark.parametrize(("mmas", "ffmas"), [(100, 100), (100, 300), (200, 50)])
def test_contention_gives_the_fluid_answer_on_long_streams(toy_hopper: Arch, mmas: int, ffmas: int) -> None:
    # Two roles stream mma.sync ops (2 x 64 x 64 x 128 FLOP: 384 cycles at 2730 FLOP/cycle) and FFMA ops (256 cycles
    # each). While both have work they run at the measured fractions f_t and f_f, then the one left at full rate: the
    # fluid answer for the whole streams, op after op (docs/results/contention_streams.txt: the engine's old rule
    # gave 79% of the slowing).
    assert toy_hopper.contention is not None and toy_hopper.contention.mma_sync is not None
    f_t = toy_hopper.contention.mma_sync.tensor_rate_while_fma_busy
    f_f = toy_hopper.contention.mma_sync.fma_rate_while_tensor_busy
    product = Mma(64, 64, 128, "bf16", a="reg", b="reg", instruction="mma_sync")
    mma = Role("mma", 4, lambda tile: (Repeat(mmas, lambda i: (product,)),))
    ffma = Role("ffma", 4, lambda tile: (Repeat(ffmas, lambda i: (Fma(128 * 256),)),))
    cycles = Engine(toy_hopper).run([one_cta([mma, ffma])]).cycles
    tensor, lanes = mmas * 2 * 64 * 64 * 128 / 2730, ffmas * 256.0
    both = min(tensor / f_t, lanes / f_f)
    assert cycles == pytest.approx(both + tensor + lanes - (f_t + f_f) * both, rel=1e-9)


def test_a_copy_to_a_peer_cta_crosses_the_dsmem_link_then_its_latency(toy_blackwell: Arch) -> None:
    # 16 KiB sent (read here) and 16 KiB received (written here): the port takes 32 KiB / 128 = 256 cycles, the
    # link 16 KiB / 64 = 256 cycles, then 100 cycles of network latency. Two copies share the link back to back.
    arch = toy_blackwell.with_overrides({"dsmem.latency_cycles": 100.0, "dsmem.bandwidth_bytes_per_cycle": 64.0})
    assert arch.dsmem is not None
    half = 16 * 1024
    link = half / arch.dsmem.bandwidth_bytes_per_cycle
    copy = Smem(read_bytes=half, write_bytes=half, dsmem_bytes=half, arrive="landed")
    stats = Engine(arch).run([one_cta([fixed(copy, Wait("landed"))], [BarrierSpec("landed")])])
    assert stats.cycles == link + arch.dsmem.latency_cycles
    assert stats.units["dsmem"].busy_cycles == link
    twice = fixed(copy, copy, Wait("landed"))
    stats = Engine(arch).run([one_cta([twice], [BarrierSpec("landed", arrivals=2)])])
    assert stats.cycles == 2 * link + arch.dsmem.latency_cycles
    without = toy_blackwell.with_overrides({"dsmem": None})
    with pytest.raises(ScheduleError, match="dsmem"):
        Engine(without).run([one_cta([fixed(copy, Wait("landed"))], [BarrierSpec("landed")])])


def test_a_cluster_barrier_counts_arrivals_one_sm_to_sm_trip_late(toy_blackwell: Arch) -> None:
    # The MMA warp of a 2-CTA pair's leader waits for both CTAs: the peer's arrival (made when this CTA's is, the
    # pair being symmetric) crosses the network. An Arrive at 0 and a load landing at ISSUE + 1000 both count
    # `dsmem.latency_cycles` later; the waiter then runs 300 cycles of MUFU work.
    arch = toy_blackwell.with_overrides({"dsmem.latency_cycles": 100.0})
    assert arch.dsmem is not None
    hop = arch.dsmem.latency_cycles
    exp = Exp(16 * 300)
    producer = Role("producer", 1, lambda tile: (Arrive("ready"),))
    consumer = Role("mma", 4, lambda tile: (Wait("ready"), exp))  # 4 warps: all of MUFU
    for cluster, expected in ((False, 300), (True, hop + 300)):
        kernel = one_cta([producer, consumer], [BarrierSpec("ready", cluster=cluster)])
        assert Engine(arch).run([kernel]).cycles == expected
    loader = Role("load", 1, lambda tile: (Load("Q", 0, MB, arrive="ready"),))
    kernel = one_cta([loader, consumer], [BarrierSpec("ready", cluster=True)])
    assert Engine(arch).run([kernel]).cycles == ISSUE + 1000 + hop + 300
    with pytest.raises(ScheduleError, match="cluster barrier"):
        Engine(toy_blackwell.with_overrides({"dsmem": None})).run([kernel])


def test_a_two_cta_mma_costs_each_cta_half_the_pairs_issue_slots(toy_blackwell: Arch) -> None:
    # tcgen05 256x128x128 per pair (each CTA 128 rows): 8 instructions of K=16, issued once by the leader.
    pair = Mma(128, 128, 128, "bf16", acc="tmem", b_share=2)
    alone = Mma(128, 128, 128, "bf16", acc="tmem")
    issue = {
        m.b_share: Engine(toy_blackwell).run([one_cta([Role("mma", 1, lambda tile, m=m: (m,))])]).units["issue"]
        for m in (pair, alone)
    }
    assert issue[2].amount == issue[1].amount / 2 == 128 * 2 / 32 / 2


def test_a_tma_copy_that_misses_l2_lands_its_box_extra_later(toy_hopper: Arch) -> None:
    # 1 MB from HBM: 1000 cycles after its issue cycle, and 200 more for a TMA copy's box (its lines spread over the
    # HBM's channels); the same copy again hits L2 (the toy's hits take no time): no extra. A thread-issued load's
    # miss has none either.
    arch = toy_hopper.with_overrides({"tma.hbm_box_extra_cycles": 200.0, "l2.capacity_bytes": 4 * MB})

    def cycles(*ops: Op, extra: float = 200.0) -> float:
        chip = arch.with_overrides({"tma.hbm_box_extra_cycles": extra})
        return Engine(chip).run([one_cta([fixed(*ops)], [BarrierSpec("q")])]).cycles

    miss = (Load("Q", 0, MB, engine="tma", arrive="q"), Wait("q"))
    assert cycles(*miss) == pytest.approx(ISSUE + 1000 + 200)
    assert cycles(*miss, *miss) == pytest.approx(2 * ISSUE + 1000 + 200)
    thread_load = (Load("Q", 0, MB, engine="ldg", arrive="q"), Wait("q"))
    assert cycles(*thread_load) == cycles(*thread_load, extra=0.0)

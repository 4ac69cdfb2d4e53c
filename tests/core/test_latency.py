"""Dependency latencies (`simgpu.latency`): exact stories on the toy chip with Hopper's measured latencies.

Rates and latencies of the toy H100: MUFU 16 ex2/cycle (4 per scheduler), mma.sync 2730 FLOP/cycle (682.5 per
scheduler: one m16n8k16 of 4096 FLOP per 6 cycles), wgmma 4096 FLOP/cycle; ex2 23 cycles, mma.sync 24, ldmatrix
29, FFMA 4, wgmma 56 after its work. The hiding rule they reproduce is the H200's (`latency_h200.json`):
throughput per SM = min(peak on the warps' schedulers, warps x chains x work per instruction / latency).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from algorithms._schedule.softmax import online_softmax
from simgpu.arch import Arch, load_arch
from simgpu.engine import Engine, RunStats
from simgpu.kernel import CtaResources, Kernel, Role
from simgpu.latency import chain_cycles
from simgpu.ops import Chain, Exp, Mma, Op, Smem, Vector

HOPPER = {
    "fma_cycles": 4,
    "alu_cycles": 4,
    "mufu_cycles": 23,
    "shuffle_cycles": 24,
    "smem_cycles": 29,
    "mma_sync_cycles": 24,
    "mma_async_cycles": 56,
}
LANES = 32


@pytest.fixture
def toy(toy_hopper: Arch) -> Arch:
    return toy_hopper.with_overrides({"latency": HOPPER})


def run(arch: Arch, *roles: tuple[int, Sequence[Op]]) -> RunStats:
    """One CTA whose roles (warps, program) start together on one SM."""
    parts = tuple(Role(f"r{i}", warps, lambda tile, ops=ops: ops) for i, (warps, ops) in enumerate(roles))
    threads = 32 * sum(warps for warps, _ in roles)
    return Engine(arch).run([Kernel("story", (0,), CtaResources(threads, 32, 0), parts)])


def test_one_warp_with_one_chain_of_ex2_waits_23_cycles_per_step(toy: Arch) -> None:
    # 100 dependent ex2: 100 x 23 cycles; MUFU alone would take 100 x 32 / 4 = 800.
    stats = run(toy, (1, [Exp(LANES * 100, chain=Chain(mufu=100))]))
    assert stats.cycles == 100 * 23
    assert stats.units["mufu"].busy_cycles == 800  # latency is a delay of the warp, not work of the unit


def test_without_a_latency_section_the_chain_runs_at_the_unit_rate(toy_hopper: Arch) -> None:
    assert run(toy_hopper, (1, [Exp(LANES * 100, chain=Chain(mufu=100))])).cycles == 800


@pytest.mark.parametrize(("chains", "rate"), [(1, 11.13), (4, 16.0)])
def test_eight_warps_hide_ex2_latency_up_to_the_unit_rate(toy: Arch, chains: int, rate: float) -> None:
    # 8 warps x 92 ex2 each: one chain per warp is latency-bound at 8 x 32 / 23 = 11.13 ex2/cycle (measured on the
    # H200: 11.13); four chains per warp reach MUFU's 16/cycle (measured 15.95): 8 x 92 x 32 / 16 = 1472 cycles.
    work = 8 * 92 * LANES
    stats = run(toy, (8, [Exp(work, chain=Chain(mufu=92 / chains))]))
    assert stats.cycles == max(23 * 92 / chains, work / 16)
    assert work / stats.cycles == pytest.approx(rate, rel=2e-3)


def test_warps_of_another_role_hide_the_latency_too(toy: Arch) -> None:
    # Two roles of 4 warps, one chain each, run side by side: together as fast as one role of 8 warps, because one
    # role's wait occupies no unit. Each alone: 92 x 23 = 2116 cycles for half the work.
    half = [Exp(4 * 92 * LANES, chain=Chain(mufu=92))]
    together = run(toy, (4, half), (4, half))
    assert together.cycles == 92 * 23 == run(toy, (4, half)).cycles
    assert together.cycles == run(toy, (8, [Exp(8 * 92 * LANES, chain=Chain(mufu=92))])).cycles


def test_mma_sync_k_steps_into_one_fragment_are_a_chain(toy: Arch) -> None:
    # One warp, one m16n8 fragment, 64 k-steps of 16: 64 x 24 cycles (the tensor core would take 64 x 6).
    one = Mma(16, 8, 16 * 64, "bf16", a="reg", b="reg", instruction="mma_sync")
    assert run(toy, (1, [one])).cycles == 64 * 24
    # Four fragments (m16n32) are four independent chains: 4 x 4096 FLOP per 24 cycles = 682.7 FLOP/cycle, above
    # the scheduler's 682.5, so the tensor core bounds it: 64 x 4 x 6 = 1536 cycles (measured: 97.7% of that rate).
    four = Mma(16, 32, 16 * 64, "bf16", a="reg", b="reg", instruction="mma_sync")
    assert run(toy, (1, [four])).cycles == pytest.approx(64 * 4 * 4096 / 682.5)


def test_ldmatrix_operands_add_one_shared_memory_round_trip(toy: Arch) -> None:
    fed = Mma(16, 8, 16 * 8, "bf16", a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=512)
    assert run(toy, (1, [fed])).cycles == 29 + 8 * 24
    assert run(toy, (1, [Smem(read_bytes=512)])).cycles == 29  # one LDS.128 of 512 bytes: 4 cycles on the port


@pytest.mark.parametrize(("k", "measured"), [(16, 119.7), (64, 311.7)])
def test_a_wgmma_result_is_ready_56_cycles_after_its_work(toy: Arch, k: int, measured: float) -> None:
    # m64n128k16: 2 x 64 x 128 x 16 / 4096 = 64 cycles of tensor work; four of them (K = 64) 256.
    cycles = run(toy, (4, [Mma(64, 128, k, "bf16")])).cycles
    assert cycles == 64 * k / 16 + 56
    assert cycles == pytest.approx(measured, abs=0.5)


def test_independent_elementwise_work_waits_one_latency_per_kind(toy: Arch) -> None:
    # 128 FFMA + 128 ex2 by 4 warps: 8 cycles on MUFU, but one element's FFMA -> EX2 takes 4 + 23.
    assert run(toy, (4, [Vector(fma=128, ex2=128)])).cycles == 4 + 23


def test_the_softmax_chains_of_one_warp(toy: Arch) -> None:
    # 128 columns: 32 scores per thread and row. Max pass: the thread's 16 FMNMX (16 x 4 = 64 cycles), then the quad's
    # 2 x (SHFL + FMNMX) (2 x 4 + 2 x 24 = 56); exp pass: scaled max, FFMA, EX2, old sum rescaled, 32 FADD of the row
    # sum = 35 x 4 + 23 = 163.
    row_max, quad_max, exps = online_softmax(64, 128, 128, masked=False)
    assert row_max.chain == Chain(alu=16) and quad_max.chain == Chain(alu=2, shuffle=2)
    assert exps.chain == Chain(fma=35, mufu=1)
    assert toy.latency is not None
    assert [chain_cycles(toy.latency, op.chain) for op in (row_max, quad_max, exps)] == [64, 56, 163]
    # The three run one after the other; for a warpgroup's 64 x 128 tile the thread's FMNMX is ALU-bound (8192 ops at
    # 64 per cycle = 128 > 64), the quad's reduction latency-bound (512 ops = 8 cycles < 56) and the exp pass
    # MUFU-bound (8256 ex2 at 16 per cycle = 516 > 163). The pipes of one warp per scheduler overlap fully here (the
    # in-order rule has its own story in test_engine_stories).
    overlapping = toy.with_overrides({"sm.single_warp_serial_fraction": None})
    stats = run(overlapping, (4, [row_max, quad_max, exps]))
    assert stats.cycles == pytest.approx(64 * 128 / 64 + 56 + (64 * 128 + 64) / 16)


def test_shipped_hopper_files_carry_the_measured_latencies() -> None:
    measured = json.loads(
        (Path(__file__).resolve().parents[2] / "validation" / "h200" / "latency_h200.json").read_text()
    )["latency"]
    for name in ("h100", "h200"):
        latency = load_arch(name).latency
        assert latency is not None
        assert latency.mufu_cycles == round(measured["ex2"]["cycles"])
        assert latency.shuffle_cycles == round(measured["shfl_bfly"]["cycles"])
        assert latency.smem_cycles == round(measured["ldmatrix_x4"]["cycles"]) == round(measured["lds128"]["cycles"])
        assert latency.mma_sync_cycles == round(measured["mma_m16n8k16"]["cycles"])
        assert latency.fma_cycles == int(measured["ffma"]["cycles"])  # 4.11: 4 plus the loop's branch
        assert latency.mma_async_cycles == round(measured["wgmma_m64n128k16"]["cycles"] - 64)

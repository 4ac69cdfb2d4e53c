"""Standard attention schedule: HBM bytes by loop structure, the numerics' ideal-reuse count, footprint, speed."""

from __future__ import annotations

import dataclasses

import pytest

import algorithms.standard as standard
from algorithms._schedule.tiling import ceil_div
from algorithms.standard.schedule import DEFAULT
from simgpu import Problem, ProblemError, load_arch, roofline_cycles, simulate
from simgpu.errors import OutOfMemoryError
from tests.schedules._helpers import inputs, no_l2

SHAPES = [
    Problem(1, 2, 300, 64),
    Problem(1, 2, 300, 64, causal=True),
    Problem(2, 1, 200, 128, seqlen_k=333),
    Problem(2, 1, 333, 128, seqlen_k=200, causal=True),
]


def ideal(problem: Problem, pass_: str) -> tuple[int, int]:
    """(read, write) bytes with every operand read once per kernel: FA1 Theorem 2's Theta(N d + N^2)."""
    nq, nk, d, bh = problem.seqlen_q, problem.nk, problem.headdim, problem.batch * problem.heads
    e, sq = 2, problem.seqlen_q * problem.nk * 2  # 16-bit elements; one N x N tensor
    if pass_ == "fwd":
        read = (nq + nk) * d * e + sq + (sq + nk * d * e)  # QK^T: Q, K; softmax: S; PV: P, V
        write = sq + (sq + nq * 4) + nq * d * e  # S; P and LSE; O
    else:
        read = (sq + nq * d * e) + (nq + nk) * d * e + 2 * sq + (2 * sq + (nq + nk) * d * e)
        write = nk * d * e + sq + sq + (nq + nk) * d * e  # dV; dP; dS; dQ, dK
    return bh * read, bh * write


def rereads(problem: Problem, pass_: str) -> int:
    """Extra N x d reads of the tiled GEMMs: an operand is read once per block of the other sequence."""
    nq, nk, d, bh = problem.seqlen_q, problem.nk, problem.headdim, problem.batch * problem.heads
    bq, bk = ceil_div(nq, DEFAULT.block_m), ceil_div(nk, DEFAULT.block_n)
    q_tensor, k_tensor = nq * d * 2, nk * d * 2
    if pass_ == "fwd":  # QK^T: Q per key block, K per query block; PV: V per query block
        extra = (bk - 1) * q_tensor + (bq - 1) * k_tensor + (bq - 1) * k_tensor
    else:  # dV: dO per key block; dP: dO per key block, V per query block; dQ: K per query block; dK: Q per key block
        extra = 2 * (bk - 1) * q_tensor + 2 * (bq - 1) * k_tensor + (bk - 1) * q_tensor
    return bh * extra


def closed_form(problem: Problem, pass_: str) -> tuple[int, int]:
    read, write = ideal(problem, pass_)
    return read + rereads(problem, pass_), write


@pytest.mark.parametrize("problem", SHAPES, ids=str)
def test_hbm_bytes_with_l2_off_equal_the_tiled_closed_form(problem: Problem) -> None:
    q, k, v = inputs(problem)
    o, lse, fwd_stats = standard.forward(q, k, v, causal=problem.causal, return_stats=True)
    do = inputs(problem, seed=1)[0]
    *_, bwd_stats = standard.backward(q, k, v, o, lse, do, causal=problem.causal, return_stats=True)
    for pass_, stats in (("fwd", fwd_stats), ("bwd", bwd_stats)):
        result = simulate(no_l2("a100"), "standard", dataclasses.replace(problem, pass_=pass_))
        assert (result.hbm_read_bytes, result.hbm_write_bytes) == closed_form(problem, pass_)
        # The numerics count ideal reuse: the same kernels and N x N traffic, without the tiled N x d re-reads.
        assert (stats.hbm_read_bytes, stats.hbm_write_bytes) == ideal(problem, pass_)
        assert result.hbm_read_bytes - stats.hbm_read_bytes == rereads(problem, pass_)


def test_with_l2_on_the_rereads_hit_and_hbm_meets_the_numerics() -> None:
    # S and P of 16 heads (128 MB) overflow A100's 40 MB L2; the GEMMs' K/V re-reads of one head hit in it.
    # Exact mode: this is the L2 model's story; fast mode's replay approximates overflowing runs (+2.5% here).
    problem = Problem(2, 8, 2048, 64)
    result = simulate("a100", "standard", problem, mode="exact")
    read, write = ideal(problem, "fwd")
    assert read <= result.hbm_read_bytes < 1.01 * read
    assert write * 0.99 < result.hbm_write_bytes <= write


def test_small_s_hits_in_l2_between_kernels() -> None:
    # One head's S and P (2 MB) stay in L2 from the kernel that writes them to the kernel that reads them.
    problem = Problem(1, 1, 1024, 64)
    cached = simulate("a100", "standard", problem)
    assert cached.hbm_read_bytes == problem.compulsory_read_bytes


def test_out_of_memory_where_s_and_p_exceed_hbm() -> None:
    with pytest.raises(OutOfMemoryError, match="out of memory on NVIDIA A100"):
        simulate("a100", "standard", Problem(64, 16, 65536, 64))
    assert issubclass(OutOfMemoryError, ProblemError)
    simulate("a100", "standard", Problem(1, 2, 1024, 64))  # small: fits


@pytest.mark.parametrize("arch", ["a100", "h100", "h200", "b200"])
@pytest.mark.parametrize("pass_", ["fwd", "bwd", "fwd_bwd"])
def test_cycles_never_below_the_roofline(arch: str, pass_: str) -> None:
    problem = Problem(1, 4, 512, 64, causal=True, pass_=pass_)
    result = simulate(arch, "standard", problem)
    assert result.cycles >= roofline_cycles(load_arch(arch), problem, result.clock_hz)


def test_several_times_slower_than_v2_at_2k() -> None:
    problem = Problem(8, 32, 2048, 64)  # FA2's benchmark setting: 16k tokens, 32 heads at d = 64 (its Figure 4)
    standard_time = simulate("a100", "standard", problem).time_s
    assert standard_time > 2.5 * simulate("a100", "v2", problem).time_s


def test_causal_computes_the_full_s() -> None:
    full = simulate("a100", "standard", Problem(1, 2, 512, 64))
    causal = simulate("a100", "standard", Problem(1, 2, 512, 64, causal=True))
    assert causal.hbm_read_bytes == full.hbm_read_bytes
    assert causal.cycles >= full.cycles


def test_fp8_is_rejected() -> None:
    with pytest.raises(ProblemError, match="16-bit"):
        simulate("h100", "standard", Problem(1, 1, 128, 64, dtype="fp8"))


@pytest.mark.parametrize(("seqlen", "rereads_hit"), [(2048, True), (16384, False)])
def test_the_softmax_second_pass_hits_while_the_rows_in_flight_fit_in_l2(seqlen: int, rereads_hit: bool) -> None:
    # 4 SMs x 16 CTAs of 4 warps (32 registers, ptxas): 256 rows in flight, 1 MiB at N = 2k and 8 MiB at 16k,
    # against an L2 of 4 MiB. The CUDA kernel's second pass (`softmax_passes=2`) re-reads every row. HBM and L2
    # bandwidth are the H100's share of 4 SMs: HBM-bound, a row's two reads are a whole queue of loads apart.
    arch = load_arch(
        "h100",
        {
            "sms": 4,
            "l2.capacity_bytes": 4 * 2**20,
            "hbm.bandwidth_bytes_per_s": 3.35e12 * 4 / 132,
            "l2.bandwidth_bytes_per_s": 9.16e12 * 4 / 132,
        },
    )
    problem = Problem(1, 1, seqlen, 64)
    kernel = standard.schedule(arch, problem, softmax_passes=2)[1]
    assert kernel.cta.threads == 128 and len(kernel.tiles) == seqlen // 4
    s_bytes = seqlen * seqlen * 2
    read = simulate(arch, "standard", problem, {"softmax_passes": 2}, mode="exact").hbm_read_bytes
    once = simulate(arch, "standard", problem, {"softmax_passes": 1}, mode="exact").hbm_read_bytes
    assert read - once == (0 if rereads_hit else s_bytes)

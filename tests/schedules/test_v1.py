"""FlashAttention-1 schedule: HBM bytes equal Algorithm 1 / 4's loop structure and the numerics' count."""

from __future__ import annotations

import dataclasses

import pytest

import algorithms.v1 as v1
from algorithms._schedule.tiling import ceil_div, key_blocks, rows_in_block
from algorithms.v1.schedule import config
from simgpu import Problem, ResourceError, load_arch, roofline_cycles, simulate
from tests.schedules._helpers import inputs, no_l2

SHAPES = [
    Problem(1, 2, 300, 64),  # B_r = 64, B_c = 200: partial blocks in both directions
    Problem(1, 2, 300, 64, causal=True),
    Problem(2, 1, 200, 128, seqlen_k=333),  # B_r = B_c = 100
    Problem(2, 1, 333, 128, seqlen_k=200, causal=True),  # the first query blocks see no key at all
]


def closed_form(problem: Problem, pass_: str) -> tuple[int, int]:
    """(read, write) bytes of FA1 Algorithm 1 (fwd) or 4 (bwd) with O, l, m, dQ in fp32 in HBM."""
    cfg = config(problem, {})
    r, c = cfg.block_m, cfg.block_n
    nq, nk, d, bh = problem.seqlen_q, problem.nk, problem.headdim, problem.batch * problem.heads
    e, f = 2, 4  # 16-bit tensors, fp32 working state
    visits = []  # (rows, last visit) of every inner step
    for i in range(ceil_div(nq, r)):
        rows = rows_in_block(nq, r, i)
        seen = key_blocks(problem, i * r, rows, c).visited
        visits += [(rows, j == seen - 1) for j in range(seen)]
    if pass_ == "fwd":
        read = 2 * nk * d * e  # K, V once (line 6)
        read += sum(rows * d * e + rows * d * f + 2 * rows * f for rows, _ in visits)  # Q_i, O_i, l_i, m_i (line 8)
        read += 2 * nq * f  # l, m for the LSE
        write = nq * d * f + 2 * nq * f  # O, l, m initialized (line 2)
        write += sum(rows * d * (e if last else f) + 2 * rows * f for rows, last in visits)  # line 13
        write += nq * 4  # LSE
    else:
        read = 2 * nk * d * e  # K, V once
        read += sum(rows * d * (3 * e + f) + 2 * rows * f for rows, _ in visits)  # Q, O, dO, dQ (fp32), l, m
        read += nq * d * f  # dQ accumulator, final conversion
        write = nq * d * f  # dQ zeroed
        write += sum(rows * d * f for rows, _ in visits)  # dQ_i written back
        write += 2 * nk * d * e + nq * d * e  # dK, dV; dQ
    return bh * read, bh * write


@pytest.mark.parametrize("problem", SHAPES, ids=str)
def test_hbm_bytes_with_l2_off_equal_the_closed_form_and_the_numerics(problem: Problem) -> None:
    q, k, v = inputs(problem)
    o, lse, fwd_stats = v1.forward(q, k, v, causal=problem.causal, return_stats=True)
    do = inputs(problem, seed=1)[0]
    *_, bwd_stats = v1.backward(q, k, v, o, lse, do, causal=problem.causal, return_stats=True)
    for pass_, stats in (("fwd", fwd_stats), ("bwd", bwd_stats)):
        result = simulate(no_l2("a100"), "v1", dataclasses.replace(problem, pass_=pass_))
        expected = closed_form(problem, pass_)
        assert (result.hbm_read_bytes, result.hbm_write_bytes) == expected
        assert (stats.hbm_read_bytes, stats.hbm_write_bytes) == expected


def test_block_sizes_follow_the_on_chip_memory() -> None:
    assert (config(Problem(1, 1, 128, 64), {}).block_m, config(Problem(1, 1, 128, 64), {}).block_n) == (64, 200)
    small = config(Problem(1, 1, 128, 64), {"sram_bytes": 32 * 1024})
    assert (small.block_m, small.block_n) == (64, 64)
    assert config(Problem(1, 1, 128, 64), {"block_m": 32, "block_n": 128}).block_n == 128


def test_bigger_blocks_move_fewer_bytes() -> None:
    problem = Problem(1, 2, 1024, 64)
    small = simulate(no_l2("a100"), "v1", problem, {"block_n": 64})
    large = simulate(no_l2("a100"), "v1", problem, {"block_n": 256})
    assert large.hbm_read_bytes < 0.3 * small.hbm_read_bytes


def test_split_k_reduction_costs_shared_memory_traffic() -> None:
    one = simulate("a100", "v1", Problem(1, 1, 512, 64), {"warps": 1})
    four = simulate("a100", "v1", Problem(1, 1, 512, 64), {"warps": 4})
    # Per inner step (3 key blocks x 8 query blocks of 64 rows), 3 more warps each write a 64 x 64 fp32 partial of
    # P V and 64 partial row maxes and sums.
    extra = 3 * 8 * 3 * (64 * 64 * 4 + 2 * 64 * 4)
    assert four.smem_write_bytes - one.smem_write_bytes == extra


@pytest.mark.parametrize("arch", ["a100", "h100", "h200", "b200"])
@pytest.mark.parametrize("pass_", ["fwd", "bwd", "fwd_bwd"])
def test_cycles_never_below_the_roofline(arch: str, pass_: str) -> None:
    problem = Problem(1, 2, 512, 128, causal=True, pass_=pass_)
    result = simulate(arch, "v1", problem)
    assert result.cycles >= roofline_cycles(load_arch(arch), problem, result.clock_hz)


def test_slower_than_v2_at_2k() -> None:
    # 108 heads fill A100's SMs once: FA1's one CTA per head is not what loses here, its loop order is.
    problem = Problem(1, 108, 2048, 64)
    assert simulate("a100", "v1", problem).time_s > 1.3 * simulate("a100", "v2", problem).time_s


def test_too_much_shared_memory_is_a_resource_error() -> None:
    with pytest.raises(ResourceError, match="shared memory"):
        simulate("a100", "v1", Problem(1, 1, 1024, 64), {"block_n": 1024})

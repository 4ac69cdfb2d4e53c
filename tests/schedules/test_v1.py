"""FlashAttention-1 schedule: HBM bytes equal Algorithm 1 / 4's loop structure and the numerics' count."""

from __future__ import annotations

import dataclasses

import pytest

import algorithms.v1 as v1
from algorithms._schedule.tiling import ceil_div, key_blocks, rows_in_block
from algorithms.v1.schedule import config, forward_kernel, release_splits
from simgpu import Problem, ResourceError, load_arch, roofline_cycles, simulate
from simgpu.ops import Load, Repeat, Vector, Wait
from tests.schedules._helpers import inputs, no_l2

SHAPES = [
    Problem(1, 2, 300, 64),  # kernel tiles 16 x 256: partial blocks in both directions
    Problem(1, 2, 300, 64, causal=True),
    Problem(2, 1, 200, 128, seqlen_k=333),  # 16 x 128 at d = 128
    Problem(2, 1, 333, 128, seqlen_k=200, causal=True),  # the first query blocks see no key at all
    Problem(1, 2, 300, 64, causal=True),  # with Algorithm 1's blocks from sram_bytes (below): 64 x 96
    Problem(1, 2, 600, 64, causal=True),  # the later releases' grid: 3 CTAs per head (below)
]
OPTIONS: list[dict[str, int]] = [{}, {}, {}, {}, {"sram_bytes": 48 * 1024}, {"splits": 3}]


def closed_form(problem: Problem, pass_: str, options: dict[str, int]) -> tuple[int, int]:
    """(read, write) bytes of the released FA1 kernels' loops (Algorithm 1 / 4 order; fp32 o_tmp, dq_tmp, lse, D;
    no initialization, the first key block reads no state, the last writes the output dtype). With `splits`, the
    forward reads K_j, V_j once per CTA of a head (query block i in CTA i % splits) that has a step seeing j."""
    cfg = config(problem, options)
    r, c = cfg.block_m, cfg.block_n
    nq, nk, d, bh = problem.seqlen_q, problem.nk, problem.headdim, problem.batch * problem.heads
    e, f = 2, 4  # 16-bit tensors, fp32 working state
    visits = []  # (rows, first visit, last visit) of every inner step
    unseen = 0  # query rows that see no key: their outputs are written once
    ctas: dict[int, set[int]] = {}  # per key block: the forward CTAs of a head that load it
    for i in range(ceil_div(nq, r)):
        rows = rows_in_block(nq, r, i)
        seen = key_blocks(problem, i * r, rows, c).visited
        visits += [(rows, j == 0, j == seen - 1) for j in range(seen)]
        unseen += 0 if seen else rows
        for j in range(seen):
            ctas.setdefault(j, set()).add(i % cfg.splits)
    if pass_ == "fwd":
        read = sum(len(z) * 2 * rows_in_block(nk, c, j) * d * e for j, z in ctas.items())  # K, V once per CTA
        read += sum(rows * d * e + (0 if first else rows * d * f + rows * f) for rows, first, _ in visits)  # Q; O, lse
        write = sum(rows * d * (e if last else f) + rows * f for rows, _, last in visits)  # O or o_tmp; lse
        write += unseen * (d * e + f)  # O = 0, lse = -inf
    else:
        read = 2 * nk * d * e  # K, V once
        # Q, dO, lse, D every step; O in the first key block, dq_tmp in the later ones
        read += sum(rows * (2 * d * e + 2 * f) + rows * d * (e if first else f) for rows, first, _ in visits)
        write = sum((rows * f if first else 0) + rows * d * (e if last else f) for rows, first, last in visits)
        write += 2 * nk * d * e + unseen * d * e  # dK, dV; dQ = 0
    return bh * read, bh * write


@pytest.mark.parametrize(("problem", "options"), list(zip(SHAPES, OPTIONS, strict=True)), ids=str)
def test_hbm_bytes_with_l2_off_equal_the_closed_form_and_the_numerics(
    problem: Problem, options: dict[str, int]
) -> None:
    q, k, v = inputs(problem)
    o, lse, fwd_stats = v1.forward(q, k, v, causal=problem.causal, return_stats=True, **options)
    do = inputs(problem, seed=1)[0]
    *_, bwd_stats = v1.backward(q, k, v, o, lse, do, causal=problem.causal, return_stats=True, **options)
    for pass_, stats in (("fwd", fwd_stats), ("bwd", bwd_stats)):
        result = simulate(no_l2("a100"), "v1", dataclasses.replace(problem, pass_=pass_), options)
        expected = closed_form(problem, pass_, options)
        assert (result.hbm_read_bytes, result.hbm_write_bytes) == expected
        assert (stats.hbm_read_bytes, stats.hbm_write_bytes) == expected


def test_block_sizes_are_the_kernels_or_follow_the_on_chip_memory() -> None:
    kernel = {
        (d, n): (config(Problem(1, 1, n, d), {}).block_m, config(Problem(1, 1, n, d), {}).block_n)
        for d, n in ((64, 1024), (64, 128), (128, 1024))
    }
    assert kernel == {(64, 1024): (16, 256), (64, 128): (16, 128), (128, 1024): (16, 128)}
    algorithm1 = config(Problem(1, 1, 128, 64), {"sram_bytes": 100 * 1024})
    assert (algorithm1.block_m, algorithm1.block_n) == (64, 200)
    small = config(Problem(1, 1, 128, 64), {"sram_bytes": 32 * 1024})
    assert (small.block_m, small.block_n) == (64, 64)
    assert config(Problem(1, 1, 128, 64), {"block_m": 32, "block_n": 128}).block_n == 128


def test_splits_follow_the_later_releases_heuristic() -> None:
    # FA2's benchmark (16k tokens, 32 heads, d = 64) on the A100: 2 forward CTAs per SM, 216 slots. At N = 512, 1024
    # heads fill 4.74 waves (0.948 full, under 95% of the best, 1.0 at 27 splits); 4 splits fill 18.96 (0.998).
    a100 = load_arch("a100")
    assert [release_splits(a100, Problem(16384 // n, 32, n, 64)) for n in (512, 1024, 2048, 4096)] == [4, 5, 5, 5]
    # 216 heads fill the slots exactly: no split.
    assert release_splits(a100, Problem(2, 108, 1024, 64)) == 1


def test_a_split_grid_launches_a_heads_splits_apart_where_a_wave_lies_between_and_the_data_exceeds_l2() -> None:
    a100 = load_arch("a100")  # 216 forward slots at d = 64, 40 MiB of L2

    def apart(problem: Problem, splits: int) -> int | None:
        return v1.schedule(a100, problem, splits=splits)[0].launched_apart_axis

    # FA2's sweep at N = 512: 1,024 heads between a head's splits, 4.7 waves; the run's data 386 MiB.
    assert apart(Problem(32, 32, 512, 64), 4) == 2
    # At N = 4096 the 128 heads are under a wave: a head's splits run side by side.
    assert apart(Problem(4, 32, 4096, 64), 5) is None
    # 256 heads at N = 128: a wave apart, but the run's 24 MiB of data stays in L2.
    assert apart(Problem(8, 32, 128, 64), 4) is None
    assert apart(Problem(32, 32, 512, 64), 1) is None  # one CTA per head


def test_splits_change_no_byte_but_the_forwards_k_and_v() -> None:
    problem = Problem(1, 2, 1024, 64)  # 4 key blocks, 64 query steps
    one = simulate(no_l2("a100"), "v1", problem)
    four = simulate(no_l2("a100"), "v1", problem, {"splits": 4})
    assert four.hbm_read_bytes - one.hbm_read_bytes == 3 * 2 * (2 * 1024 * 64 * 2)  # 3 more CTAs read K and V
    assert four.hbm_write_bytes == one.hbm_write_bytes
    assert four.flops == one.flops


def test_bigger_blocks_move_fewer_bytes() -> None:
    problem = Problem(1, 2, 1024, 64)
    small = simulate(no_l2("a100"), "v1", problem, {"block_n": 64})
    large = simulate(no_l2("a100"), "v1", problem, {"block_n": 256})
    assert large.hbm_read_bytes < 0.3 * small.hbm_read_bytes


def test_split_k_reduction_costs_shared_memory_traffic() -> None:
    problem = Problem(1, 1, 512, 64)
    one = simulate("a100", "v1", problem, {"warps": 1})
    four = simulate("a100", "v1", problem, {"warps": 4})
    # Per inner step (2 key blocks x 32 query steps of 16 rows), 3 more warps each write 16 partial row maxes and a
    # 16 x 64 fp32 partial of P V with its 16 partial row sums.
    extra = 2 * 32 * 3 * (16 * 4 + 16 * 65 * 4)
    assert four.smem_write_bytes - one.smem_write_bytes == extra


@pytest.mark.parametrize("arch", ["a100", "h100", "h200", "b200"])
@pytest.mark.parametrize("pass_", ["fwd", "bwd", "fwd_bwd"])
def test_cycles_never_below_the_roofline(arch: str, pass_: str) -> None:
    problem = Problem(1, 2, 512, 128, causal=True, pass_=pass_)
    result = simulate(arch, "v1", problem)
    assert result.cycles >= roofline_cycles(load_arch(arch), problem, result.clock_hz)


def test_a_step_waits_for_its_o_tmp_before_its_softmax() -> None:
    # v1.0.9's SASS on sm_90: the row max's first instruction waits on the scoreboard of the o_tmp loads issued just
    # before it (validation/h200/fa1_release/README.md). Second key block, second query step of the one CTA.
    problem = Problem(1, 1, 1024, 64)
    kernel = forward_kernel(problem, config(problem, {}))
    (program,) = [role.program for role in kernel.roles]
    (key_loop,) = program(kernel.tiles[0])
    assert isinstance(key_loop, Repeat)
    *_, query_loop = key_loop.body(1)
    assert isinstance(query_loop, Repeat)
    step = list(query_loop.body(1))
    o_tmp = next(n for n, op in enumerate(step) if isinstance(op, Load) and op.tensor == "O_acc")
    waited = step.index(Wait("o_tmp"))
    first_elementwise = next(n for n, op in enumerate(step) if isinstance(op, Vector))
    assert o_tmp < waited < first_elementwise


def test_slower_than_v2_at_2k() -> None:
    # 108 heads fill A100's SMs once: FA1's one CTA per head is not what loses here, its loop order is.
    problem = Problem(1, 108, 2048, 64)
    assert simulate("a100", "v1", problem).time_s > 1.3 * simulate("a100", "v2", problem).time_s


def test_too_much_shared_memory_is_a_resource_error() -> None:
    with pytest.raises(ResourceError, match="shared memory"):
        simulate("a100", "v1", Problem(1, 1, 1024, 64), {"block_n": 1024})

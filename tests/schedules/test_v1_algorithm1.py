"""The v1 schedule's `variant="algorithm1"`, our CUDA kernel's loop: HBM bytes equal its closed form, fast mode
agrees with exact mode, and the options it does not take are refused."""

from __future__ import annotations

import pytest

from algorithms._schedule.tiling import ceil_div, key_blocks, rows_in_block
from simgpu import Problem, simulate
from simgpu.errors import OptionError, ProblemError
from tests.schedules._helpers import no_l2

SHAPES = [
    (Problem(1, 2, 300, 64), {}),  # the kernel's 64 x 64 tiles, 4 warps: partial blocks at the end
    (Problem(1, 2, 300, 64, causal=True), {}),
    (Problem(2, 1, 200, 128, causal=True), {"block_m": 32, "block_n": 48, "warps": 2}),
]


def closed_form(problem: Problem, block_m: int, block_n: int) -> tuple[int, int]:
    """(read, write) bytes of Algorithm 1 as our kernel runs it: per key block K_j and V_j; per step Q_i, and from
    the second key block on the fp32 O_i, l_i, m_i; written back every step (O_i in the input dtype and lse_i on the
    last key block the query block sees)."""
    n, d, e, f = problem.seqlen_q, problem.headdim, 2, 4
    read = write = 0
    for i in range(ceil_div(n, block_m)):
        rows = rows_in_block(n, block_m, i)
        seen = key_blocks(problem, i * block_m, rows, block_n).visited
        for j in range(seen):
            read += rows * d * e + (0 if j == 0 else rows * d * f + 2 * rows * f)
            write += rows * d * e + rows * f if j == seen - 1 else rows * d * f + 2 * rows * f
    read += 2 * n * d * e  # every key block is seen by some query block (causal: by the last)
    bh = problem.batch * problem.heads
    return bh * read, bh * write


@pytest.mark.parametrize(("problem", "options"), SHAPES, ids=str)
def test_hbm_bytes_with_l2_off_equal_the_closed_form(problem: Problem, options: dict[str, int]) -> None:
    result = simulate(no_l2("h200"), "v1", problem, {**options, "variant": "algorithm1"}, mode="exact")
    tiles = (options.get("block_m", 64), options.get("block_n", 64))
    assert (result.hbm_read_bytes, result.hbm_write_bytes) == closed_form(problem, *tiles)


def test_fast_mode_agrees_with_exact_mode() -> None:
    problem = Problem(2, 8, 1024, 64, causal=True)
    exact, fast = (simulate("h200", "v1", problem, {"variant": "algorithm1"}, mode=m) for m in ("exact", "fast"))
    for name in ("hbm_read_bytes", "hbm_write_bytes"):  # equal up to fast mode's float sums
        assert getattr(fast, name) == pytest.approx(getattr(exact, name), abs=0.5)
    assert abs(fast.cycles / exact.cycles - 1) < 0.01


@pytest.mark.parametrize(
    ("problem", "options", "error", "match"),
    [
        (Problem(1, 1, 256, 64), {"variant": "fa2"}, OptionError, "variant must be one of release, algorithm1"),
        (Problem(1, 1, 256, 64), {"variant": 0}, OptionError, "variant must be one of release, algorithm1"),
        (Problem(1, 1, 256, 64, pass_="bwd"), {"variant": "algorithm1"}, OptionError, "forward kernel only"),
        (Problem(1, 1, 256, 64), {"variant": "algorithm1", "splits": 2}, OptionError, "splits does not apply"),
        (Problem(1, 1, 256, 64), {"variant": "algorithm1", "block_m": 48}, OptionError, "multiple of 16 x warps"),
        (Problem(1, 1, 256, 64, seqlen_k=128), {"variant": "algorithm1"}, ProblemError, "seqlen_k = seqlen_q"),
    ],
)
def test_options_the_variant_does_not_take_are_refused(
    problem: Problem, options: dict[str, object], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        simulate("h200", "v1", problem, options)

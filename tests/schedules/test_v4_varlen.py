"""Varlen batches (`Problem.seqlens`, FlashAttention's `cu_seqlens`) on v4: the problem's FLOPs and bytes sum its
sequences, the bytes follow each sequence's own loop structure, a batch of equal lengths is the plain batch, the tile
order runs the sequences in turn (longest item first within each with `lpt`), fast mode matches exact mode, forward
and backward, and whatever does not model varlen says so."""

from __future__ import annotations

import pytest

from experiments.fast_vs_exact import compare_on
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.errors import ProblemError
from tests.schedules._helpers import no_l2
from tests.schedules.test_v4 import closed_form

LENGTHS = (1000, 300, 2304)
OPTIONS = {"rescale_fraction": 0.25}  # every sequence's rescaled share given: no numerics run


def test_varlen_flops_and_compulsory_bytes_sum_the_sequences() -> None:
    problem = Problem.varlen(3, LENGTHS, 64, causal=True)
    assert (problem.batch, problem.seqlen_q, problem.nk) == (3, 2304, 2304)
    assert problem.flops == sum(4 * 3 * n * n * 64 for n in LENGTHS) / 2
    tokens = sum(LENGTHS)
    assert problem.compulsory_read_bytes == 3 * tokens * 64 * 2 * 3  # Q, K, V
    assert problem.compulsory_write_bytes == 3 * tokens * (64 * 2 + 4)  # O, LSE
    assert problem.describe()["seqlens"] == list(LENGTHS)


@pytest.mark.parametrize(
    ("seqlens", "match"),
    [((), "at least one"), ((512, 0), "positive"), ((512, 1.5), "positive")],
)
def test_bad_seqlens_are_refused(seqlens: tuple[int, ...], match: str) -> None:
    with pytest.raises(ProblemError, match=match):
        Problem.varlen(4, seqlens, 128)


def test_seqlens_must_agree_with_the_shape() -> None:
    with pytest.raises(ProblemError, match="batch = 3"):
        Problem(3, 4, 512, 128, seqlens=(512, 256))
    with pytest.raises(ProblemError, match="longest"):
        Problem(2, 4, 1024, 128, seqlens=(512, 256))


@pytest.mark.parametrize("causal", [False, True])
def test_varlen_forward_hbm_bytes_with_l2_off_are_each_sequences_closed_form(causal: bool) -> None:
    problem = Problem.varlen(2, LENGTHS, 128, causal=causal)
    result = simulate(no_l2("b200"), "v4", problem, OPTIONS)
    per_sequence = [closed_form(Problem(1, 2, n, 128, causal=causal)) for n in LENGTHS]
    assert (result.hbm_read_bytes, result.hbm_write_bytes) == tuple(map(sum, zip(*per_sequence, strict=True)))


@pytest.mark.parametrize("options", [{}, {"two_cta": True}])
def test_varlen_backward_hbm_bytes_with_l2_off_are_its_sequences_alone(options: dict[str, object]) -> None:
    arch = no_l2("b200")
    problem = Problem.varlen(2, LENGTHS, 128, causal=True, pass_="bwd")
    result = simulate(arch, "v4", problem, options)
    alone = [simulate(arch, "v4", Problem(1, 2, n, 128, causal=True, pass_="bwd"), options) for n in LENGTHS]
    assert result.hbm_read_bytes == sum(r.hbm_read_bytes for r in alone)
    assert result.hbm_write_bytes == sum(r.hbm_write_bytes for r in alone)


@pytest.mark.parametrize("pass_", ["fwd", "bwd"])
def test_a_varlen_batch_of_equal_lengths_is_the_plain_batch(pass_: str) -> None:
    varlen = simulate("b200", "v4", Problem.varlen(8, (1024, 1024), 128, pass_=pass_), OPTIONS, mode="exact")
    plain = simulate("b200", "v4", Problem(2, 8, 1024, 128, pass_=pass_), OPTIONS, mode="exact")
    assert (varlen.cycles, varlen.hbm_read_bytes, varlen.l2_read_bytes, varlen.flops) == (
        plain.cycles,
        plain.hbm_read_bytes,
        plain.l2_read_bytes,
        plain.flops,
    )


@pytest.mark.parametrize("lpt", [True, False])
def test_causal_varlen_runs_the_sequences_in_turn_each_longest_item_first_with_lpt(lpt: bool) -> None:
    # Items are pairs of 128-row Q tiles: 1000 rows -> 4 items, 300 -> 2, 2304 -> 9; 2 heads share each section.
    # Tiles and memory keys of a varlen batch begin (head, batch).
    (kernel,) = schedule(load_arch("b200"), "v4", Problem.varlen(2, LENGTHS, 128, causal=True), {"lpt": lpt, **OPTIONS})
    expected = []
    for b, items in enumerate((4, 2, 9)):
        order = range(items - 1, -1, -1) if lpt else range(items)
        expected += [(h, b, p) for p in order for h in range(2)]
    assert list(kernel.tiles) == expected
    assert kernel.head_axes == 1


@pytest.mark.parametrize("pass_", ["fwd", "bwd"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize(
    ("sms", "seqlens", "heads", "headdim"), [(8, (640, 1408), 2, 64), (10, (1536, 300, 900), 3, 128)]
)
def test_fast_mode_matches_exact_mode_on_a_varlen_batch(
    sms: int, seqlens: tuple[int, ...], heads: int, headdim: int, causal: bool, pass_: str
) -> None:
    # As `tests/core/test_fast.py` checks every algorithm: several waves on 8 SMs, a tail wave on 10.
    problem = Problem.varlen(heads, seqlens, headdim, causal=causal, pass_=pass_)
    row = compare_on("b200", {"sms": sms}, "v4", problem)
    assert row["bytes_equal"]
    assert row["fast_over_exact"] == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize(("arch", "algo"), [("h100", "v3"), ("a100", "v2"), ("a100", "standard")])
def test_what_does_not_model_varlen_says_so(arch: str, algo: str) -> None:
    with pytest.raises(ProblemError, match="does not model varlen batches"):
        simulate(arch, algo, Problem.varlen(2, (512, 256), 128))

"""FlashAttention-4 schedule: FA4's per-tile roofline tables derived by the engine, bytes by the loop structure,
Blackwell-only with a clear error elsewhere, TMEM capacity enforced, and the options' directions (LPT, emulation)."""

from __future__ import annotations

import pytest

from algorithms._schedule.exp2 import fma_per_exp2
from algorithms._schedule.tiling import ceil_div
from simgpu import Problem, load_arch, simulate
from simgpu.errors import OptionError, ResourceError
from tests.schedules._helpers import no_l2

ALL_MUFU = {"exp_emulation_fraction": 0.0, "rescale_fraction": 0.0}  # FA4 Table 1: every exp on MUFU
UNITS = ("tensor", "smem", "mufu")


def tile_cycles(problem: Problem, options: dict[str, object] | None = None) -> dict[str, float]:
    result = simulate("b200", "v4", problem, {**ALL_MUFU, **(options or {})}, per_tile=True)
    return {unit: result.unit_cycles[unit] for unit in UNITS}


def block_cycles(rows: int, n: int, pass_: str, options: dict[str, object] | None = None) -> dict[str, float]:
    """Busy cycles of one more M x N tile of the main loop: the first work item with two key blocks (forward) or
    two Q tiles (backward) minus the same with one, so the prologue and epilogue cancel, as in FA4's tables."""
    d = 128
    if pass_ == "fwd":
        one, two = Problem(1, 1, rows, d, seqlen_k=n), Problem(1, 1, rows, d, seqlen_k=2 * n)
    else:
        one, two = (Problem(1, 1, q, d, seqlen_k=n, pass_="bwd") for q in (rows, 2 * rows))
    first, second = tile_cycles(one, options), tile_cycles(two, options)
    return {unit: second[unit] - first[unit] for unit in UNITS}


@pytest.mark.parametrize(("m", "table"), [(128, (1024, 768, 1024)), (256, (2048, 1536, 2048))])
def test_forward_main_loop_tile_reproduces_fa4_table_1(m: int, table: tuple[int, int, int]) -> None:
    tensor, smem, mufu = table
    cycles = block_cycles(m, 128, "fwd")
    assert cycles["tensor"] == tensor == 4 * m * 128 * 128 / 8192
    assert cycles["smem"] == smem == 3 * m * 128 * 128 / 8192
    # MUFU: FA4's M N / 16, plus the per-row rescale factor exp2 that every block after the first computes
    # (FA-repo SoftmaxSm100.update_row_max), which the table leaves out.
    assert cycles["mufu"] == mufu + m / 16


@pytest.mark.parametrize("m", [128, 256])
def test_forward_whole_work_item_adds_the_epilogue(m: int) -> None:
    # One key block: the table's tile plus the epilogue. smem: O staged (M d bf16) and read back by the TMA store;
    # MUFU: 1 / l and log2(l) per row. The first block has no rescale factor.
    cycles = tile_cycles(Problem(1, 1, m, 128, seqlen_k=128))
    assert cycles["tensor"] == 4 * m * 128 * 128 / 8192
    assert cycles["smem"] == 3 * m * 128 * 128 / 8192 + 2 * (m * 128 * 2) / 128
    assert cycles["mufu"] == (m * 128 + 2 * m) / 16


def test_backward_main_loop_tile_reproduces_fa4_table() -> None:
    # Five MMAs (10 M N d / 8192); smem: 2048 operand cycles + 256 dS + 1024 dQ (staged fp32, read by the TMA).
    assert block_cycles(128, 128, "bwd") == {"tensor": 2560, "smem": 3328, "mufu": 1024}


def test_backward_two_cta_exchanges_ds_halves_dq_and_splits_the_shared_operand() -> None:
    # dS exchange (16 KiB out + 16 KiB in) adds 256, halved dQ saves 512, and the four MMAs whose B operand (Q_i or
    # dO_i, 32 KiB each) the pair shares read half of it each: 4 x 16 KiB / 128 = 512 fewer. FA4 says about 2688.
    assert block_cycles(128, 128, "bwd", {"two_cta": True})["smem"] == 3328 + 256 - 512 - 512
    # The half of dS sent to the peer (64 x 128 bf16) crosses the SM's DSMEM link once per Q tile.
    arch = load_arch("b200")
    assert arch.dsmem is not None
    one, two = (Problem(1, 1, q, 128, seqlen_k=128, pass_="bwd") for q in (128, 256))
    options = {**ALL_MUFU, "two_cta": True}
    sent = [simulate(arch, "v4", p, options, per_tile=True).unit_cycles["dsmem"] for p in (one, two)]
    assert sent[1] - sent[0] == 128 * 128 * 2 / 2 / arch.dsmem.bandwidth_bytes_per_cycle


def test_two_cta_needs_the_sm_to_sm_network() -> None:
    problem = Problem(1, 1, 256, 128, pass_="bwd")
    with pytest.raises(OptionError, match="dsmem"):
        simulate(load_arch("b200", {"dsmem": None}), "v4", problem, {"two_cta": True})


def test_software_exp_moves_exps_from_mufu_to_fma() -> None:
    problem = Problem(1, 1, 128, 128, seqlen_k=128)
    hardware = simulate("b200", "v4", problem, ALL_MUFU, per_tile=True).unit_cycles
    options = {**ALL_MUFU, "exp_emulation_fraction": 0.25}
    mixed = simulate("b200", "v4", problem, options, per_tile=True).unit_cycles
    emulated = 0.25 * 128 * 128
    assert hardware["mufu"] - mixed["mufu"] == emulated / 16
    assert mixed["fma"] - hardware["fma"] == emulated * fma_per_exp2(3) / 128


def closed_form(problem: Problem) -> tuple[int, int]:
    """(read, write) with L2 off: per work item Q once and K, V once per visited block; O and LSE once."""
    d, eb, bh = problem.headdim, problem.element_bytes, problem.batch * problem.heads
    items = ceil_div(ceil_div(problem.seqlen_q, 128), 2)
    read = 0
    for p in range(items):
        rows = min(256, problem.seqlen_q - 256 * p)
        last_key = 256 * p + rows - 1 + problem.nk - problem.seqlen_q if problem.causal else problem.nk - 1
        visited = min(ceil_div(problem.nk, 128), last_key // 128 + 1)
        read += rows * d * eb + 2 * sum(min(128, problem.nk - 128 * j) * d * eb for j in range(visited))
    return bh * read, bh * problem.seqlen_q * (d * eb + 4)


@pytest.mark.parametrize("problem", [Problem(1, 2, 300, 64), Problem(2, 1, 333, 128, causal=True)], ids=str)
def test_forward_hbm_bytes_with_l2_off_equal_the_closed_form(problem: Problem) -> None:
    result = simulate(no_l2("b200"), "v4", problem, {"rescale_fraction": 0.5})
    assert (result.hbm_read_bytes, result.hbm_write_bytes) == closed_form(problem)


@pytest.mark.parametrize("options", [{}, {"two_cta": True}, {"deterministic": True}])
def test_backward_variants_run(options: dict[str, object]) -> None:
    result = simulate("b200", "v4", Problem(1, 2, 333, 128, causal=True, pass_="bwd"), options)
    assert result.tflops > 0


def test_fp8_forward_runs_at_the_fp8_rate() -> None:
    bf16 = simulate("b200", "v4", Problem(1, 16, 1024, 128), {"rescale_fraction": 0.0})
    fp8 = simulate("b200", "v4", Problem(1, 16, 1024, 128, dtype="fp8"), {"rescale_fraction": 0.0})
    assert fp8.tflops > bf16.tflops


def test_a_small_persistent_grid_gives_every_work_item_its_own_cta() -> None:
    # 1 x 4 heads x 512 rows: 8 work items for 148 SMs. FP8's deeper K/V ring lets a CTA's load warp issue all of a
    # short item's loads at once and reach the next item at launch; every CTA slot is handed its first item before
    # any role runs (FA4's schedulers start CTA i at item i), so FP8 is not left with half the CTAs.
    options = {"rescale_fraction": 0.0}
    bf16 = simulate("b200", "v4", Problem(1, 4, 512, 128), options, mode="exact")
    fp8 = simulate("b200", "v4", Problem(1, 4, 512, 128, dtype="fp8"), options, mode="exact")
    assert fp8.tflops > bf16.tflops


def test_lpt_helps_causal() -> None:
    problem = Problem(1, 24, 1024, 128, causal=True)
    options = {"rescale_fraction": 0.0}
    assert (
        simulate("b200", "v4", problem, options, mode="exact").tflops
        > simulate("b200", "v4", problem, {**options, "lpt": False}, mode="exact").tflops
    )


def test_tmem_capacity_is_enforced() -> None:
    # FP8 at d = 256 fits in smem, but two Q tiles need 2 x (128 + 256) = 768 TMEM columns; the B200 has 512.
    with pytest.raises(ResourceError, match="768 TMEM columns"):
        simulate("b200", "v4", Problem(1, 1, 256, 256, dtype="fp8"), {"rescale_fraction": 0.0})


def test_refuses_chips_without_tcgen05_and_tmem() -> None:
    with pytest.raises(
        OptionError, match=r"v4 needs TMA, tcgen05 and Tensor Memory, which NVIDIA H100.* \(tcgen05, tmem\)"
    ):
        simulate("h100", "v4", Problem(1, 1, 128, 128))

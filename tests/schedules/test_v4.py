"""FlashAttention-4 schedule: FA4's per-tile roofline tables derived by the engine, bytes by the loop structure,
Blackwell-only with a clear error elsewhere, TMEM capacity enforced, and the options' directions (LPT, emulation)."""

from __future__ import annotations

import pytest

from algorithms._schedule.exp2 import fma_per_exp2
from algorithms._schedule.tiling import ceil_div
from simgpu import Problem, Result, load_arch, simulate
from simgpu.api import schedule
from simgpu.errors import OptionError, ResourceError
from simgpu.fast_plan import KEEP_ITERATIONS
from simgpu.fold import kernel_period
from tests.schedules._helpers import no_l2

ALL_MUFU = {"exp_emulation_fraction": 0.0, "rescale_fraction": 0.0}  # FA4 Table 1: every exp on MUFU
UNITS = ("tensor", "smem", "mufu")
BLOCKS = 32  # key blocks (forward) or Q tiles (backward) of the first work item: a long steady-state main loop


def per_tile(problem: Problem, options: dict[str, object] | None = None) -> Result:
    return simulate("b200", "v4", problem, {**ALL_MUFU, **(options or {})}, per_tile=True)


def tile_cycles(problem: Problem, options: dict[str, object] | None = None) -> dict[str, float]:
    """One main-loop tile's busy cycles (`simgpu.per_tile`)."""
    cycles = per_tile(problem, options).unit_cycles
    return {unit: cycles[unit] for unit in UNITS}


def long_problem(rows: int, blocks: int, pass_: str) -> Problem:
    """An M x N = `rows` x 128 tile at d = 128: the forward's first work item of `rows` queries runs `blocks` key
    blocks, the backward's first (one K/V block) `blocks` Q tiles of `rows`."""
    if pass_ == "fwd":
        return Problem(1, 1, rows, 128, seqlen_k=128 * blocks)
    return Problem(1, 1, rows * blocks, 128, seqlen_k=128, pass_="bwd")


@pytest.mark.parametrize(("m", "table"), [(128, (1024, 768, 1024)), (256, (2048, 1536, 2048))])
def test_forward_main_loop_tile_reproduces_fa4_table_1(m: int, table: tuple[int, int, int]) -> None:
    tensor, smem, mufu = table
    cycles = tile_cycles(long_problem(m, BLOCKS, "fwd"))
    assert cycles["tensor"] == tensor == 4 * m * 128 * 128 / 8192
    assert cycles["smem"] == smem == 3 * m * 128 * 128 / 8192
    # MUFU: FA4's M N / 16, plus the per-row rescale factor exp2 that every block after the first computes
    # (FA-repo SoftmaxSm100.update_row_max), which the table leaves out.
    assert cycles["mufu"] == mufu + m / 16


@pytest.mark.parametrize("m", [128, 256])
def test_forward_whole_work_item_adds_the_epilogue(m: int) -> None:
    # The first work item: BLOCKS of the table's tiles plus the epilogue. smem: O staged (M d bf16) and read back by
    # the TMA store; MUFU: 1 / l and log2(l) per row, and no rescale factor in the first block.
    cycles = per_tile(long_problem(m, BLOCKS, "fwd")).work_item_unit_cycles
    assert cycles is not None
    assert cycles["tensor"] == BLOCKS * 4 * m * 128 * 128 / 8192
    assert cycles["smem"] == BLOCKS * 3 * m * 128 * 128 / 8192 + 2 * (m * 128 * 2) / 128
    assert cycles["mufu"] == (BLOCKS * m * 128 + (BLOCKS - 1) * m + 2 * m) / 16


def test_backward_main_loop_tile_reproduces_fa4_table() -> None:
    # Five MMAs (10 M N d / 8192); smem: 2048 operand cycles + 256 dS + 1024 dQ (staged fp32, read by the TMA).
    assert tile_cycles(long_problem(128, BLOCKS, "bwd")) == {"tensor": 2560, "smem": 3328, "mufu": 1024}


def test_backward_two_cta_exchanges_ds_halves_dq_and_splits_the_shared_operand() -> None:
    cycles = per_tile(long_problem(128, BLOCKS, "bwd"), {"two_cta": True}).unit_cycles
    # dS exchange (16 KiB out + 16 KiB in) adds 256, halved dQ saves 512, and the four MMAs whose B operand (Q_i or
    # dO_i, 32 KiB each) the pair shares read half of it each: 4 x 16 KiB / 128 = 512 fewer. FA4 says about 2688.
    assert cycles["smem"] == 3328 + 256 - 512 - 512
    # The half of dS sent to the peer (64 x 128 bf16) crosses the SM's DSMEM link once per Q tile.
    arch = load_arch("b200")
    assert arch.dsmem is not None
    assert cycles["dsmem"] == 128 * 128 * 2 / 2 / arch.dsmem.bandwidth_bytes_per_cycle


@pytest.mark.parametrize(
    ("rows", "pass_", "options"),
    [(128, "fwd", {}), (256, "fwd", {}), (128, "bwd", {}), (128, "bwd", {"two_cta": True})],
    ids=["fwd-M128", "fwd-M256", "bwd-1cta", "bwd-2cta"],
)
def test_main_loop_tile_is_what_one_more_block_adds_to_the_work_item(
    rows: int, pass_: str, options: dict[str, object]
) -> None:
    # The per-tile accounting folds the loop; a work item one key block (forward) or Q tile (backward) longer,
    # simulated whole, must cost that tile more on every SM unit, the main-memory share up to rounding.
    shorter, longer = (per_tile(long_problem(rows, n, pass_), options) for n in (BLOCKS, BLOCKS + 1))
    assert shorter.work_item_unit_cycles is not None and longer.work_item_unit_cycles is not None
    added = {
        unit: longer.work_item_unit_cycles[unit] - shorter.work_item_unit_cycles[unit] for unit in shorter.unit_cycles
    }
    for unit in ("hbm", "l2"):
        assert shorter.unit_cycles[unit] == pytest.approx(added.pop(unit), rel=1e-12)
    assert {unit: shorter.unit_cycles[unit] for unit in added} == added


def test_per_tile_refuses_a_loop_too_short_for_a_steady_state() -> None:
    # The shortest loop is the correction's, one shorter than the key blocks': it must keep KEEP_ITERATIONS at each
    # end and have one fold period (ring slots and ping-pong turns in step) more to add.
    (kernel,) = schedule(load_arch("b200"), "v4", long_problem(128, 1, "fwd"), ALL_MUFU)
    needed = 2 * KEEP_ITERATIONS + kernel_period(kernel)
    with pytest.raises(
        OptionError, match=f"needs {needed} iterations .* runs {needed - 1} in its shortest: use a longer sequence"
    ):
        per_tile(long_problem(128, needed, "fwd"))
    assert tile_cycles(long_problem(128, needed + 1, "fwd"))["tensor"] == 4 * 128 * 128 * 128 / 8192


def test_two_cta_needs_the_sm_to_sm_network() -> None:
    problem = Problem(1, 1, 256, 128, pass_="bwd")
    with pytest.raises(OptionError, match="dsmem"):
        simulate(load_arch("b200", {"dsmem": None}), "v4", problem, {"two_cta": True})


def test_software_exp_moves_exps_from_mufu_to_fma() -> None:
    problem = long_problem(128, BLOCKS, "fwd")
    hardware = per_tile(problem).unit_cycles
    mixed = per_tile(problem, {"exp_emulation_fraction": 0.25}).unit_cycles
    emulated = 0.25 * 128 * 128  # of a tile's scores; the per-row rescale factors stay on MUFU
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

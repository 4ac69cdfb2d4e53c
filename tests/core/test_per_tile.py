"""Per-tile accounting: each unit's busy cycles in one main-loop tile of a kernel's first work item, alone on one SM
(the FA4 roofline tables), and in the whole first work item."""

from __future__ import annotations

import pytest

from simgpu import Problem, Result, load_arch, simulate
from simgpu.api import schedule
from simgpu.errors import OptionError
from simgpu.fast_plan import KEEP_ITERATIONS
from simgpu.fold import kernel_period

# One Q tile of two 64-row consumers against 128-key blocks, H100 (4096 FLOP/clk/SM). The roofline counts each unit
# at its own rate. With H100's `contention` on, busy times also depend on how much of a consumer's softmax overlaps
# the other consumer's GEMMs (ex2 slower beside wgmma, wgmma slower beside FFMA).
M = N = D = 128
BLOCKS = 16  # key blocks of the first work item: a steady-state main loop to take a tile from


def v3_per_tile(blocks: int) -> Result:
    nominal = load_arch("h100", {"contention": None})
    result = simulate(nominal, "v3", Problem(1, 1, M, D, seqlen_k=N * blocks), {"block_n": N}, per_tile=True)
    assert result.mode == "exact, per tile"
    return result


def test_v3_main_loop_tile_follows_the_roofline_formulas() -> None:
    cycles = v3_per_tile(BLOCKS).unit_cycles
    assert cycles["tensor"] == 4 * M * N * D / 4096
    # MUFU: one ex2 per score and one per row for the rescale factor (16 per clock).
    assert cycles["mufu"] == (M * N + M) / 16
    # smem port (128 B per clock): the consumers read their Q rows, and each reads all of K and all of V; the TMA
    # copies of K and V landing in smem take the arch's measured share of the port for their bytes.
    landed = load_arch("h100").smem.tma_write_port_fraction * 2 * N * D * 2 / 128
    assert cycles["smem"] == pytest.approx((M * D + 2 * (N * D) * 2) * 2 / 128 + landed, rel=1e-12)


def test_v3_work_item_adds_the_prologue_and_epilogue_to_its_tiles() -> None:
    cycles = v3_per_tile(BLOCKS).work_item_unit_cycles
    assert cycles is not None
    assert cycles["tensor"] == BLOCKS * 4 * M * N * D / 4096
    # MUFU: the tiles' and one ex2 per row in the epilogue.
    assert cycles["mufu"] == (BLOCKS * (M * N + M) + M) / 16
    # smem: the tiles' reads, and the epilogue stages O; Q lands once.
    reads = (BLOCKS * (M * D + 2 * (N * D) * 2) + M * D) * 2 / 128
    landed = load_arch("h100").smem.tma_write_port_fraction * (M * D + BLOCKS * 2 * N * D) * 2 / 128
    assert cycles["smem"] == pytest.approx(reads + landed, rel=1e-12)


def test_per_tile_runs_the_first_work_item_of_a_larger_problem() -> None:
    # v3's first work item is Q block 0 (128 rows) against every key block of its head: 2048 keys in 16 blocks of
    # 128. Contention off, as above: the tensor cores' busy cycles are then their FLOPs over their rate.
    nominal = load_arch("h100", {"contention": None})
    tile = simulate(nominal, "v3", Problem(2, 4, 2048, 128), {"block_n": 128}, per_tile=True).to_dict(per_tile=True)
    assert tile["unit_cycles"]["tensor"] == 4 * 128 * 128 * 128 / 4096
    assert tile["work_item_unit_cycles"]["tensor"] == 4 * 128 * 2048 * 128 / 4096
    assert tile["hbm_read_bytes"] == (128 + 2 * 2048) * 128 * 2  # Q block, all of K and V of one head


def test_per_tile_needs_a_loop_long_enough_to_fold() -> None:
    # KEEP_ITERATIONS kept at each end of the key-block loop and one fold period (its rings' slots in step) added.
    problem = Problem(1, 1, M, D, seqlen_k=N)
    (kernel,) = schedule(load_arch("h100"), "v3", problem, {"block_n": N})
    needed = 2 * KEEP_ITERATIONS + kernel_period(kernel)
    with pytest.raises(
        OptionError, match=f"needs {needed} iterations of each main loop .* runs {needed - 1} in its shortest"
    ):
        simulate("h100", "v3", Problem(1, 1, M, D, seqlen_k=N * (needed - 1)), {"block_n": N}, per_tile=True)


def test_a_whole_run_has_no_work_item_cycles() -> None:
    result = simulate("h100", "v3", Problem(1, 1, 1024, 128))
    assert result.work_item_unit_cycles is None
    assert "work_item_unit_cycles" not in result.to_dict(per_tile=True)

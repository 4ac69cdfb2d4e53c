"""FlashAttention-2's backward schedule: FA2's own main kernel (its tiles, warp layouts and buffers, as Nsight Compute
saw PyTorch's FA2 run them on the H200) and our CUDA kernel's, both moving the closed-form bytes."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import pytest

import algorithms.v2 as v2
from algorithms._schedule.tiling import ceil_div, first_query_block, rows_in_block
from algorithms.v2.bwd_schedule import backward_config, default_backward_config
from simgpu import Problem, load_arch, simulate
from simgpu.errors import OptionError
from simgpu.kernel import Kernel
from simgpu.ops import Load, Mma, Op, Repeat, Smem, Store
from tests.schedules._helpers import inputs, no_l2

SHAPES = [
    Problem(1, 2, 300, 64, pass_="bwd"),
    Problem(1, 2, 300, 64, causal=True, pass_="bwd"),
    Problem(2, 1, 200, 128, seqlen_k=333, pass_="bwd"),
    Problem(2, 1, 333, 128, seqlen_k=200, causal=True, pass_="bwd"),
]
# Nsight Compute's instruction counts of PyTorch's FA2 backward on the H200 (validation/probes/torch_fa2_mix.sh).
FA2_MIX = Path(__file__).resolve().parents[2] / "validation" / "h200" / "torch_fa2_mix_h200.csv"
LDMATRIX_X4_BYTES = 512  # 32 lanes x 16 bytes
MMA_SYNC_FLOP = 2 * 16 * 8 * 16  # one m16n8k16


def closed_form_backward(problem: Problem, block_m: int, block_n: int) -> tuple[int, int]:
    """(read, write) bytes of FA2's backward: preprocess, K/V-outer main loop with fp32 dQ RMW, dQ conversion."""
    d, eb, bh, nq = problem.headdim, problem.element_bytes, problem.batch * problem.heads, problem.seqlen_q
    read = nq * d * 2 * eb  # preprocess: O and dO
    write = nq * d * 4 + nq * 4  # dQ accumulator zeroed, Delta
    n_q_blocks = ceil_div(nq, block_m)
    for j in range(ceil_div(problem.nk, block_n)):
        cols = rows_in_block(problem.nk, block_n, j)
        read += 2 * cols * d * eb  # K_j, V_j
        write += 2 * cols * d * eb  # dK_j, dV_j
        for i in range(first_query_block(problem, j * block_n, block_m), n_q_blocks):
            rows = rows_in_block(nq, block_m, i)
            read += rows * d * (2 * eb + 4) + 2 * rows * 4  # Q_i, dO_i, dQ_i (fp32 read), LSE_i, Delta_i
            write += rows * d * 4  # dQ_i (fp32 write)
    read += nq * d * 4  # conversion: the accumulator in, dQ out
    write += nq * d * eb
    return bh * read, bh * write


def main_kernel(problem: Problem, arch: str = "h200", **options: object) -> Kernel:
    _, kernel, _ = v2.schedule(load_arch(arch), problem, **options)
    return kernel


def loop_of(program: Sequence[Op]) -> Repeat:
    return next(op for op in program if isinstance(op, Repeat))


@pytest.mark.parametrize("layout", ["fa2", "ring"])
@pytest.mark.parametrize("problem", SHAPES, ids=str)
def test_hbm_bytes_with_l2_off_equal_the_closed_form_and_the_numerics(problem: Problem, layout: str) -> None:
    cfg = backward_config(problem, {"bwd_layout": layout}, load_arch("h100"))
    result = simulate(no_l2("h100"), "v2", problem, {"bwd_layout": layout})
    read, write = closed_form_backward(problem, cfg.block_m, cfg.block_n)
    assert (result.hbm_read_bytes, result.hbm_write_bytes) == (read, write)
    q, k, v = inputs(problem)
    o, lse = v2.forward(q, k, v, causal=problem.causal)
    *_, stats = v2.backward(
        q, k, v, o, lse, o, causal=problem.causal, block_m=cfg.block_m, block_n=cfg.block_n, return_stats=True
    )
    assert (stats.hbm_read_bytes, stats.hbm_write_bytes) == (read, write)


def fa2_executed(build: str, part: str) -> float:
    with FA2_MIX.open(newline="") as handle:
        return next(float(r["executed"]) for r in csv.DictReader(handle) if (r["build"], r["part"]) == (build, part))


@pytest.mark.parametrize("headdim", [64, 128])
def test_fa2s_ldmatrix_bytes_per_q_block_are_what_its_kernel_executes(headdim: int) -> None:
    # Each warp reads its rows of A and columns of B once per product: at d = 64 (128 x 128 tile, warps 4 x 2 in
    # every product) and at d = 128 (64 x 128, warps 2 x 4 for S, dP and dQ, 4 x 2 for dK and dV) 576 KiB per Q
    # block, FA2's 0.45 ldmatrix.x4 per mma.sync as Nsight Compute counted them.
    problem = Problem(1, 1, 1024, headdim, pass_="bwd")
    body = [op for role in main_kernel(problem).roles for op in loop_of(role.program((0, 0, 0))).body(1)]
    products = [op for op in body if isinstance(op, Mma)]
    mma_syncs = sum(op.flops for op in products) / MMA_SYNC_FLOP
    per_mma = fa2_executed(f"torchbwd{headdim}", "LDSM") / fa2_executed(f"torchbwd{headdim}", "HMMA")
    assert sum(op.operand_smem_bytes for op in products) == per_mma * mma_syncs * LDMATRIX_X4_BYTES == 576 * 1024
    # P and dS go through smem in 4-byte stores: FA2 executes 0.203 / 0.103 STS per mma.sync at d = 64 / 128, 520 /
    # 264 per Q block, 512 / 256 of them P and dS.
    block_m = {64: 128, 128: 64}[headdim]
    assert sum(op.write_bytes for op in body if isinstance(op, Smem)) == 2 * block_m * 128 * 2


@pytest.mark.parametrize("headdim", [64, 128])
def test_fa2s_cta_takes_the_shared_memory_its_launch_asks_for(headdim: int) -> None:
    # kSmemSize1colblock: Q twice, dO once, K, V, P and dS; 147,456 bytes at d = 64 and 128, the dynamic shared
    # memory Nsight Compute reports for PyTorch's FA2 (validation/h200/torch_fa2_mix/torchbwd*_details.csv).
    kernel = main_kernel(Problem(1, 1, 1024, headdim, pass_="bwd"))
    assert (kernel.cta.threads, kernel.cta.smem_bytes) == (256, 147_456)


def test_fa2_buffers_q_once_where_a_cta_may_take_less_than_176_kib_at_d256() -> None:
    problem = Problem(1, 1, 1024, 256, pass_="bwd")
    assert (default_backward_config(256, load_arch("a100")).stages, main_kernel(problem, "a100").cta.smem_bytes) == (
        1,
        (2 * 64 * 256 + 2 * 64 * 256 + 2 * 64 * 64) * 2,
    )
    assert default_backward_config(256, load_arch("h100")).stages == 2


def test_fa2_walks_the_q_blocks_from_the_last_and_issues_each_copy_where_its_kernel_does() -> None:
    kernel = main_kernel(Problem(1, 1, 512, 128, pass_="bwd"))
    assert [(role.name, role.warps) for role in kernel.roles] == [("warps 0", 4), ("warps 1", 4)]
    first, second = (role.program((0, 0, 0)) for role in kernel.roles)
    # Each tile's copy is one half's, under the tile's own name: K, Q and LSE the first's, V and dO the second's.
    assert [(op.tensor, op.tile) for op in first if isinstance(op, Load)] == [
        ("Q", (0, 0, 7)), ("LSE", (0, 0, 7)), ("K", (0, 0, 0)),
    ]  # fmt: skip
    assert [(op.tensor, op.tile) for op in second if isinstance(op, Load)] == [("dO", (0, 0, 7)), ("V", (0, 0, 0))]
    names = [type(op).__name__ if not isinstance(op, Load) else op.tensor for op in loop_of(second).body(0)]
    # Both halves wait for Q_i and dO_i and meet (FA2's __syncthreads); Delta read; S, P to smem; dP, dS; dS to smem;
    # they meet; dV; they meet; dO_{i-1} copied; dQ; dK. The first half copies Q_{i-1} after dS, reads LSE_{i-1}
    # after dQ, and adds dQ_i (the first block visited: the atomics alternate between the halves).
    assert names == [
        "Wait", "Wait", "Arrive", "Wait", "Delta", "Mma", "Wait", "Vector", "Smem", "Mma", "Wait", "Vector", "Smem",
        "Arrive", "Wait", "Mma", "Arrive", "Wait", "dO", "Mma", "Mma",
    ]  # fmt: skip
    body = loop_of(first).body(0)
    assert [(op.tensor, op.tile) for op in body if isinstance(op, Load | Store)] == [
        ("Q", (0, 0, 6)), ("LSE", (0, 0, 6)), ("dQacc", (0, 0, 7)),
    ]  # fmt: skip
    atomics = next(op for op in body if isinstance(op, Store))
    assert (atomics.nbytes, atomics.atomic, atomics.fragment_lane_bytes, atomics.fragment_rows) == (32768, True, 4, 1)
    assert any(isinstance(op, Store) for op in loop_of(second).body(1))
    assert not any(isinstance(op, Load) and op.tensor != "Delta" for op in loop_of(second).body(7))


def test_our_kernels_warps_run_as_two_halves_that_meet_at_its_two_barriers_per_q_block() -> None:
    # cupy_kernels/v2/bwd.cu: 8 warps (two per scheduler), 16 keys each; __syncthreads when Q block i has landed and
    # when dS^T is complete. Each half: its 64 keys' products, half of the 16 dQ tasks; its tiles' copies.
    kernel = main_kernel(Problem(1, 1, 512, 64, pass_="bwd"), bwd_layout="ring")
    assert [(role.name, role.warps) for role in kernel.roles] == [("warps 0", 4), ("warps 1", 4)]
    first, second = (role.program((0, 0, 0)) for role in kernel.roles)
    assert [op.tensor for op in first if isinstance(op, Load)] == ["K", "Q", "LSE"]
    assert [op.tensor for op in second if isinstance(op, Load)] == ["V", "dO", "Delta"]
    names = [type(op).__name__ for op in loop_of(first).body(0)]
    assert names == [
        "Wait", "Arrive", "Wait", "Load", "Load", "Mma", "Vector", "Mma", "Mma", "Vector", "Mma", "Smem", "Arrive",
        "Wait", "Mma", "Vector", "Store",
    ]  # fmt: skip
    s_t = next(op for op in loop_of(first).body(0) if isinstance(op, Mma))
    assert (s_t.m, s_t.n, s_t.k) == (64, 64, 64)  # its 64 keys against the block's 64 queries
    assert not any(isinstance(op, Store) for op in loop_of(second).body(0))  # block 0's atomics are the first's
    assert any(isinstance(op, Store) for op in loop_of(second).body(1))
    # One warp per scheduler (d = 256: 4 warps) stays one role.
    wide = main_kernel(Problem(1, 1, 512, 256, pass_="bwd"), bwd_layout="ring")
    assert [(role.name, role.warps) for role in wide.roles] == [("warps 0", 4)]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("layout", ["fa2", "ring"])
def test_fast_mode_follows_exact_mode_with_both_main_kernels(layout: str, causal: bool) -> None:
    arch = load_arch("h200", {"sms": 8})
    problem = Problem(2, 2, 1024, 64, causal=causal, pass_="bwd")
    exact = simulate(arch, "v2", problem, {"bwd_layout": layout}, mode="exact")
    fast = simulate(arch, "v2", problem, {"bwd_layout": layout})
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)
    assert fast.hbm_read_bytes == pytest.approx(exact.hbm_read_bytes, abs=0.5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"bwd_layout": "split"}, "bwd_layout must be one of fa2, ring, got 'split'"),
        ({"bwd_layout": "ring", "atom_sdp": 2}, "atom_sdp applies to bwd_layout=fa2 only"),
        ({"atom_dq": 3}, r"atom_dq \(3\) must divide warps \(8\)"),
        ({"block_m": 64, "atom_sdp": 8}, r"block_m \(64\) must be a multiple of 16 x 8 warps"),
        ({"stages": 3}, "stages \\(Q buffers\\) must be 1 or 2, got 3"),
        ({"bwd_layout": "ring", "block_n": 64}, r"block_n \(64\) must be 16 x warps \(128\)"),
    ],
)
def test_bad_backward_options_are_option_errors(options: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        v2.schedule(load_arch("h100"), Problem(1, 1, 256, 64, pass_="bwd"), **options)

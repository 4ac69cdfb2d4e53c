"""FlashAttention-2 schedule: HBM bytes equal the closed form of its loop structure and the numerics' count."""

from __future__ import annotations

import pytest

import algorithms.v2 as v2
from algorithms._schedule.tiling import ceil_div, key_blocks, rows_in_block
from algorithms.v2.schedule import default_config
from simgpu import Problem, load_arch, roofline_cycles, simulate
from simgpu.errors import OptionError
from simgpu.ops import Load, Repeat
from tests.schedules._helpers import inputs, no_l2

SHAPES = [
    Problem(1, 2, 300, 64),
    Problem(1, 2, 300, 64, causal=True),
    Problem(2, 1, 200, 128, seqlen_k=333),
    Problem(2, 1, 333, 128, seqlen_k=200, causal=True),
]


def closed_form(problem: Problem, block_m: int, block_n: int) -> tuple[int, int]:
    """(read, write) bytes: per Q block, Q once, K and V once per visited key block; O and LSE written once."""
    d, eb, bh = problem.headdim, problem.element_bytes, problem.batch * problem.heads
    read = write = 0
    for i in range(ceil_div(problem.seqlen_q, block_m)):
        rows = rows_in_block(problem.seqlen_q, block_m, i)
        visited = key_blocks(problem, i * block_m, rows, block_n).visited
        read += rows * d * eb + sum(2 * rows_in_block(problem.nk, block_n, j) * d * eb for j in range(visited))
        write += rows * d * eb + rows * 4
    return bh * read, bh * write


@pytest.mark.parametrize("problem", SHAPES, ids=str)
def test_hbm_bytes_with_l2_off_equal_the_closed_form_and_the_numerics(problem: Problem) -> None:
    cfg = default_config(problem.headdim)
    result = simulate(no_l2("a100"), "v2", problem)
    read, write = closed_form(problem, cfg.block_m, cfg.block_n)
    assert (result.hbm_read_bytes, result.hbm_write_bytes) == (read, write)
    q, k, v = inputs(problem)
    *_, stats = v2.forward(q, k, v, causal=problem.causal, block_m=cfg.block_m, block_n=cfg.block_n, return_stats=True)
    assert (stats.hbm_read_bytes, stats.hbm_write_bytes) == (read, write)


def test_k_v_rereads_hit_l2_on_hopper() -> None:
    # 16 Q blocks of one head re-read the same K/V: with L2 on, HBM sees K and V about once.
    problem = Problem(1, 4, 2048, 128)
    cached = simulate("h100", "v2", problem)
    uncached = simulate(no_l2("h100"), "v2", problem)
    assert cached.hbm_read_bytes < 1.1 * problem.compulsory_read_bytes
    assert uncached.hbm_read_bytes > 8 * problem.compulsory_read_bytes


@pytest.mark.parametrize("arch", ["a100", "h100", "h200", "b200"])
def test_cycles_never_below_the_roofline(arch: str) -> None:
    problem = Problem(2, 4, 1024, 64, causal=True)
    result = simulate(arch, "v2", problem)
    assert result.cycles >= roofline_cycles(load_arch(arch), problem, result.clock_hz)


def test_causal_skips_blocks() -> None:
    full = simulate("a100", "v2", Problem(1, 8, 2048, 64))
    causal = simulate("a100", "v2", Problem(1, 8, 2048, 64, causal=True))
    assert causal.cycles < 0.7 * full.cycles


def test_fwd_bwd_runs_the_forward_then_the_three_backward_kernels() -> None:
    result = simulate("h100", "v2", Problem(1, 2, 256, 64, pass_="fwd_bwd"))
    assert len(result.kernel_cycles) == 4


def test_fa2s_own_kv_layout_issues_each_copy_one_product_ahead_in_one_k_and_one_v_buffer() -> None:
    problem = Problem(1, 1, 256, 64)
    (kernel,) = v2.schedule(load_arch("a100"), problem, kv_layout="split")
    program = kernel.roles[0].program((0, 0, 0))
    loop = next(op for op in program if isinstance(op, Repeat))
    assert [type(op).__name__ for op in program[:3]] == ["Load", "Load", "Wait"]  # Q, K_0, wait for Q
    assert [(op.tensor, op.tile[2]) for op in program[:2]] == [("Q", 0), ("K", 0)]  # type: ignore[union-attr]
    body = loop.body(0)
    names = [type(op).__name__ for op in body]
    # K_0 in: V_0's copy, S_0; V_0 in: K_1's copy, the softmax, P_0 V_0.
    assert names[:5] == ["Wait", "Load", "Mma", "Wait", "Load"] and names[-1] == "Mma"
    assert [(body[n].tensor, body[n].tile[2]) for n in (1, 4)] == [("V", 0), ("K", 1)]  # type: ignore[union-attr]
    assert not any(isinstance(op, Load) for op in loop.body(loop.count - 1)[2:])  # no K after the last tile
    # Q, K and V tiles unpadded: 48 KiB at 128 x 128, d = 64 (the ring's 2 x (K, V) padded slots: 90 KiB).
    assert kernel.cta.smem_bytes == (128 + 2 * 128) * 64 * 2
    (ring,) = v2.schedule(load_arch("a100"), problem)
    assert ring.cta.smem_bytes == (128 + 2 * 2 * 128) * (64 + 8) * 2


def test_both_kv_layouts_move_the_closed_form_bytes() -> None:
    problem = Problem(2, 1, 333, 128, seqlen_k=200, causal=True)
    cfg = default_config(problem.headdim)
    read, write = closed_form(problem, cfg.block_m, cfg.block_n)
    for layout in ("ring", "split"):
        result = simulate(no_l2("a100"), "v2", problem, {"kv_layout": layout})
        assert (result.hbm_read_bytes, result.hbm_write_bytes) == (read, write)


def test_fast_mode_follows_exact_mode_with_fa2s_kv_layout() -> None:
    # -1.02% (104,275 against 105,347 cycles) until the fifty-fifth session, whose representative meets the other SMs'
    # HBM load at its average (`simgpu.units.hbm.Hbm.latency`): -0.74%.
    arch = load_arch("h100", {"sms": 8})
    problem = Problem(2, 2, 1024, 64)
    exact = simulate(arch, "v2", problem, {"kv_layout": "split"}, mode="exact")
    fast = simulate(arch, "v2", problem, {"kv_layout": "split"})
    assert fast.cycles == pytest.approx(exact.cycles, rel=0.01)
    assert fast.hbm_read_bytes == pytest.approx(exact.hbm_read_bytes, abs=0.5)


def test_fa2s_tile_and_buffers_at_d256_and_its_tile_by_the_chips_shared_memory() -> None:
    # flash_fwd_launch_template.h: 128 x 64 with 8 warps where a CTA may take 128 KiB and two 64 x 64 CTAs (192 KiB)
    # do not fit the SM (A100), else 64 x 64 with 4 warps (H100: two CTAs per SM).
    tiles = {name: default_config(256, load_arch(name)) for name in ("a100", "h100")}
    assert {name: (c.block_m, c.block_n, c.warps, c.kv_layout) for name, c in tiles.items()} == {
        "a100": (128, 64, 8, "split"),
        "h100": (64, 64, 4, "split"),
    }
    # FA2's one K and one V buffer where our CUDA kernel does not run (d > 128); its ring where it does.
    assert [default_config(d).kv_layout for d in (64, 128)] == ["ring", "ring"]
    (kernel,) = v2.schedule(load_arch("h100"), Problem(1, 8, 1024, 256))
    assert kernel.cta.smem_bytes == (64 + 2 * 64) * 256 * 2


def test_an_unknown_kv_layout_is_an_option_error() -> None:
    with pytest.raises(OptionError, match="kv_layout must be one of ring, split, got 'double'"):
        v2.schedule(load_arch("h100"), Problem(1, 1, 256, 64), kv_layout="double")

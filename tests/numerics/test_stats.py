"""`return_stats=True` counts equal their closed forms (bytes, blocks, exps, rescales)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from algorithms import standard, v1, v2, v3, v4
from algorithms._numerics.stats import NumericsStats
from algorithms.v1.numerics import block_sizes, kernel_tiles

from ._cases import BF16, inputs

B, H = 1, 2
BH = B * H


def test_stats_are_frozen_and_only_returned_when_asked():
    q, k, v, _ = inputs(64, 64, 64, BF16)
    assert len(v2.forward(q, k, v)) == 2
    *_, stats = v2.forward(q, k, v, return_stats=True)
    assert isinstance(stats, NumericsStats)
    with pytest.raises(AttributeError):
        stats.blocks_total = 0


def test_standard_forward_and_backward_bytes():
    nq, nk, d, e = 48, 80, 64, 2
    q, k, v, do = inputs(nq, nk, d, BF16)
    o, lse, fwd = standard.forward(q, k, v, return_stats=True)
    assert fwd.hbm_read_bytes == BH * ((nq + 2 * nk) * d * e + 2 * nq * nk * e)
    assert fwd.hbm_write_bytes == BH * (2 * nq * nk * e + nq * 4 + nq * d * e)
    assert fwd.exp_hardware == BH * nq * nk and fwd.blocks_total == 0
    *_, bwd = standard.backward(q, k, v, o, lse, do, return_stats=True)
    assert bwd.hbm_read_bytes == BH * (5 * nq * nk * e + 2 * nq * d * e + 2 * nk * d * e + nq * d * e)
    assert bwd.hbm_write_bytes == BH * (2 * nq * nk * e + (nq + 2 * nk) * d * e)  # dP, dS; dQ, dK, dV


@pytest.mark.parametrize("algo", [v2, v3, v4])
def test_flash_forward_noncausal_closed_form(algo):
    nq, nk, d, e, bm, bn = 200, 300, 64, 2, 64, 128
    q, k, v, _ = inputs(nq, nk, d, BF16)
    *_, s = algo.forward(q, k, v, block_m=bm, block_n=bn, return_stats=True)
    tq, tk = math.ceil(nq / bm), math.ceil(nk / bn)
    assert s.blocks_total == BH * tq * tk and s.blocks_skipped_causal == 0
    # Q once, K and V once per Q tile; O and lse written once
    assert s.hbm_read_bytes == BH * (nq * d * e + tq * 2 * nk * d * e)
    assert s.hbm_write_bytes == BH * nq * (d * e + 4)
    assert s.exp_software + s.exp_hardware == BH * nq * nk
    assert s.rescales_performed + s.rescales_skipped == BH * nq * (tk - 1)


def test_v2_causal_skips_the_upper_triangle_of_tiles():
    n, d, b = 256, 64, 64
    q, k, v, do = inputs(n, n, d, BF16)
    o, lse, s = v2.forward(q, k, v, True, block_m=b, block_n=b, return_stats=True)
    t = n // b
    assert s.blocks_total == BH * t * t and s.blocks_skipped_causal == BH * t * (t - 1) // 2
    visited = t * (t + 1) // 2
    assert s.hbm_read_bytes == BH * (n * d * 2 + visited * 2 * b * d * 2)
    assert s.exp_hardware == BH * visited * b * b
    assert s.rescales_performed == BH * b * (visited - t) and s.rescales_skipped == 0
    *_, g = v2.backward(q, k, v, o, lse, do, True, block_m=b, block_n=b, return_stats=True)
    assert g.blocks_skipped_causal == s.blocks_skipped_causal
    e, f = 2, 4  # bf16 inputs, fp32 accumulators
    pre = n * d * 2 * e  # preprocessing reads O and dO
    inner = visited * (b * d * (e + e + f) + 2 * b * f)  # Q_i, dO_i, dQacc_i, lse_i, D_i
    assert g.hbm_read_bytes == BH * (pre + 2 * n * d * e + inner + n * d * f)
    writes = n * d * f + n * f + visited * b * d * f + 2 * n * d * e + n * d * e
    assert g.hbm_write_bytes == BH * writes


def test_v1_block_sizes_and_algorithm_1_bytes():
    d, e, f = 64, 2, 4
    assert block_sizes(100 * 1024, d, e) == (64, 200)  # B_r = min(ceil(M/4d), d), B_c = ceil(M/4d)
    assert block_sizes(100 * 1024, 128, 8) == (25, 25)  # float64: M = 12800 elements
    assert kernel_tiles(64, 1024) == (16, 256) and kernel_tiles(128, 1024) == (16, 128)  # the released kernel's
    nq = nk = 300
    q, k, v, _ = inputs(nq, nk, d, BF16)
    *_, s = v1.forward(q, k, v, return_stats=True)
    tq, tk = math.ceil(nq / 16), math.ceil(nk / 256)
    # K, V once; every (j, i): Q_i read; from the second key block on O_i and lse_i read too
    assert s.hbm_read_bytes == BH * (2 * nk * d * e + tk * nq * d * e + (tk - 1) * nq * (d + 1) * f)
    # every (j, i): lse_i written; O_i in fp32 except on the last key block (output dtype)
    assert s.hbm_write_bytes == BH * ((tk - 1) * nq * d * f + nq * d * e + tk * nq * f)
    assert s.blocks_total == BH * tq * tk


def test_v1_moves_fewer_bytes_with_more_sram():
    q, k, v, _ = inputs(512, 512, 64, BF16)
    small = v1.forward(q, k, v, sram_bytes=16 * 1024, return_stats=True)[-1]
    large = v1.forward(q, k, v, sram_bytes=128 * 1024, return_stats=True)[-1]
    assert large.hbm_read_bytes < small.hbm_read_bytes


def test_v4_emulates_a_quarter_of_the_exps_by_default():
    q, k, v, _ = inputs(128, 256, 64, BF16)
    *_, s = v4.forward(q, k, v, return_stats=True)
    assert s.exp_software * 4 == BH * 128 * 256 and s.exp_hardware == 3 * s.exp_software
    *_, s = v4.forward(q, k, v, exp_emulation_fraction=0.0, return_stats=True)
    assert s.exp_software == 0


def test_v4_rescales_adversarial_rows_unless_tau_is_large():
    n, d = 256, 64
    rng = np.random.default_rng(0)
    q = np.zeros((1, 1, n, d), dtype=np.float32)
    k = np.zeros((1, 1, n, d), dtype=np.float32)
    q[..., 0] = 1.0
    k[..., 0] = np.arange(n) * 0.25 * np.sqrt(d)  # score +0.25 per key: +46 (log2 units) per 128-key tile
    v = rng.standard_normal((1, 1, n, d)).astype(np.float32)
    *_, eager = v4.forward(q, k, v, exp_emulation_fraction=0.0, rescale_threshold=0.0, return_stats=True)
    assert eager.rescales_performed == n and eager.rescales_skipped == 0
    *_, lazy = v4.forward(q, k, v, exp_emulation_fraction=0.0, rescale_threshold=64.0, return_stats=True)
    assert lazy.rescales_performed == 0 and lazy.rescales_skipped == n

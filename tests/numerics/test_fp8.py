"""FA3's FP8 helpers: the randomized Hadamard transform and block/per-tensor e4m3 quantization."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import reference, v3
from algorithms._numerics.fp8 import E4M3_MAX, quantize
from algorithms._numerics.hadamard import random_hadamard


def test_hadamard_is_orthogonal_seeded_and_keeps_qk_products():
    m = random_hadamard(64, seed=3)
    np.testing.assert_allclose(m @ m.T, np.eye(64), atol=1e-12)
    assert np.array_equal(m, random_hadamard(64, seed=3)) and not np.array_equal(m, random_hadamard(64, 4))
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 10, 64))
    np.testing.assert_allclose((q @ m) @ (k @ m).T, q @ k.T, atol=1e-12)
    with pytest.raises(ValueError, match="power-of-two"):
        random_hadamard(48, seed=0)


def test_quantize_uses_the_full_e4m3_range_per_tile_or_per_tensor():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 10, 8))
    x[0, 1, 9, 0] = 50.0
    q_tile, s_tile = quantize(x, block=4)
    q_tensor, s_tensor = quantize(x, block=None)
    assert s_tile.shape == (1, 2, 10, 1) and len(np.unique(s_tensor)) == 1
    assert np.isclose(s_tensor.max(), 50.0 / E4M3_MAX)
    assert len(np.unique(s_tile[0, 0])) == 3  # tiles of rows 0-3, 4-7, 8-9
    for q8, s in ((q_tile, s_tile), (q_tensor, s_tensor)):
        back = q8.astype(np.float64) * s
        normal = np.abs(x) > 0.05
        assert np.all(np.abs(back - x)[normal] <= 2**-4 * np.abs(x)[normal] + 1e-12)


def test_incoherent_processing_lowers_the_error_on_outlier_inputs():
    rng = np.random.default_rng(0)
    shape = (1, 2, 512, 64)
    q, k, v = (
        rng.standard_normal(shape) + 10 * rng.standard_normal(shape) * (rng.random(shape) < 0.001) for _ in "qkv"
    )
    ref, _ = reference.forward(q, k, v)

    def rmse(**opts):
        o, _ = v3.forward(q, k, v, fp8=True, **opts)
        return float(np.sqrt(np.mean((o.astype(np.float64) - ref) ** 2)))

    baseline = rmse(block_quant=False, incoherent=False)
    assert rmse(block_quant=True, incoherent=True) < 0.8 * baseline
    assert rmse(block_quant=False, incoherent=True) < 0.8 * baseline

"""The float64 oracle: gradients by finite differences, the causal convention, rows that see no key."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import reference


def _loss(q, k, v, do, causal):
    o, _ = reference.forward(q, k, v, causal)
    return float(np.sum(o * do))


@pytest.mark.parametrize(("nq", "nk", "causal"), [(5, 7, False), (5, 7, True), (7, 4, True)])
def test_backward_matches_central_finite_differences(nq, nk, causal):
    rng = np.random.default_rng(1)
    q, do = rng.standard_normal((2, 1, 2, nq, 4))
    k, v = rng.standard_normal((2, 1, 2, nk, 4))
    o, lse = reference.forward(q, k, v, causal)
    grads = reference.backward(q, k, v, o, lse, do, causal)
    h = 1e-6
    for x, g in zip((q, k, v), grads, strict=True):
        numeric = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            saved = x[idx]
            x[idx] = saved + h
            plus = _loss(q, k, v, do, causal)
            x[idx] = saved - h
            minus = _loss(q, k, v, do, causal)
            x[idx] = saved
            numeric[idx] = (plus - minus) / (2 * h)
        np.testing.assert_allclose(g, numeric, rtol=1e-6, atol=1e-8)


def test_causal_mask_is_bottom_right_aligned():
    mask = reference.causal_mask(2, 4)
    assert mask.tolist() == [[True, True, True, False], [True, True, True, True]]
    assert reference.causal_mask(3, 3).tolist() == np.tril(np.ones((3, 3), dtype=bool)).tolist()


def test_rows_without_visible_keys_have_zero_output_and_minus_inf_lse():
    rng = np.random.default_rng(2)
    q, do = rng.standard_normal((2, 1, 1, 5, 3))
    k, v = rng.standard_normal((2, 1, 1, 2, 3))
    o, lse = reference.forward(q, k, v, causal=True)
    assert np.all(o[..., :3, :] == 0) and np.all(np.isneginf(lse[..., :3]))
    assert np.all(np.isfinite(lse[..., 3:]))
    dq, dk, dv = reference.backward(q, k, v, o, lse, do, causal=True)
    assert np.all(dq[..., :3, :] == 0) and np.all(np.isfinite(dk)) and np.all(np.isfinite(dv))


def test_forward_equals_softmax_formula_and_scale_is_respected():
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((3, 1, 1, 4, 8))
    o, lse = reference.forward(q, k, v, scale=0.5)
    s = 0.5 * q[0, 0] @ k[0, 0].T
    p = np.exp(s) / np.exp(s).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(o[0, 0], p @ v[0, 0], rtol=1e-13)
    np.testing.assert_allclose(lse[0, 0], np.log(np.exp(s).sum(axis=1)), rtol=1e-13)

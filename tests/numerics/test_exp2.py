"""FA4's software exp2: fitted coefficients, error bounds, exact powers of two, the clamp."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms._numerics.exp2 import exp2_hardware, exp2_software, fit_exp2_poly

from ._cases import BF16

PAPER_DEGREE3 = 8.8e-5


def _max_rel_err(degree: int, x: np.ndarray) -> float:
    return float(np.abs(exp2_software(x, degree).astype(np.float64) / np.exp2(x.astype(np.float64)) - 1).max())


def test_coefficients_pin_p0_to_one_and_approach_ln2():
    for degree in (3, 4, 5):
        coeffs = fit_exp2_poly(degree)
        assert len(coeffs) == degree + 1 and coeffs[0] == 1.0
        assert abs(coeffs[1] - np.log(2.0)) < 3e-3


def test_degree_3_error_is_within_25_percent_of_the_paper_and_higher_degrees_are_better():
    f = np.random.default_rng(0).random(200_000).astype(np.float32)
    errs = [_max_rel_err(deg, f) for deg in (3, 4, 5)]
    assert abs(errs[0] - PAPER_DEGREE3) <= 0.25 * PAPER_DEGREE3
    assert errs[0] > errs[1] > errs[2]


def test_integers_are_exact_powers_of_two():
    j = np.arange(-126, 64, dtype=np.float32)
    assert np.array_equal(exp2_software(j), np.exp2(j.astype(np.float64)).astype(np.float32))


def test_inputs_below_minus_127_are_clamped():
    x = np.array([-127.0, -200.0, -np.inf], dtype=np.float32)
    out = exp2_software(x)
    assert out[1] == out[0] and out[2] == out[0]


def test_bf16_results_are_within_one_ulp_of_the_mufu_stand_in():
    x = np.random.default_rng(1).uniform(-126, 0, 100_000).astype(np.float32)
    soft = exp2_software(x).astype(BF16).view(np.uint16).astype(np.int64)
    hard = exp2_hardware(x).astype(BF16).view(np.uint16).astype(np.int64)
    assert np.mean(np.abs(soft - hard) <= 1) >= 0.99


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=-126.0, max_value=60.0, allow_nan=False, width=32))
def test_relative_error_bound_holds_everywhere(x):
    assert _max_rel_err(3, np.array([x], dtype=np.float32)) <= 1e-4

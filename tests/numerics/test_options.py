"""Options are validated: unknown names raise TypeError, bad values ValueError, inconsistent switches too."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import standard, v1, v2, v3, v4

from ._cases import BF16, E4M3, inputs

ALGOS = [standard, v1, v2, v3, v4]


@pytest.mark.parametrize("algo", ALGOS)
def test_unknown_option_names_raise_type_error_in_both_passes(algo):
    q, k, v, do = inputs(16, 16, 64, BF16)
    with pytest.raises(TypeError, match="blokc_m"):
        algo.forward(q, k, v, blokc_m=64)
    o, lse = algo.forward(q, k, v)
    with pytest.raises(TypeError, match="unknown option"):
        algo.backward(q, k, v, o, lse, do, rescale_treshold=4.0)


@pytest.mark.parametrize(
    ("algo", "options"),
    [
        (v1, {"sram_bytes": 0}),
        (v2, {"block_m": -1}),
        (v2, {"block_n": 1.5}),
        (v3, {"fp8": "yes"}),
        (v4, {"exp_emulation_fraction": 1.5}),
        (v4, {"exp_poly_degree": 9}),
        (v4, {"rescale_threshold": -1.0}),
        (v4, {"rescale_group_rows": 0}),
    ],
)
def test_bad_values_raise_value_error(algo, options):
    q, k, v, _ = inputs(16, 16, 64, BF16)
    with pytest.raises(ValueError, match=next(iter(options))):
        algo.forward(q, k, v, **options)


def test_fp8_tricks_need_the_quantizing_path():
    q, k, v, _ = inputs(16, 16, 64, np.dtype(np.float32))
    with pytest.raises(ValueError, match="fp8=False"):
        v3.forward(q, k, v, incoherent=True)
    with pytest.raises(ValueError, match="already fp8"):
        v3.forward(*(x.astype(E4M3) for x in (q, k, v)), block_quant=True)


def test_software_exp2_is_refused_for_float64_inputs():
    q, k, v, _ = inputs(16, 16, 64, np.dtype(np.float64))
    with pytest.raises(ValueError, match="float64"):
        v4.forward(q, k, v, exp_emulation_fraction=0.5)


def test_shape_and_dtype_errors():
    q, k, v, _ = inputs(16, 16, 64, BF16)
    with pytest.raises(ValueError, match="incompatible"):
        v2.forward(q, k[..., :32], v[..., :32])
    with pytest.raises(ValueError, match="share one dtype"):
        v2.forward(q, k.astype(np.float32), v)
    with pytest.raises(ValueError, match="unsupported dtype"):
        v2.forward(*(x.astype(np.int32) for x in (q, k, v)))

"""Every algorithm's forward and backward against the float64 reference, per input precision.

float64: 1e-10 relative; float32: 1e-5 relative (errors scaled by max |reference|); fp16/bf16: FA's rule,
error <= 2 x the error of standard attention at the same precision + the slack of `_cases.fa_atol`.
"""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import standard, v1, v2, v3, v4

from ._cases import BF16, E4M3, exact, fa_atol, inputs, max_err

ALGOS = {"standard": standard, "v1": v1, "v2": v2, "v3": v3, "v4": v4}
SHAPES = [(257, 257, 64), (130, 300, 128), (300, 130, 256)]  # (seqlen_q, seqlen_k, headdim)
NAMES = ("o", "lse", "dq", "dk", "dv")


def _run(algo, q, k, v, do, causal):
    o, lse = algo.forward(q, k, v, causal)
    return (o, lse, *algo.backward(q, k, v, o, lse, do, causal))


def _errors(outputs, refs):
    errs = []
    for name, x, ref in zip(NAMES, outputs, refs, strict=True):
        if name == "lse":
            assert np.array_equal(np.isneginf(x), np.isneginf(ref))
            finite = np.isfinite(ref)
            errs.append(max_err(x[finite], ref[finite]))
        else:
            errs.append(max_err(x, ref))
    return errs


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.dtype(np.float64), np.dtype(np.float32)])
@pytest.mark.parametrize("name", list(ALGOS))
def test_high_precision_matches_reference(name, dtype, shape, causal):
    q, k, v, do = inputs(*shape, dtype)
    refs = exact(*shape, dtype, causal)
    rtol = 1e-10 if dtype == np.float64 else 1e-5
    for label, err, ref in zip(NAMES, _errors(_run(ALGOS[name], q, k, v, do, causal), refs), refs, strict=True):
        scale = float(np.abs(ref[np.isfinite(ref)]).max())
        assert err <= rtol * scale, f"{name} {label}: {err:.2e} > {rtol:.0e} * {scale:.2e}"


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BF16])
def test_low_precision_within_twice_standard_error(dtype, shape, causal):
    q, k, v, do = inputs(*shape, dtype)
    refs = exact(*shape, dtype, causal)
    baseline = _errors(_run(standard, q, k, v, do, causal), refs)
    for name in ("v1", "v2", "v3", "v4"):
        errs = _errors(_run(ALGOS[name], q, k, v, do, causal), refs)
        for label, err, base, ref in zip(NAMES, errs, baseline, refs, strict=True):
            bound = 2 * base + fa_atol(ref[np.isfinite(ref)], dtype)
            assert err <= bound, f"{name} {label}: {err:.2e} > {bound:.2e}"


@pytest.mark.parametrize("name", ["standard", "v1", "v2", "v4"])
def test_fp8_inputs_run_the_bf16_path_on_exact_upcasts(name):
    q, k, v = (x.astype(E4M3) for x in inputs(64, 96, 64, np.dtype(np.float32))[:3])
    as_bf16 = [x.astype(BF16) for x in (q, k, v)]
    o8, lse8 = ALGOS[name].forward(q, k, v, True)
    o16, lse16 = ALGOS[name].forward(*as_bf16, True)
    assert o8.dtype == BF16 and np.array_equal(o8, o16) and np.array_equal(lse8, lse16)


def test_v3_fp8_inputs_stay_close_to_reference_and_backward_runs():
    q, k, v, do = (x.astype(E4M3) for x in inputs(128, 128, 64, np.dtype(np.float32)))
    o_ref, _, *grads_ref = exact(128, 128, 64, E4M3, False)
    o, lse = v3.forward(q, k, v)
    rms = np.sqrt(np.mean(o_ref**2))
    assert np.sqrt(np.mean((o.astype(np.float64) - o_ref) ** 2)) < 0.1 * rms
    grads = v3.backward(q, k, v, o, lse, do.astype(BF16))
    for g, g_ref in zip(grads, grads_ref, strict=True):
        assert max_err(g, g_ref) < 0.1 * np.abs(g_ref).max()

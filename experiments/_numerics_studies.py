"""The three numerics studies of `experiments.numerics`, each returning rows for a CSV (no plotting here).

(a) FA3 FP8: RMSE against the float64 reference of v3's FP8 forward on inputs N(0,1) + N(0,100) *
    Bernoulli(0.001), per-tensor baseline vs block quantization vs incoherent processing vs both; and the
    RMSE of standard vs v2 attention in fp16 and bf16.
(b) FA4 polynomial exp2: max relative error in float32 of degrees 3/4/5 on the fraction [0, 1) and on
    x in [-126, 0); share of inputs whose bf16-rounded result equals / is within 1 bf16 ULP of the
    bf16-rounded correctly rounded exp2 (the MUFU stand-in).
(c) FA4 conditional rescaling: share of rescales skipped vs tau on random and adversarial (logits growing
    along the keys) inputs, and v4's output error against the float64 reference and against v2.
Each study takes a `Sizes` so that `--quick` runs the same code on small shapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from algorithms import reference, standard, v2, v3, v4
from algorithms._numerics.exp2 import exp2_hardware, exp2_software

__all__ = ["Sizes", "exp2_curve_rows", "exp2_rows", "fp8_rows", "rescaling_rows"]

BF16 = np.dtype(ml_dtypes.bfloat16)
FP8_METHODS = {  # name: (block_quant, incoherent)
    "per_tensor": (False, False),
    "block_quant": (True, False),
    "incoherent": (False, True),
    "block_quant+incoherent": (True, True),
}


ADVERSARIAL_LOG2_GROWTH_PER_128_KEYS = 6.0  # every K/V tile raises each row's max by about 6 (log2 units)


@dataclass(frozen=True)
class Sizes:
    """Problem sizes of one run of the studies."""

    fp8_seqlen: int
    fp8_headdim: int
    fp8_draws: int
    exp_samples: int
    rescale_seqlen: int
    rescale_headdim: int
    rescale_heads: int
    taus: tuple[float, ...]


def _outlier_normal(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """N(0, 1) + N(0, 100) * Bernoulli(0.001), the FA3 paper's inputs with rare outliers of std 10."""
    outliers = rng.standard_normal(shape) * 10.0 * (rng.random(shape) < 0.001)  # (B, H, N, d)
    return rng.standard_normal(shape) + outliers  # (B, H, N, d)


def fp8_rows(sizes: Sizes, seed: int = 0) -> list[dict[str, Any]]:
    """RMSE of each FP8 variant and of fp16/bf16 standard vs v2, pooled over independent draws."""
    rng = np.random.default_rng(seed)
    shape = (1, 1, sizes.fp8_seqlen, sizes.fp8_headdim)
    squared: dict[tuple[str, str, str], float] = {}
    for _ in range(sizes.fp8_draws):
        q, k, v = (_outlier_normal(rng, shape) for _ in range(3))  # (1, 1, N, d) each
        ref, _ = reference.forward(q, k, v)  # (1, 1, N, d)
        q32, k32, v32 = (x.astype(np.float32) for x in (q, k, v))
        runs = {
            ("v3", "fp8_e4m3", name): v3.forward(q32, k32, v32, fp8=True, block_quant=bq, incoherent=inc)[0]
            for name, (bq, inc) in FP8_METHODS.items()
        }
        for dtype_name, dtype in (("fp16", np.dtype(np.float16)), ("bf16", BF16)):
            qd, kd, vd = (x.astype(dtype) for x in (q, k, v))
            runs["standard", dtype_name, "standard"] = standard.forward(qd, kd, vd)[0]
            runs["v2", dtype_name, "flash_v2"] = v2.forward(qd, kd, vd)[0]
        for key, out in runs.items():
            squared[key] = squared.get(key, 0.0) + float(np.mean((out.astype(np.float64) - ref) ** 2))
    baseline = np.sqrt(squared["v3", "fp8_e4m3", "per_tensor"] / sizes.fp8_draws)
    rows = []
    for (algo, dtype_name, method), total in squared.items():
        rmse = float(np.sqrt(total / sizes.fp8_draws))
        rows.append(
            {
                "algo": algo,
                "dtype": dtype_name,
                "method": method,
                "seqlen": sizes.fp8_seqlen,
                "headdim": sizes.fp8_headdim,
                "draws": sizes.fp8_draws,
                "rmse": rmse,
                "fp8_baseline_over_rmse": float(baseline / rmse) if dtype_name == "fp8_e4m3" else "",
            }
        )
    return rows


def _ulp_distance_bf16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ULPs between positive float32 arrays after rounding both to bf16 (bit patterns are ordered)."""
    bits_a = a.astype(BF16).view(np.uint16).astype(np.int64)  # (n,)
    bits_b = b.astype(BF16).view(np.uint16).astype(np.int64)  # (n,)
    return np.abs(bits_a - bits_b)  # (n,)


def exp2_rows(sizes: Sizes, seed: int = 0) -> list[dict[str, Any]]:
    """Accuracy of the software exp2 (degrees 3-5) and of the MUFU stand-in, on two input domains."""
    rng = np.random.default_rng(seed)
    domains = {
        "fraction[0,1)": rng.random(sizes.exp_samples).astype(np.float32),
        "x[-126,0)": rng.uniform(-126.0, 0.0, sizes.exp_samples).astype(np.float32),
    }
    rows = []
    for domain, x in domains.items():
        exact = np.exp2(x.astype(np.float64))  # (n,)
        hardware = exp2_hardware(x)  # (n,) correctly rounded float32
        for method, approx in [("mufu_stand_in", hardware)] + [
            (f"poly_degree_{deg}", exp2_software(x, deg)) for deg in (3, 4, 5)
        ]:
            rel = np.abs(approx.astype(np.float64) / exact - 1.0)  # (n,)
            rel_bf16 = np.abs(approx.astype(BF16).astype(np.float64) / exact - 1.0)  # (n,)
            ulps = _ulp_distance_bf16(approx, hardware)  # (n,)
            rows.append(
                {
                    "domain": domain,
                    "method": method,
                    "samples": x.size,
                    "max_rel_err_fp32": float(rel.max()),
                    "max_rel_err_bf16": float(rel_bf16.max()),
                    "share_bf16_equal_to_mufu": float(np.mean(ulps == 0)),
                    "share_within_1_bf16_ulp": float(np.mean(ulps <= 1)),
                }
            )
    return rows


def exp2_curve_rows(points: int = 512, per_point: int = 64) -> list[dict[str, Any]]:
    """Max relative error of each degree in `points` bins of [0, 1), for the error-curve plot."""
    f = np.linspace(0.0, 1.0, points * per_point, endpoint=False).astype(np.float32)  # (P*k,)
    exact = np.exp2(f.astype(np.float64))  # (P*k,)
    rows: list[dict[str, Any]] = [{"f": float(f[i * per_point])} for i in range(points)]
    for deg in (3, 4, 5):
        rel = (exp2_software(f, deg).astype(np.float64) / exact - 1.0).reshape(points, per_point)  # (P, k)
        worst = rel[np.arange(points), np.abs(rel).argmax(axis=1)]  # (P,) signed error of largest size
        for row, err in zip(rows, worst, strict=True):
            row[f"rel_err_degree_{deg}"] = float(err)
    return rows


def _rescale_inputs(kind: str, sizes: Sizes, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """fp32 q, k, v: "random" N(0, 1), or "adversarial" with scores growing linearly along the keys."""
    shape = (1, sizes.rescale_heads, sizes.rescale_seqlen, sizes.rescale_headdim)
    q, k, v = (rng.standard_normal(shape) for _ in range(3))  # (1, H, N, d) each
    if kind == "adversarial":
        d, n = sizes.rescale_headdim, sizes.rescale_seqlen
        ramp = ADVERSARIAL_LOG2_GROWTH_PER_128_KEYS * np.log(2.0) / 128 * np.arange(n)  # (N,) natural log
        q[..., 0] = np.sqrt(d)  # the first feature carries the ramp (cancels the 1/sqrt(d) scale)
        k[..., 0] = ramp[None, None, :]  # (1, H, N)
        q[..., 1:] *= 0.1  # (1, H, N, d-1) small noise around the ramp
    return tuple(x.astype(np.float32) for x in (q, k, v))


def rescaling_rows(sizes: Sizes, seed: int = 0) -> list[dict[str, Any]]:
    """Skipped share and output error of v4's conditional rescaling for each tau and input kind."""
    rng = np.random.default_rng(seed)
    rows = []
    for kind in ("random", "adversarial"):
        q, k, v = _rescale_inputs(kind, sizes, rng)
        ref, _ = reference.forward(q, k, v)  # (1, H, N, d)
        ref_max = float(np.abs(ref).max())
        o_v2, _ = v2.forward(q, k, v)  # (1, H, N, d) FA2: rescales every step
        for tau in sizes.taus:
            o, _, stats = v4.forward(q, k, v, exp_emulation_fraction=0.0, rescale_threshold=tau, return_stats=True)
            steps = stats.rescales_performed + stats.rescales_skipped
            rows.append(
                {
                    "inputs": kind,
                    "tau_log2": tau,
                    "seqlen": sizes.rescale_seqlen,
                    "rescales_performed": stats.rescales_performed,
                    "rescales_skipped": stats.rescales_skipped,
                    "share_skipped": stats.rescales_skipped / steps,
                    "max_err_vs_reference": float(np.abs(o - ref).max()) / ref_max,
                    "max_diff_vs_v2": float(np.abs(o - o_v2).max()) / ref_max,
                    "v2_max_err_vs_reference": float(np.abs(o_v2 - ref).max()) / ref_max,
                }
            )
    return rows

"""v4's measured rescale fraction: `algorithms.v4.rescale_sample` makes the same decisions as the numerics' forward
(which the schedule ran before, importing ml_dtypes), over headdims, key counts, causality, key blocks and
thresholds, and its bf16 rounding is ml_dtypes' cast. A wider grid (1,800 configurations) was checked once:
`docs/results/speed_41_sched/rescale_sample_check.py`."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from algorithms.v4.numerics import forward
from algorithms.v4.rescale_sample import bf16_in_float32
from algorithms.v4.schedule import SAMPLE_ROWS, measured_rescale_fraction

CONFIGS = [
    (headdim, keys, causal, block_n, tau)
    for headdim, keys, causal, block_n, tau in itertools.product(
        (32, 64, 128, 256), (257, 2048), (False, True), (64, 128, 256), (0.0, 1.0, 8.0)
    )
    if keys > block_n
]


def numerics_fraction(headdim: int, keys: int, causal: bool, block_n: int, tau: float) -> float:
    """The schedule's former measurement: the numerics' forward on the same sample, its counts of decisions."""
    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, 1, SAMPLE_ROWS, headdim)).astype(ml_dtypes.bfloat16)
    k = rng.standard_normal((1, 1, keys, headdim)).astype(ml_dtypes.bfloat16)
    v = rng.standard_normal((1, 1, keys, headdim)).astype(ml_dtypes.bfloat16)
    stats = forward(q, k, v, causal, block_n=block_n, rescale_threshold=tau, return_stats=True)[-1]
    decisions = stats.rescales_performed + stats.rescales_skipped
    return stats.rescales_performed / decisions if decisions else 0.0


@pytest.mark.parametrize(("headdim", "keys", "causal", "block_n", "tau"), CONFIGS)
def test_same_fraction_as_the_numerics(headdim: int, keys: int, causal: bool, block_n: int, tau: float) -> None:
    fraction = measured_rescale_fraction.__wrapped__(headdim, keys, causal, block_n, tau)
    expected = numerics_fraction(headdim, keys, causal, block_n, tau)
    assert type(fraction) is float
    assert fraction == expected


def test_the_grid_sees_rescales_and_skips() -> None:
    """The configurations above are not all trivially 0 or 1."""
    fractions = {measured_rescale_fraction(*config) for config in CONFIGS}
    assert any(0.0 < fraction < 1.0 for fraction in fractions)


def test_bf16_rounding_is_ml_dtypes_cast() -> None:
    """Normal draws at many scales, and values next to bf16 ties where rounding through float32 would differ."""
    rng = np.random.default_rng(1)
    draws = rng.standard_normal(200_000) * np.exp2(rng.integers(-30, 30, 200_000))
    ties = (((np.arange(0x0080, 0x7F00, dtype=np.uint32) << 16) | 0x8000).view(np.float32)).astype(np.float64)
    values = np.concatenate([draws, -draws, ties, ties * (1 + 2.0**-30), ties * (1 - 2.0**-30), -ties])
    expected = values.astype(ml_dtypes.bfloat16).astype(np.float32)
    assert np.array_equal(bf16_in_float32(values).view(np.uint32), expected.view(np.uint32))

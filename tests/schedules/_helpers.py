"""Shared pieces of the schedule tests: random low-precision inputs for the numerics, an arch without L2."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from simgpu import Arch, Problem, load_arch


def no_l2(arch: str) -> Arch:
    """The arch with L2 switched off: every load and store goes to HBM."""
    return load_arch(arch, {"l2.capacity_bytes": 0})


def inputs(problem: Problem, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random bf16 Q, K, V shaped (batch, heads, seqlen, headdim)."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((problem.batch, problem.heads, problem.seqlen_q, problem.headdim))
    k = rng.standard_normal((problem.batch, problem.heads, problem.nk, problem.headdim))
    v = rng.standard_normal((problem.batch, problem.heads, problem.nk, problem.headdim))
    return tuple(x.astype(ml_dtypes.bfloat16) for x in (q, k, v))  # type: ignore[return-value]

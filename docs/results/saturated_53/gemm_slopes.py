"""The removed k-step of the H100's default GEMM (4096^3 and 8192 x 8192 x 2048) as fast mode prices it at each
clock the run takes: busy (the equal share of a saturated L2), alone, and after the fifty-third session's sharing;
with its bytes' service at the share. One row of `Cost.slopes` per role's iteration (three roles a k-step). Runs the
sources, since a compiled function cannot be wrapped:
`SIMGPU_NATIVE=0 python docs/results/saturated_53/gemm_slopes.py > docs/results/saturated_53/gemm_slopes.txt`"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

import simgpu.fast_costs as fast_costs
from simgpu import GemmProblem, native, simulate

ROLES = 3  # producer and two consumers: each k-step is an iteration of each


def main() -> None:
    if native.compiled():
        sys.exit("run with SIMGPU_NATIVE=0: the compiled `_shared_slopes` cannot be wrapped")
    shared_slopes = fast_costs._shared_slopes

    def shown(busy: np.ndarray, alone: np.ndarray, served: Any, ctas: int) -> np.ndarray:
        slopes = shared_slopes(busy, alone, served, ctas)
        hbm, l2 = (ROLES * float(busy[0, n]) for n in served)
        hbm_alone, l2_alone = (ROLES * float(alone[0, n]) for n in served)
        print(
            f"a k-step: busy {ROLES * busy[0, 1]:.1f}, alone {ROLES * alone[0, 1]:.1f},"
            f" shared {ROLES * slopes[0, 1]:.1f} cycles; served at the share: HBM {hbm:.1f}, L2 {l2:.1f};"
            f" alone: HBM {hbm_alone:.1f}, L2 {l2_alone:.1f}"
        )
        return slopes

    fast_costs._shared_slopes = shown
    for m, n, k in ((4096, 4096, 4096), (8192, 8192, 2048)):
        print(f"{m} x {n} x {k}:")
        result = simulate("h100", "gemm", GemmProblem(m, n, k, "bf16"))
        print(f"{result.cycles:,.0f} cycles at {result.clock_hz / 1e6:.0f} MHz (the second k-step line's clock)")


if __name__ == "__main__":
    main()

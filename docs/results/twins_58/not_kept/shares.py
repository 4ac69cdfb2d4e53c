"""v1 on FA2's shape where fast mode departs most on the H100 (32 x 32 x 512, d = 64, one split, 2 CTAs an SM): exact
and fast mode's cycles, then fast mode with the busy SMs' processor sharing left out (`_shared_period`: a further
tile no faster than its busy run) and, as well, with an equal share of the bandwidth for every request
(`_busy_shares`). Python mode (`SIMGPU_NATIVE=0`, set here), so that the two can be replaced.
`python docs/results/twins_58/not_kept/shares.py > docs/results/twins_58/not_kept/shares.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

import numpy as np

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate

PROBLEM = Problem(32, 32, 512, 64)
OPTIONS = {"splits": 1}


def main() -> None:
    arch = load_arch("h100")
    exact = simulate(arch, "v1", PROBLEM, options=OPTIONS, mode="exact").cycles
    fast = simulate(arch, "v1", PROBLEM, options=OPTIONS).cycles
    print(f"exact {exact:,.0f}, fast {fast:,.0f} ({fast / exact:.3f})")

    def unshared(busy: np.ndarray, alone: np.ndarray, served: object, ctas: int) -> np.ndarray:
        return busy.copy()

    fast_costs._shared_period = unshared  # type: ignore[assignment]
    cycles = simulate(arch, "v1", PROBLEM, options=OPTIONS).cycles
    print(f"no processor sharing: {cycles:,.0f} ({cycles / exact:.3f})")
    shares = fast_costs._busy_shares

    def equal(sms: int, demand: float) -> tuple[float, float, bool]:
        return 1.0 / sms, 1.0 / sms, shares(sms, demand)[2]

    fast_costs._busy_shares = equal  # type: ignore[assignment]
    cycles = simulate(arch, "v1", PROBLEM, options=OPTIONS).cycles
    print(f"and an equal share for every request: {cycles:,.0f} ({cycles / exact:.3f})")


if __name__ == "__main__":
    main()

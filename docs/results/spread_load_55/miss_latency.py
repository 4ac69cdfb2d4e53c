"""The HBM's extra latency that misses wait out (`simgpu.units.hbm.Hbm.latency` over the idle latency), mean per
miss, in exact mode (every SM) and in fast mode's runs of the representative with the other SMs busy: v1's forward on
the H200 at 2 x 16 x 4096, d = 128 (one CTA on each of 32 SMs), and v3's forward on an H200 cut to 16 SMs at
4 x 16 x 512, d = 64, with the extra latency at 2000 cycles (`loaded_latency_whatif.py`). Python modules (the HBM's
method watched). Run with the checkout to look at first on the path:
`python docs/results/spread_load_55/miss_latency.py > miss_latency.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

import statistics
from typing import Any

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate
from simgpu.units.hbm import Hbm

CASES = (
    ("v1", {}, Problem(2, 16, 4096, 128)),
    ("v3", {"sms": 16, "hbm.loaded_latency.extra_cycles": 2000}, Problem(4, 16, 512, 64)),
)


def measure(algo: str, overrides: dict[str, object], problem: Problem) -> None:
    extras: list[float] = []
    latency = Hbm.latency

    def watched(self: Hbm, now: float) -> float:
        value = latency(self, now)
        extras.append(value - self.latency_cycles)
        return value

    Hbm.latency = watched  # type: ignore[method-assign]
    arch = load_arch("h200", {"power": None, "clock_hz": 1.8e9, **overrides})
    busy: list[float] = []
    representative = fast_costs._representative

    def runs(*args: Any, **kwargs: Any) -> Any:
        start = len(extras)
        made = representative(*args, **kwargs)
        if args[3][2] < 1.0:  # the other SMs busy
            busy.extend(extras[start:])
        return made

    fast_costs.__dict__["_representative"] = runs
    fast = simulate(arch, algo, problem)
    fast_costs.__dict__["_representative"] = representative
    extras.clear()
    exact = simulate(arch, algo, problem, mode="exact")
    Hbm.latency = latency  # type: ignore[method-assign]
    print(f"{algo} {problem.describe()} on the H200 {overrides or ''}")
    print(f"  exact mode: {exact.cycles:,.0f} cycles, HBM {exact.busy['hbm']:.3f} busy; {len(extras):,} misses, extra")
    print(f"    latency mean {statistics.mean(extras):.0f} cycles, median {statistics.median(extras):.0f}")
    print(f"  fast mode: {fast.cycles:,.0f} cycles; representative, other SMs busy: {len(busy):,} misses, extra")
    print(f"    latency mean {statistics.mean(busy):.0f} cycles, median {statistics.median(busy):.0f}")
    print(f"  fast over exact {fast.cycles / exact.cycles:.4f}")


def main() -> None:
    for case in CASES:
        measure(*case)


if __name__ == "__main__":
    main()

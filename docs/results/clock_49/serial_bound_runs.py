"""The fit behind `serial_bound.txt`'s case (v1's causal forward on the H200 at 16 x 16 x 1k, d = 128), at 1750 and
1800 MHz: each representative run's first-tile time by setting (CTAs, burst share) and folded tile, and each fit
variant's time over its base before and after `simgpu.fast_costs._within_serial`. Run on the sources, which a script
may patch: `SIMGPU_NATIVE=0 python docs/results/clock_49/serial_bound_runs.py > .../serial_bound_runs.txt`."""

from __future__ import annotations

from typing import Any

import numpy as np

import simgpu.fast_costs as costs
from simgpu import Problem, load_arch, simulate

PROBLEM = Problem(16, 16, 1024, 128, causal=True)


def main() -> None:
    representative, within_serial = costs._representative, costs._within_serial

    def run(*args: Any, **kwargs: Any) -> Any:
        result = representative(*args, **kwargs)
        setting, tile = args[3], args[2]
        print(f"  run: {setting[0]} CTAs, burst {setting[1]:.3f}, executed {tile.executed}: {result.vector[0]:.0f}")
        return result

    def bounded(deltas: list[np.ndarray], ones: list[np.ndarray], ctas: int) -> list[np.ndarray]:
        out = within_serial(deltas, ones, ctas)
        for delta, one, moved in zip(deltas, ones, out, strict=True):
            print(f"  variant over base, {ctas} CTAs: {delta[0]:.0f}, one CTA's {one[0]:.0f}, bounded {moved[0]:.0f}")
        return out

    costs._representative, costs._within_serial = run, bounded  # type: ignore[assignment]
    for mhz in (1750, 1800):
        print(f"{mhz} MHz")
        simulate(load_arch("h200", {"power": None, "clock_hz": mhz * 1e6}), "v1", PROBLEM)


if __name__ == "__main__":
    main()

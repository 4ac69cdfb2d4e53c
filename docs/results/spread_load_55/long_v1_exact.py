"""The validation's one v1 configuration whose exact-mode prediction fell back to fast mode there (the event budget):
v1 as our kernel loops at 1 x 32 x 16384, d = 64, not causal, on the H200 and the H100, each at the clock counted
beside its measured run, in exact mode with a budget that holds it, and in fast mode. Run with the checkout to look at
first on the path: `python docs/results/spread_load_55/long_v1_exact.py > long_v1_exact.txt`"""

from __future__ import annotations

import time

from simgpu import Problem, load_arch, simulate

OPTIONS = {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}
CLOCKS_MHZ = {"h200": 1799.0, "h100": 1859.0}  # the validation CSVs' counted clocks for this configuration


def main() -> None:
    problem = Problem(1, 32, 16384, 64)
    for chip, mhz in CLOCKS_MHZ.items():
        arch = load_arch(chip, {"power": None, "clock_hz": mhz * 1e6})
        fast = simulate(arch, "v1", problem, OPTIONS)
        started = time.process_time()
        exact = simulate(arch, "v1", problem, OPTIONS, mode="exact", event_budget=10**9)
        print(
            f"{chip} at {mhz:.0f} MHz: fast {fast.cycles:,.0f} cycles, exact {exact.cycles:,.0f} "
            f"({time.process_time() - started:.0f} s CPU); fast over exact {fast.cycles / exact.cycles:.4f}"
        )


if __name__ == "__main__":
    main()

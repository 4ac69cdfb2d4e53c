"""v1's causal forward on the H200 at 16 x 16 x 1k, d = 128 (two CTAs per SM), fast mode against exact mode at SM
clocks from 1700 to 1980 MHz (the power model off): the case whose fast-mode fit the tensor-active clock (1800 MHz)
moved from 1.14x to 1.47x exact mode's cycles, and what `simgpu.fast_costs._within_serial` leaves of it.

`python docs/results/clock_49/serial_bound.py > docs/results/clock_49/serial_bound.txt` (at a commit before the
bound, in a worktree with its own build, for the "before" file).
"""

from __future__ import annotations

import subprocess

from simgpu import Problem, load_arch, simulate

PROBLEM = Problem(16, 16, 1024, 128, causal=True)


def main() -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"# at {commit}: v1 forward, causal, 16 x 16 x 1024, d=128, h200 with power=null at each clock")
    print("MHz   fast cycles  exact cycles  fast/exact")
    for mhz in (1700, 1750, 1780, 1800, 1820, 1850, 1900, 1950, 1980):
        arch = load_arch("h200", {"power": None, "clock_hz": mhz * 1e6})
        fast = simulate(arch, "v1", PROBLEM, mode="fast")
        exact = simulate(arch, "v1", PROBLEM, mode="exact")
        print(f"{mhz}  {fast.cycles:11.0f}  {exact.cycles:12.0f}  {fast.cycles / exact.cycles:10.3f}")


if __name__ == "__main__":
    main()

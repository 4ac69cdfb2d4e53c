"""The fast-mode cases over 50 ms in the fifty-first session's simspeed run: how many times a prediction runs fast
mode (once at its starting clock, again where the power law moves the clock) and the wall time of each run, of the
prediction's whole (after a warm-up; compiled engine, this VM's load at the time).
`python docs/results/saturated_53/slow_cases_clock_runs.py > docs/results/saturated_53/slow_cases_clock_runs.txt`"""

from __future__ import annotations

import time
from typing import Any

import simgpu.api as api
from benchmarks.simspeed import problem_for
from simgpu import load_arch, native
from simgpu.fast import run_fast

CASES = (
    ("h200", "v3", "bwd", 131072),
    ("h100", "v3", "bwd", 131072),
    ("b200", "standard", "bwd", 16384),
    ("a100", "standard", "bwd", 16384),
    ("b200", "standard", "fwd", 16384),
    ("b200", "v1", "bwd", 131072),
    ("h200", "v1", "bwd", 131072),
)


def main() -> None:
    runs: list[tuple[float, float]] = []

    def timed(*args: Any) -> Any:
        started = time.perf_counter()
        stats = run_fast(*args)
        runs.append((args[2], time.perf_counter() - started))
        return stats

    api.__dict__["run_fast"] = timed  # `simgpu.api` is not compiled: its name for the function can be replaced
    print(f"compiled engine: {native.compiled()}")
    for arch_name, algo, pass_, seqlen in CASES:
        arch, problem = load_arch(arch_name), problem_for(seqlen, pass_)
        api.simulate(arch, algo, problem)  # warm-up
        runs.clear()
        started = time.perf_counter()
        api.simulate(arch, algo, problem)
        whole = time.perf_counter() - started
        each = ", ".join(f"{clock / 1e6:.0f} MHz {1000 * seconds:.1f} ms" for clock, seconds in runs)
        print(f"{arch_name} {algo} {pass_} {seqlen}: {1000 * whole:.1f} ms, fast-mode runs: {each}")


if __name__ == "__main__":
    main()

"""FA1's split forward as released, on the H100 at 1 x 32 x 16384, d = 64, causal, 8 splits, at the run's counted
clock (`validation/h200/fa1_release/fa1_release_h100.csv`): fast mode against exact mode (about 25 s). Run with the
checkout to look at first on the path:
`python docs/results/spread_load_55/fa1_release_check.py > fa1_release_check.txt`"""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch = load_arch("h100", {"clock_hz": 1844.6669552598414e6, "power": None})
    problem = Problem(1, 32, 16384, 64, causal=True)
    fast = simulate(arch, "v1", problem, {"splits": 8})
    exact = simulate(arch, "v1", problem, {"splits": 8}, mode="exact", event_budget=10**9)
    print(
        f"fast {fast.cycles:,.0f} cycles, exact {exact.cycles:,.0f}; fast over exact {fast.cycles / exact.cycles:.4f}"
    )


if __name__ == "__main__":
    main()

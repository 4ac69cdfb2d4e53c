"""How much the HBM's loaded latency slows v3's forward on an H200 cut to 16 SMs (4 x 16 x 512, d = 64, causal and
not; many short persistent tiles an SM), in fast and exact mode: the extra latency at none, the H200's measured 481
cycles and a what-if 2000. Run with the checkout to look at first on the path:
`python docs/results/spread_load_55/loaded_latency_whatif.py > loaded_latency_whatif.txt`"""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

EXTRAS = (0, 481, 2000)


def main() -> None:
    for causal in (False, True):
        problem = Problem(4, 16, 512, 64, causal=causal)
        cycles = {
            mode: {
                extra: simulate(
                    load_arch("h200", {"sms": 16, "hbm.loaded_latency.extra_cycles": extra}), "v3", problem, mode=mode
                ).cycles
                for extra in EXTRAS
            }
            for mode in ("fast", "exact")
        }
        for mode, by_extra in cycles.items():
            shown = ", ".join(f"{extra}: {value:,.0f}" for extra, value in by_extra.items())
            slowdowns = ", ".join(f"{extra}: {by_extra[extra] / by_extra[0]:.4f}" for extra in EXTRAS[1:])
            print(f"causal {causal}, {mode} mode: cycles at extra {shown}; slowdown over none at {slowdowns}")
        print(f"  fast over exact at the measured extra: {cycles['fast'][481] / cycles['exact'][481]:.4f}")


if __name__ == "__main__":
    main()

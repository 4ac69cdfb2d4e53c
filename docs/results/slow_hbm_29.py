"""Fast mode on slower HBMs (what-ifs): whether a run's HBM is ever more than busy, and v3's forward against exact
mode.

`PYTHONPATH=. python docs/results/slow_hbm_29.py` (stdout; `slow_hbm_29.txt` holds runs at the twenty-ninth session's
fixes (a representative SM's HBM time counts its misses at their shares; then also a removed iteration's fitted time
is at least its HBM service at the SM's share), at a fix tried before them (more rounds, `_rounds`, not kept: about 20%
slower fast mode) and at the session's start). Part 1: fast mode on every arch and
algorithm, HBM bandwidth at 1, 0.5, 0.25, 0.1 and 0.03 of the arch file's, three shapes (forward 16 x 16 heads N = 1024
d = 128; causal forward 4 x 16 N = 4096 d = 64; backward 8 x 16 N = 2048 d = 128): the runs whose HBM busy fraction (the
replay's timed bytes over the run's cycles at the HBM's rate) passes 1. Part 2: v3's forward on the H100 at 0.8 and 0.4
TB/s, fast and exact mode. Part 3: the same at 0.8 TB/s, the HBM read-byte cost that fast mode's representative SM books
per further tile (its `served:hbm` cycles at an equal share of the rate) against the replay's timed bytes per tile.
"""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.errors import SimgpuError
from simgpu.fast import plan_fast
from simgpu.fast_costs import TIMES, class_costs, metric_names

SHAPES = (Problem(16, 16, 1024, 128), Problem(4, 16, 4096, 64, causal=True), Problem(8, 16, 2048, 128, pass_="bwd"))


def main() -> None:
    runs = over = 0
    worst = 0.0
    for arch_name in ("a100", "h100", "h200", "b200"):
        rate = load_arch(arch_name).hbm.bandwidth_bytes_per_s
        for algo in ("standard", "v1", "v2", "v3", "v4"):
            for fraction in (1.0, 0.5, 0.25, 0.1, 0.03):
                arch = load_arch(arch_name, {"hbm.bandwidth_bytes_per_s": rate * fraction})
                for problem in SHAPES:
                    try:
                        busy = simulate(arch, algo, problem).busy["hbm"]
                    except SimgpuError:
                        continue
                    runs += 1
                    worst = max(worst, busy)
                    if busy > 1.0 + 1e-6:
                        over += 1
                        shape = (
                            f"{problem.batch}x{problem.heads} N={problem.seqlen_q} d={problem.headdim} {problem.pass_}"
                        )
                        print(
                            f"{arch_name} {algo} x{fraction} {shape} causal={problem.causal}: {busy:.3f}",
                        )
    print(f"part 1: {runs} runs, HBM busy over 1 in {over}, at most {worst:.3f}")
    for rate in (0.8e12, 0.4e12):
        arch = load_arch("h100", {"hbm.bandwidth_bytes_per_s": rate})
        fast, exact = (simulate(arch, "v3", SHAPES[0], mode=mode) for mode in ("fast", "exact"))
        print(
            f"part 2: v3 fwd 16x16 N=1024 d=128, H100 at {rate / 1e12:.1f} TB/s: exact {exact.cycles:.0f} cycles "
            f"(HBM {exact.busy['hbm']:.3f} busy), fast {fast.cycles:.0f} ({fast.busy['hbm']:.3f}), "
            f"fast / exact {fast.cycles / exact.cycles:.3f}"
        )

    arch = load_arch("h100", {"hbm.bandwidth_bytes_per_s": 0.8e12})
    planned = plan_fast(arch, schedule(arch, "v3", SHAPES[0], {}))
    plan, names = planned.plans[0], metric_names(arch)
    costs, _ = class_costs(arch, plan, arch.clock_hz, 10**9, planned.shares[0], names, arch.sms)
    served = costs[plan.kinds[0]][0].of(plan.removed[0])[TIMES + names.index("served:hbm")]
    booked = served * arch.hbm_bytes_per_cycle(arch.clock_hz) / arch.sms
    timed = planned.bytes_full[2] / len(plan.kernel.tiles)
    print(f"part 3: per further tile, booked {booked:.0f} B of HBM cost, the replay's timed bytes {timed:.0f} B")


if __name__ == "__main__":
    main()

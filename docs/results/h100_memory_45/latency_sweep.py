"""Fast and exact mode on PyTorch's QK^T kernel (standard attention, `framework=pytorch`, dropout 0.1, fp16, 1 x 4
heads, N = 512, d = 64) on the H100 file cut to 8 SMs, at HBM latencies of 480 to 800 cycles: each mode's cycles, and
fast mode's representative for two CTAs on an SM with every SM busy (its first tile's time and a further tile's,
`simgpu.fast_costs`). Run from the repository root with `SIMGPU_NATIVE=0` (it reads fast mode's internals), output
in `latency_sweep.txt` beside it: `SIMGPU_NATIVE=0 python docs/results/h100_memory_45/latency_sweep.py`."""

from __future__ import annotations

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast, run_fast
from simgpu.fast_costs import TIMES, class_costs, metric_names

PROBLEM = Problem(1, 4, 512, 64, dtype="fp16", pass_="fwd")
OPTIONS = {"framework": "pytorch", "dropout": 0.1}


def main() -> None:
    for latency in (480, 600, 695, 800):
        arch = load_arch("h100", {"sms": 8, "hbm.latency_cycles": latency})
        kernel = schedule(arch, "standard", PROBLEM, OPTIONS)[0]
        exact = Engine(arch).run([kernel])
        fast = run_fast(arch, [kernel], arch.clock_hz, 10**7)
        planned = plan_fast(arch, [kernel])
        plan = planned.plans[0]
        costs, _ = class_costs(arch, plan, arch.clock_hz, 10**7, planned.shares[0], metric_names(arch), arch.sms)
        (kind_costs,) = costs.values()
        first, further = kind_costs[2].of(plan.removed[0])[: TIMES - 1]  # two CTAs, every SM busy
        print(
            f"latency {latency}: {kernel.name}, {len(kernel.tiles)} tiles: fast {fast.cycles:.0f}, exact "
            f"{exact.cycles:.0f} cycles ({fast.cycles / exact.cycles - 1:+.4f}); two CTAs: first tile {first:.0f}, "
            f"a further one {further:.0f}, both {first + further:.0f}"
        )


if __name__ == "__main__":
    main()

"""Fast and exact mode on PyTorch's QK^T kernel (standard attention, `framework=pytorch`, dropout 0.1, fp16, 1 x 4
heads, N = 512, d = 64) on the H100 file cut to 8 SMs, at HBM latencies of 480 to 800 cycles: each mode's cycles, and
fast mode's representative for two CTAs on an SM with every SM busy (its first tile's time and a further tile's,
`simgpu.fast_costs`). Then the whole predictions the tests mark as fast mode's departures (their xfail reasons'
figures), at 480 cycles and at the file's own latency: PyTorch's standard forward and v2 with FA2's K/V layout on 8
SMs, and the default bf16 GEMM at 4096^3 on the whole chip. Run from the repository root with `SIMGPU_NATIVE=0` (it
reads fast mode's internals), output in `latency_sweep.txt` beside it:
`SIMGPU_NATIVE=0 python docs/results/h100_memory_45/latency_sweep.py`."""

from __future__ import annotations

from simgpu import GemmProblem, Problem, load_arch, simulate
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


def departures() -> None:
    for latency in (480, None):
        overrides = {} if latency is None else {"hbm.latency_cycles": latency}
        cut = load_arch("h100", {"sms": 8, **overrides})
        chip = load_arch("h100", overrides)
        cases = (
            ("PyTorch's standard forward, 8 SMs", cut, "standard", PROBLEM, OPTIONS),
            ("v2, FA2's K/V layout, 8 SMs", cut, "v2", Problem(2, 2, 1024, 64), {"kv_layout": "split"}),
            ("GEMM 4096^3 bf16", chip, "gemm", GemmProblem(4096, 4096, 4096, "bf16"), {}),
        )
        for name, arch, algo, problem, options in cases:
            fast, exact = (simulate(arch, algo, problem, options, mode=mode) for mode in ("fast", "exact"))
            print(
                f"latency {arch.hbm.latency_cycles}: {name}: fast {fast.cycles:,.0f}, exact {exact.cycles:,.0f} "
                f"cycles ({fast.cycles / exact.cycles - 1:+.4f})"
            )


if __name__ == "__main__":
    main()
    departures()

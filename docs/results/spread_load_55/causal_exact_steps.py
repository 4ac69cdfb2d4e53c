"""Exact mode's time per query step of v1's causal forward on the H200 at 16 x 16 x 1024, d = 128 (the default
configuration: 8 key blocks of 128, query steps of 16 rows; two CTAs an SM) at 1800 MHz, by key block of the outer
loop: from one query step's first MMA to the next one's in the same key block, on SM 0's two CTAs. (Exact mode
is the same before and after the fifty-fifth session's changes, which are fast mode's.)
`python docs/results/spread_load_55/causal_exact_steps.py > causal_exact_steps.txt`"""

from __future__ import annotations

import collections
import statistics

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.ops import Repeat
from simgpu.trace import Trace


def main() -> None:
    arch = load_arch("h200", {"power": None, "clock_hz": 1.8e9})
    kernels = schedule(arch, "v1", Problem(16, 16, 1024, 128, causal=True), {})
    program = list(kernels[0].roles[0].program(kernels[0].tiles[0]))
    outer = next(op for op in program if isinstance(op, Repeat))
    inner = [next(op for op in outer.body(j) if isinstance(op, Repeat)).count for j in range(outer.count)]
    print(f"key blocks {outer.count}, query steps per key block {inner}")
    trace = Trace(sms=(0,), max_spans=10**7)
    stats = Engine(arch, arch.clock_hz, trace, 10**9).run(kernels)
    print(f"exact mode {stats.cycles:,.0f} cycles")
    keys = [j for j in range(outer.count) for _ in range(inner[j])]
    for slot in sorted({s.track for s in trace.spans if s.name == "Mma"}):  # the tracks are named by CTA
        mmas = sorted((s for s in trace.spans if s.track == slot and s.name == "Mma"), key=lambda s: s.start_cycles)
        starts = [s.start_cycles for s in mmas[0::2]]  # each query step's S = Q K^T (then its P V)
        steps: dict[int, list[float]] = collections.defaultdict(list)
        for n in range(len(starts) - 1):
            if keys[n + 1] == keys[n]:
                steps[keys[n]].append(starts[n + 1] - starts[n])
        print(f"{slot}: cycles per query step by key block")
        print("  " + ", ".join(f"{j}: {statistics.mean(times):,.0f}" for j, times in sorted(steps.items())))


if __name__ == "__main__":
    main()

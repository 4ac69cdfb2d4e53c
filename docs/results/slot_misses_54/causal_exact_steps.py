"""Exact mode's time per pair of key and query blocks in causal v1 (our kernel's loop) on the H200 at 8 x 32 x 2048,
d = 64 (SM 0, its first CTA slot, at 1800 MHz), by the key block j of the outer loop: from one query block's first
MMA to the next one's in the same key block (a key block's last query block, which holds the outer loop's own work, is
left out). Key block j holds query blocks j to 31 (the mask's triangle).
`python docs/results/slot_misses_54/causal_exact_steps.py > causal_exact_steps.txt`"""

from __future__ import annotations

import collections
import statistics

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.trace import Trace

OPTIONS = {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}
BLOCKS = 32  # key (and query) blocks of 64 in 2048


def main() -> None:
    arch = load_arch("h200", {"power": None, "clock_hz": 1.8e9})
    trace = Trace(sms=(0,), max_spans=10**7)
    Engine(arch, arch.clock_hz, trace, 10**9).run(schedule(arch, "v1", Problem(8, 32, 2048, 64, causal=True), OPTIONS))
    mmas = sorted(
        (s for s in trace.spans if s.track == "CTA slot 0 warps" and s.name == "Mma"), key=lambda s: s.start_cycles
    )
    starts = [s.start_cycles for s in mmas[0::2]]  # each query block's S = Q K^T (then its P V)
    keys = [j for j in range(BLOCKS) for _ in range(BLOCKS - j)]
    steps: dict[int, list[float]] = collections.defaultdict(list)
    for n in range(len(starts) - 1):
        if keys[n + 1] == keys[n]:
            steps[keys[n]].append(starts[n + 1] - starts[n])
    for j, times in sorted(steps.items()):
        print(f"key block {j:2d}: {len(times):2d} query blocks, {statistics.mean(times):,.0f} cycles each")


if __name__ == "__main__":
    main()

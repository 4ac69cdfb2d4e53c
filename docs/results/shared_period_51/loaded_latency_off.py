"""The two cases of this folder's README, with the HBM's loaded latency as shipped and off: fast and exact mode's
cycles, the busy and alone periods of the representative's further tile (the costliest class's, per CTA count), and
for v3 the periods of exact mode's tiles on the chip (from the starts of each SM's Q copies).
`SIMGPU_NATIVE=0 python docs/results/shared_period_51/loaded_latency_off.py > .../loaded_latency_off.txt`
(pure Python: the periods are read by wrapping `simgpu.fast_costs._shared_period`)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

import numpy as np

import simgpu.fast_costs as fast_costs
from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace
from simgpu.validation import KERNEL_OPTIONS

# Our kernel's options as `simgpu validate` runs it (`cupy_kernels/v3`): its tiles, ping-pong off, the overlap on.
V3_OPTIONS = {
    **KERNEL_OPTIONS["v3"], "block_m": 128, "block_n": 128, "stages": 2, "pingpong": False, "intra_wg_overlap": True,
}  # fmt: skip
CASES = (
    ("v3", Problem(8, 33, 512, 64), V3_OPTIONS),
    ("v2", Problem(16, 16, 1024, 128, causal=True), {}),
)
LOADS_PER_TILE = 9  # v3 at N = 512: Q, then K and V of 4 key blocks


def main() -> None:
    periods: list[str] = []
    shared = fast_costs._shared_period

    def recording(busy: np.ndarray, alone: np.ndarray, served: Any, ctas: int) -> np.ndarray:
        kept = shared(busy, alone, served, ctas)
        periods.append(f"{ctas} CTAs: busy {busy[1]:.0f}, alone {alone[1]:.0f} -> {kept[1]:.0f}")
        return kept

    fast_costs._shared_period = recording
    for algo, problem, options in CASES:
        for overrides in ({}, {"hbm.loaded_latency.extra_cycles": 0}):
            arch = load_arch("h200", overrides)
            periods.clear()
            fast = simulate(arch, algo, problem, options)
            trace = Trace(sms=range(arch.sms), max_spans=5_000_000) if algo == "v3" and not overrides else None
            exact = simulate(arch, algo, problem, options, mode="exact", trace=trace)
            print(f"{algo} {problem.batch} x {problem.heads} x {problem.seqlen_q}, d = {problem.headdim},"
                  f" causal {problem.causal}, {overrides or 'as shipped'}: fast {fast.cycles:.0f}, exact"
                  f" {exact.cycles:.0f} cycles, fast / exact {fast.cycles / exact.cycles:.4f}")  # fmt: skip
            print("  further tile:", "; ".join(periods[-2:]))
            if trace is not None:
                starts: dict[str, list[float]] = defaultdict(list)
                for span in trace.spans:
                    if "producer" in span.track and span.name == "Load":
                        starts[span.process].append(span.start_cycles)
                tiles = [sorted(times)[::LOADS_PER_TILE] for times in starts.values()]
                gaps = [b - a for first in tiles for a, b in itertools.pairwise(first)]
                print(f"  exact mode's tiles on {len(tiles)} SMs: {min(gaps):.0f}-{max(gaps):.0f} cycles each,"
                      f" median {float(np.median(gaps)):.0f}")  # fmt: skip


if __name__ == "__main__":
    main()

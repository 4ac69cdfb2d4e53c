"""Wall time of `simgpu.fast_costs.class_costs` per kernel of one fast-mode prediction, and its ops
(`python docs/results/session_66/small_kernel_costs.py arch:algo:pass:seqlen`, the speed benchmark's problem: 16k
tokens, 16 heads, d = 128), the second of two predictions."""

from __future__ import annotations

import sys
import time
from typing import Any

import simgpu.fast as fast
from simgpu import Problem, load_arch, simulate

LOG: list[tuple[str, int, float, int]] = []
_COSTS = fast.class_costs


def _timed(arch: Any, plan: Any, *args: Any) -> Any:
    started = time.perf_counter()
    costs = _COSTS(arch, plan, *args)
    LOG.append((plan.kernel.name, len(plan.kernel.tiles), time.perf_counter() - started, costs[1]))
    return costs


def main(case: str) -> None:
    fast.class_costs = _timed  # type: ignore[assignment]
    arch_name, algo, pass_, seqlen = case.split(":")
    n = int(seqlen)
    arch, problem = load_arch(arch_name), Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_)
    simulate(arch, algo, problem)
    LOG.clear()
    started = time.perf_counter()
    simulate(arch, algo, problem)
    print(f"{case}: {(time.perf_counter() - started) * 1e3:.1f} ms")
    for name, tiles, seconds, ops in LOG:
        print(f"  {name:24s} tiles {tiles:6d} class_costs {seconds * 1e3:6.2f} ms, ops {ops}")


if __name__ == "__main__":
    main(sys.argv[1])

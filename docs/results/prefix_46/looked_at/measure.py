"""Small timings behind the forty-sixth session's note ("looked at and left"), run by `run.sh`:

python measure.py exact ARCH ALGO PASS        exact mode, one prediction after a warm-up (batch 4, 16 heads,
                                              N = 4096, d = 64: issue 4's CLI shape): seconds, cycles
python measure.py fast ARCH ALGO PASS N       fast mode, the median of 5 predictions after a warm-up (16k tokens,
                                              16 heads, d = 128): ms, cycles
python measure.py loop ARCH ALGO PASS N K     K fast-mode predictions, for perf
python measure.py runs ARCH ALGO PASS N       fast mode's representative engine runs per kernel, their count and
                                              time (run with SIMGPU_NATIVE=0: `Engine.run` is wrapped)
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from typing import Any

import simgpu.engine as engine
from simgpu import Problem, load_arch, simulate


def fast_problem(seqlen: int, pass_: str) -> Problem:
    return Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)


def main() -> None:
    what, arch_name, algo, pass_, *rest = sys.argv[1:]
    arch = load_arch(arch_name)
    if what == "exact":
        simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")
        started = time.perf_counter()
        result = simulate(arch, algo, Problem(4, 16, 4096, 64, pass_=pass_), mode="exact")
        print(f"{time.perf_counter() - started:.2f} s, {result.cycles:.0f} cycles")
        return
    problem = fast_problem(int(rest[0]), pass_)
    if what == "loop":
        for _ in range(int(rest[1])):
            simulate(arch, algo, problem, mode="fast")
        return
    if what == "fast":
        simulate(arch, algo, problem, mode="fast")
        times = []
        for _ in range(5):
            started = time.perf_counter()
            result = simulate(arch, algo, problem, mode="fast")
            times.append(time.perf_counter() - started)
        print(f"{1000 * statistics.median(times):.1f} ms, {result.cycles:.0f} cycles")
        return
    counts: Counter[str] = Counter()
    seconds: dict[str, float] = {}
    run = engine.Engine.run

    def timed(self: engine.Engine, kernels: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        stats = run(self, kernels, *args, **kwargs)
        name = " ".join(kernel.name for kernel in kernels)
        counts[name] += 1
        seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started
        return stats

    engine.Engine.run = timed  # type: ignore[method-assign]
    started = time.perf_counter()
    simulate(arch, algo, problem, mode="fast")
    total = time.perf_counter() - started
    for name in counts:
        print(f"{name}: {counts[name]} runs, {1000 * seconds[name]:.1f} ms")
    print(f"the prediction: {1000 * total:.1f} ms (sources)")


if __name__ == "__main__":
    main()

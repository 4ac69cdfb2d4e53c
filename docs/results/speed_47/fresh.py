"""The B200's standard attention at 16k tokens timed as `benchmarks.simspeed` times it (`measure`: the median of 5
predictions after a warm-up), in a fresh process; then one process running every case of the benchmark (fast mode,
and exact mode where simspeed runs it), timing the forward (the median of 3) after each arch and algorithm, with
the process's resident memory. Run from the repository root: `python docs/results/speed_47/fresh.py`."""

from __future__ import annotations

import statistics
import time

from benchmarks.simspeed import ALGOS, ARCHS, PASSES, SEQLENS, measure, problem_for
from simgpu import load_arch, simulate


def resident_mib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmRSS"))


def forward_ms() -> float:
    arch, problem = load_arch("b200"), problem_for(16384, "fwd")
    times = []
    for _ in range(3):
        started = time.perf_counter()
        simulate(arch, "standard", problem, mode="fast")
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times)


def main() -> None:
    for pass_ in ("fwd", "bwd"):
        row = measure("b200", "standard", pass_, 16384, quick=False)
        print(f"fresh process, b200 standard {pass_} 16k: {1000 * float(row['fast_median_s']):.1f} ms")  # type: ignore[arg-type]
    print(f"one process, at its start: forward {forward_ms():.1f} ms, {resident_mib()} MiB")
    for arch in ARCHS:
        for algo in ALGOS:
            for pass_ in PASSES:
                for seqlen in SEQLENS:
                    if "error" in measure(arch, algo, pass_, seqlen, quick=False):
                        break
            print(f"after {arch} {algo}: forward {forward_ms():.1f} ms, {resident_mib()} MiB", flush=True)


if __name__ == "__main__":
    main()

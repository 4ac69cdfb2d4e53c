"""Fast mode's re-run at the power-limited clock (`simgpu.api.simulate`): how much it moves a run's cycles, over a
grid of tensor-heavy cases on the H100 and H200 files (v3 with its ablation switches, v2, standard attention, the
GEMM; d = 64-256, N = 512-32k at 16k tokens, causal or not, bf16 and fp8, forward and backward). A fast-mode rule
that took the first run's cycles at the lowered clock (no re-run) would be off by this much.
Then the speed benchmark's shapes that re-run at all, and how far the law lowers their clock.
`python docs/results/prefix_checks_50/not_kept/rerun_grid.py > docs/results/prefix_checks_50/not_kept/rerun_grid.txt`
"""

from __future__ import annotations

import itertools
import statistics
from typing import Any

import simgpu.api as api
from simgpu import Problem, simulate
from simgpu.errors import SimgpuError
from simgpu.problem import GemmProblem

CASES = (("h100", "v3"), ("h200", "v3"), ("h100", "v2"), ("h200", "v2"), ("h200", "standard"), ("h100", "gemm"))
V3_OPTIONS = (
    {},
    {"pingpong": False},
    {"intra_wg_overlap": False},
    {"warp_specialization": False},
    {"persistent": True},
)


def main() -> None:
    run = api._run
    calls: list[tuple[float, Any]] = []

    def recorded(*args: Any, **kwargs: Any) -> Any:
        stats = run(*args, **kwargs)
        calls.append((args[2], stats))
        return stats

    api._run = recorded  # type: ignore[assignment]
    rows = []
    total = 0
    for arch, algo in CASES:
        options = V3_OPTIONS if algo == "v3" else ({},)
        grid = itertools.product(options, (64, 128, 256), (512, 2048, 8192, 32768), (False, True), ("bf16", "fp8"))
        for option, d, n, causal, dtype in grid:
            for pass_ in ("fwd", "bwd"):
                if algo == "gemm" and (causal or pass_ == "bwd" or d != 128):
                    continue
                calls.clear()
                problem: Any = (
                    GemmProblem(n, n, n, dtype=dtype)
                    if algo == "gemm"
                    else Problem(max(1, 16384 // n), 16, n, d, causal=causal, dtype=dtype, pass_=pass_)
                )
                try:
                    simulate(arch, algo, problem, option)
                except SimgpuError:
                    continue
                total += 1
                if len(calls) == 2:
                    (first_hz, first), (second_hz, second) = calls
                    change = second.cycles / first.cycles - 1
                    rows.append(
                        (
                            change,
                            first_hz,
                            second_hz,
                            first.tensor_activity,
                            arch,
                            algo,
                            pass_,
                            n,
                            d,
                            causal,
                            dtype,
                            option,
                        )
                    )
    print(f"{total} cases, {len(rows)} re-run at the power-limited clock; the largest changes of cycles:")
    rows.sort(key=lambda row: -abs(row[0]))
    for change, first_hz, second_hz, activity, *case in rows[:12]:
        print(f"{change:+.2e}  {first_hz / 1e6:.0f} -> {second_hz / 1e6:.0f} MHz  u={activity:.3f}", *case)
    print(f"median |change| {statistics.median(abs(row[0]) for row in rows):.2e}")
    print("the speed benchmark's shapes (d = 128, 16k tokens) that re-run, with the clock's drop:")
    for arch in ("h100", "h200"):
        for algo in ("standard", "v1", "v2", "v3"):
            for pass_ in ("fwd", "bwd"):
                for seqlen in (1024, 4096, 16384, 65536, 131072):
                    calls.clear()
                    try:
                        simulate(arch, algo, Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_))
                    except SimgpuError:  # standard attention past 16k: out of memory
                        continue
                    if len(calls) == 2:
                        (first_hz, _), (second_hz, _) = calls
                        drop = 1 - second_hz / first_hz
                        clocks = f"{first_hz / 1e6:.0f} -> {second_hz / 1e6:.0f} MHz"
                        print(f"  {arch} {algo} {pass_} {seqlen}: {clocks} ({drop:.1%})")


if __name__ == "__main__":
    main()

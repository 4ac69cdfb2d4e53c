"""Why fast mode is 3.9% under exact mode on the default Hopper GEMM (4096^3 bf16 on the H100; the strict xfail
`test_fast_mode_predicts_the_default_hopper_gemm`): both modes' cycles, fast mode's cost table, the tensor core's
idle gaps on five SMs of an exact run (trace), and one SM running the whole (unfolded) tile once and twice in a
row with all of the chip's bandwidth and with an equal share, as fast mode's representative does.

`PYTHONPATH=. python docs/results/gemm_fast_gap_30/gap.py > docs/results/gemm_fast_gap_30/gap.txt`
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import simgpu.fast as fast
from simgpu import load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.problem import GemmProblem
from simgpu.trace import Trace

arch = load_arch("h100")
problem = GemmProblem(4096, 4096, 4096, "bf16")
schedule_of = fast.shared_schedule


def logged(sms: int, fit: int, times: np.ndarray, classes: np.ndarray, sharers: int | None = None) -> float:
    print("fast mode's times (first, further, tail) with every SM busy / alone:", times.round(0).tolist())
    return schedule_of(sms, fit, times, classes, sharers)


fast.shared_schedule = logged  # type: ignore[assignment]
quick = simulate(arch, "gemm", problem)
fast.shared_schedule = schedule_of
trace = Trace(sms=(0, 34, 35, 60, 131), max_spans=2_000_000)
exact = simulate(arch, "gemm", problem, mode="exact", trace=trace)
print(f"fast {quick.cycles:.0f} exact {exact.cycles:.0f} fast/exact {quick.cycles / exact.cycles:.4f}")
print("(the first table is at the arch's clock; the run is re-timed at the power-limited clock, the second)")
for sm in ("SM 0", "SM 34", "SM 35", "SM 60", "SM 131"):
    spans = sorted((s.start_cycles, s.end_cycles) for s in trace.spans if s.process == sm and s.track == "unit tensor")
    gaps = [(n, round(spans[n + 1][0] - spans[n][1])) for n in range(len(spans) - 1)]
    idle = [(n, gap) for n, gap in gaps if gap > 1]
    print(f"{sm}: {len(spans)} MMAs of {spans[0][1] - spans[0][0]:.0f} cycles, first at {spans[0][0]:.0f}, last ends")
    print(f"  {spans[-1][1]:.0f}; idle gaps between them (MMA index, cycles): {idle}")
    per_tile = [sum(1 for n, _ in idle if tile * 128 <= n < (tile + 1) * 128) for tile in range(len(spans) // 128)]
    print(f"  idle gaps per tile (128 MMAs each): {per_tile}, idle cycles {sum(gap for _, gap in idle)}")
(kernel,) = schedule(arch, "gemm", problem, {})
planned = fast.plan_fast(arch, [kernel])
for rounds in (1, 2):
    for share in (1.0, 1 / arch.sms):
        one = Trace(sms=(0,), max_spans=10**6)
        tiles = replace(kernel, tiles=[kernel.tiles[n] for n in range(rounds)])
        engine = Engine(
            arch,
            arch.clock_hz,
            one,
            10**8,
            sms=1,
            max_ctas_per_sm=1,
            bandwidth_share=share,
            traffic_share=share,
            miss_shares=planned.shares[0],
        )
        run = engine.run([tiles])
        spans = sorted((s.start_cycles, s.end_cycles) for s in one.spans if s.track == "unit tensor")
        gaps = [spans[n + 1][0] - spans[n][1] for n in range(len(spans) - 1)]
        idle = [round(gap) for gap in gaps if gap > 1]
        print(
            f"one SM, {rounds} whole tile(s) in a row, bandwidth share {share:.4f}: {run.cycles:.0f} cycles,"
            f" {len(idle)} idle gaps, {sum(idle)} cycles ({idle[:3]} ... {idle[-3:]})"
        )

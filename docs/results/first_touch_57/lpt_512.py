"""The case that led to per-kind miss shares: v3's persistent causal forward on the whole H100 at 16k tokens, N = 512
(32 x 2048/d heads; 4 query blocks a head, FA3's LPT order in sections of 128 heads). Exact mode's HBM busy fraction
per 10,000 cycles (its first touches come in bursts: each section's longest query blocks read the heads' K and V,
the shorter blocks that follow hit), then fast over exact mode's cycles.
`python docs/results/first_touch_57/lpt_512.py > docs/results/first_touch_57/lpt_512.txt`"""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace, busy_per_window

WINDOW_CYCLES = 10_000


def hbm_profile(arch_name: str, problem: Problem) -> tuple[float, list[float]]:
    """Exact mode's cycles and its HBM's busy fraction per `WINDOW_CYCLES`."""
    trace = Trace(sms=(), max_spans=10_000_000)
    result = simulate(load_arch(arch_name), "v3", problem, mode="exact", trace=trace)
    return result.cycles, busy_per_window(trace.spans, "unit hbm", WINDOW_CYCLES, result.cycles)


def main() -> None:
    for headdim in (128, 64):
        problem = Problem(16384 // 512, 2048 // headdim, 512, headdim, causal=True)
        cycles, busy = hbm_profile("h100", problem)
        fast = simulate(load_arch("h100"), "v3", problem)
        print(f"d = {headdim}: exact {cycles:,.0f} cycles, HBM busy per {WINDOW_CYCLES:,} cycles:")
        print("  " + " ".join(f"{b:.2f}" for b in busy))
        print(f"  fast {fast.cycles:,.0f} cycles, fast over exact {fast.cycles / cycles:.4f}")


if __name__ == "__main__":
    main()

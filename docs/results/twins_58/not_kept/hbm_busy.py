"""Exact mode's HBM busy fraction per 500 cycles for `shares.py`'s case, in four stretches of 60 windows (from cycle 0,
100,000, 400,000 and 700,000): bursts in lockstep in part of the run, spread in the rest.
`python docs/results/twins_58/not_kept/hbm_busy.py > docs/results/twins_58/not_kept/hbm_busy.txt`"""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace, busy_per_window

WINDOW_CYCLES = 500


def main() -> None:
    trace = Trace(sms=(), max_spans=20_000_000)
    result = simulate(
        load_arch("h100"), "v1", Problem(32, 32, 512, 64), options={"splits": 1}, mode="exact", trace=trace
    )
    busy = busy_per_window(trace.spans, "unit hbm", WINDOW_CYCLES, result.cycles)
    print(f"exact {result.cycles:,.0f} cycles, HBM busy {result.busy['hbm']:.3f}; per {WINDOW_CYCLES} cycles:")
    for first in (0, 100_000, 400_000, 700_000):
        window = first // WINDOW_CYCLES
        print(f"from {first:,}: " + " ".join(f"{b:.2f}" for b in busy[window : window + 60]))


if __name__ == "__main__":
    main()

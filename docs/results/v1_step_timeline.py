"""One middle query step of FA1's released forward as the model runs it, against the chip's step (forty-fifth
session). The H100 file at the run's counted clock (1828.66 MHz, power model off), d = 128, N = 1024, batch 16, 16
heads, one split (`validation/h200/fa1_release/fa1_release_h100.csv`: 1.437 ms measured), exact mode with a trace of
SM 0: the ops of its first CTA slot over three steps from the middle of the run (a later key block: the o_tmp load
and its wait), the step's period, and each unit's busy share of the run. The chip's step, from its time: 256 CTAs,
two per SM, 64 query steps of 16 rows in each of 8 key blocks, so 992.97 steps per SM and each CTA's step lasts
2 x time x clock / 992.97 cycles. Run from the repository root: `python docs/results/v1_step_timeline.py >
docs/results/v1_step_timeline.txt` (about 5 s)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace

CLOCK_HZ = 1828.66e6
MEASURED_S = 1.437056e-3
STEPS_PER_SM = 16 * 16 * 64 * 8 / 132


def main() -> None:
    arch = load_arch("h100", {"clock_hz": CLOCK_HZ, "power": None})
    trace = Trace(sms=(0,), max_spans=5_000_000)
    result = simulate(arch, "v1", Problem(16, 16, 1024, 128), {"splits": 1}, mode="exact", trace=trace)
    print(f"model: {result.time_s * 1e3:.3f} ms, bound by {result.bottleneck}; a CTA's step on average "
          f"{2 * result.cycles / STEPS_PER_SM:.0f} cycles")  # fmt: skip
    chip_step = 2 * MEASURED_S * CLOCK_HZ / STEPS_PER_SM
    print(f"chip: {MEASURED_S * 1e3:.3f} ms; a CTA's step on average {chip_step:.0f} cycles")
    spans = sorted(
        (s for s in trace.spans if s.process == "SM 0" and s.track == "CTA slot 0 warps"), key=lambda s: s.start_cycles
    )
    middle = len(spans) // 2
    starts = [n for n in range(middle, len(spans)) if spans[n].name == "Mma" and spans[n - 1].name == "Smem"]
    first, last = starts[0], starts[3]
    print(f"three steps of CTA slot 0 from the middle of the run (start, duration, op), period "
          f"{(spans[last].start_cycles - spans[first].start_cycles) / 3:.0f} cycles:")  # fmt: skip
    for span in spans[first:last]:
        print(f"  {span.start_cycles:10.0f} {span.end_cycles - span.start_cycles:6.0f}  {span.name}")
    busy: dict[str, float] = {}
    for span in trace.spans:
        if span.process == "SM 0" and span.track.startswith("unit "):
            busy[span.track[5:]] = busy.get(span.track[5:], 0.0) + span.end_cycles - span.start_cycles
    print("SM 0's units busy: " + ", ".join(f"{name} {value / result.cycles:.2f}" for name, value in busy.items()))


if __name__ == "__main__":
    main()

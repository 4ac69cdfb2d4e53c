"""The model's consumer timeline of our FA3 forward kernel on one SM: each consumer's MMA and elementwise spans over
two key tiles of the steady state, and the tensor cores' spans, in cycles from consumer 0's 31st MMA. Shape as
`validation/probes/v3_phases.py` (B = 4, H = 2048 / d, N = 4096, bf16, not causal, 128 x 128 tiles), exact mode,
SM 3 traced, the H200 without its power model. The model variant is whatever the environment selects (the patches
here, SIMGPU_NATIVE=0). Read against the chip's phases (validation/h200/v3_phases_summary_h200.csv).
Run from the repository root: `python docs/results/hold_37/consumer_timeline.py D PINGPONG(T/F) [OVERLAP(T/F)]`
(overlap on by default).
"""

from __future__ import annotations

import sys
from pathlib import Path

from simgpu.trace import Span

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "basins_36"))
from offsets_delay import traced_run  # a sibling folder's script, not a package


def _span(span: Span, zero: float) -> str:
    return (
        f"{span.start_cycles - zero:6.0f} .. {span.end_cycles - zero:6.0f} ({span.end_cycles - span.start_cycles:4.0f})"
    )


PERIOD_CYCLES = 2400  # about one key tile: consumers' spans over two of them, the tensor cores' over one


def main(d: int, pingpong: bool, overlap: bool) -> None:
    trace = traced_run(d, pingpong, overlap, 0.0)
    zero = 0.0
    for consumer in ("consumer0", "consumer1"):
        track = min(s.track for s in trace.spans if s.track.endswith(consumer))
        spans = sorted((s for s in trace.spans if s.track == track), key=lambda s: s.start_cycles)
        if consumer == "consumer0":
            zero = [s for s in spans if s.name == "Mma"][30].start_cycles
        print(consumer)
        for s in spans:
            if zero <= s.start_cycles < zero + 2 * PERIOD_CYCLES:
                print(f"  {s.name:8} {_span(s, zero)}")
    print("tensor cores")
    for s in sorted((s for s in trace.spans if s.track == "unit tensor"), key=lambda s: s.start_cycles):
        if zero <= s.start_cycles < zero + PERIOD_CYCLES:
            print(f"  {_span(s, zero)}")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2] == "T", len(sys.argv) < 4 or sys.argv[3] == "T")

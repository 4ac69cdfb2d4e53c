"""The causal grid's H200 v1 forward at 16 x 32 x 1024, d = 64 (two CTAs an SM, 512 CTAs, 1.9 waves): fast mode's
first and further tile with two CTAs busy (the list schedule's input), against exact mode's tiles per wave (their
spans from the trace of every SM), at the clock fast mode runs at.
`python docs/results/slot_misses_54/causal_tiles.py > causal_tiles.txt`"""

from __future__ import annotations

from typing import Any

import numpy as np

import simgpu.fast as fast
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast_schedule import shared_schedule
from simgpu.trace import Trace

PROBLEM = Problem(16, 32, 1024, 64, causal=True)


def main() -> None:
    seen: list[Any] = []

    def kept(sms: int, slots: int, times: Any, tile_class: Any, sharers: int) -> float:
        seen.append(times.copy())
        return shared_schedule(sms, slots, times, tile_class, sharers)

    fast.__dict__["shared_schedule"] = kept  # `simgpu.fast` is not compiled: its name can be replaced
    result = simulate("h200", "v1", PROBLEM)
    fast.__dict__["shared_schedule"] = shared_schedule
    first, further = (float(value) for value in seen[-1][0, 1, 0, :2])
    print(f"fast mode: {result.cycles:,.0f} cycles; two CTAs busy: first tile {first:,.0f}, further {further:,.0f}")
    arch = load_arch("h200", {"power": None, "clock_hz": result.clock_hz})
    trace = Trace(sms=range(arch.sms), max_spans=10**8)
    exact = Engine(arch, arch.clock_hz, trace, 10**9).run(schedule(arch, "v1", PROBLEM, {}))
    spans: dict[tuple[str, str], list[float]] = {}
    for span in trace.spans:
        if span.track.startswith("CTA"):
            seen_span = spans.setdefault((span.process, span.track), [span.start_cycles, span.end_cycles])
            seen_span[0], seen_span[1] = min(seen_span[0], span.start_cycles), max(seen_span[1], span.end_cycles)
    tiles = np.array(sorted((start, end - start) for start, end in spans.values()))
    print(f"exact mode: {exact.cycles:,.0f} cycles")
    slots = 2 * arch.sms
    for wave in range(0, len(tiles), slots):
        lengths = tiles[wave : wave + slots, 1]
        print(
            f"  tiles {wave}-{wave + len(lengths) - 1}: median {np.median(lengths):,.0f} cycles, tenth percentile "
            f"{np.percentile(lengths, 10):,.0f}, ninetieth {np.percentile(lengths, 90):,.0f}"
        )


if __name__ == "__main__":
    main()

"""Where the default GEMM's exact mode spends the time that fast mode does not see: the H100 at 4096^3 (512 C tiles
on 132 SMs), run at the clock fast mode settles at: each SM's last MMA and its CTA's tiles, and the first tile's
span against a further tile's. `python docs/results/saturated_53/gemm_sm_spread.py`"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter

from simgpu import GemmProblem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.trace import Trace

CLOCK_HZ = 1.703e9  # exact mode's power-limited clock at this shape (`gemm_fast_vs_exact.csv`)


def main() -> None:
    arch = load_arch("h100", {"power": None, "clock_hz": CLOCK_HZ})
    kernels = schedule(arch, "gemm", GemmProblem(4096, 4096, 4096, "bf16"), {})
    trace = Trace(sms=range(arch.sms), max_spans=10**7)
    stats = Engine(arch, arch.clock_hz, trace, 10**9).run(kernels)
    last_mma: dict[str, float] = {}
    stores: dict[str, list[float]] = {}
    for span in trace.spans:
        if not span.track.startswith("CTA"):
            continue
        if span.name == "Mma":
            last_mma[span.process] = max(last_mma.get(span.process, 0.0), span.end_cycles)
        elif span.name == "Store" and span.track.endswith("consumer0"):
            stores.setdefault(span.process, []).append(span.start_cycles)
    tiles = Counter(len(starts) for starts in stores.values())
    ends = sorted(last_mma.values())
    print(f"kernel {stats.cycles:,.0f} cycles at {CLOCK_HZ / 1e6:.0f} MHz; SMs by C tiles: {dict(tiles)}")
    print(f"last MMA per SM: min {ends[0]:,.0f}, median {statistics.median(ends):,.0f}, max {ends[-1]:,.0f}")
    late = sorted(sm for sm, end in last_mma.items() if end > statistics.median(ends) + 4000)
    print(f"SMs ending over 4,000 cycles after the median: {len(late)} ({', '.join(late[:6])}, ...)")
    four = [sorted(starts) for starts in stores.values() if len(starts) == 4]
    first = statistics.median(starts[0] for starts in four)
    further = statistics.median(b - a for starts in four for a, b in itertools.pairwise(starts))
    print(f"SMs of 4 tiles, median: first tile's store at {first:,.0f}, a further tile {further:,.0f} cycles")


if __name__ == "__main__":
    main()

"""Where fast mode's whole-chip flash cases fall short: the spread of exact mode's SM end times.

For the whole-chip cases furthest from exact mode after the thirty-fourth session (`fast_vs_exact_whole.csv`), exact
mode runs with every SM traced and prints the earliest, median and latest time an SM finishes its last tile, beside
fast mode's kernel time; then the same with L2 switched off (`l2.capacity_bytes=0`: every access misses, so no tile
finds another's K and V in L2). Fast mode times a class's tiles alike, each with the kernel's average share of misses
(`simgpu.units.fluid_l2`); in exact mode the first tile to read a K/V block misses and the tiles after it hit. Where
fast mode comes out near exact mode's last SM with L2 off and short of it with L2 on, the SMs that took the misses
set the kernel's end. Run from the repository root:
`python docs/results/handover_34/sm_spread.py > docs/results/handover_34/sm_spread.txt`.
"""

from __future__ import annotations

import statistics

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.arch import Arch
from simgpu.engine import Engine
from simgpu.trace import Trace

CASES = (("b200", "v4", (4, 16, 512, 64)), ("h200", "v3", (2, 16, 1024, 128)), ("h100", "v3", (2, 16, 1024, 128)))


def sm_spans(
    arch: Arch, algo: str, problem: Problem, options: dict[str, object]
) -> tuple[dict[int, tuple[float, float]], float]:
    """Exact mode with every SM traced: per SM that ran a tile, its first span's start and last span's end; and the
    run's cycles."""
    trace = Trace(sms=range(arch.sms), max_spans=5_000_000)
    cycles = Engine(arch, trace=trace).run(list(schedule(arch, algo, problem, options))).cycles
    spans: dict[int, tuple[float, float]] = {}
    for span in trace.spans:
        if span.process.startswith("SM "):  # not the chip's HBM and L2
            sm = int(span.process.split()[1])
            start, end = spans.get(sm, (span.start_cycles, span.end_cycles))
            spans[sm] = (min(start, span.start_cycles), max(end, span.end_cycles))
    return spans, cycles


def main() -> None:
    for arch_name, algo, shape in CASES:
        problem = Problem(*shape)
        for label, overrides in (("L2 on", {}), ("L2 off", {"l2.capacity_bytes": 0})):
            fast = simulate(load_arch(arch_name, overrides), algo, problem)
            ends = sorted(end for _, end in sm_spans(load_arch(arch_name, overrides), algo, problem, {})[0].values())
            print(
                f"{arch_name} {algo} fwd {shape} {label}: fast {fast.kernel_cycles[0]:.0f}; exact SM ends "
                f"{ends[0]:.0f} / {statistics.median(ends):.0f} / {ends[-1]:.0f} (first / median / last, "
                f"{len(ends)} SMs); fast over exact {fast.kernel_cycles[0] / ends[-1]:.3f}"
            )


if __name__ == "__main__":
    main()

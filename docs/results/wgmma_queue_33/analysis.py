"""What the thirty-third session's two device probes show (no GPU needed; reads the committed raw rows).

1. `validation/h200/wgmma_queue/` (`validation/probes/wgmma_queue.py`): when each wgmma instruction of one or two
   consumer warpgroups is let go. Lone: the spacing of the first eight, and how long after S's instruction k ends
   (S's first instruction taken to start when it is let go, 64 cycles each) P V's instruction k is let go. Two:
   the order the tensor cores took them in, and each warpgroup's release (its last instruction let go) for each
   start offset.
2. `validation/h200/v3_offset_trace/` (`validation/probes/v3_offset_trace.py`): our FA3 kernel's two consumers,
   consumer 1 held back `delay` cycles at the start; per variant and delay the period per key tile of the traced CTA
   (tiles 4 .. 60) and the offset between the consumers (consumer 1's turn stamp minus consumer 0's) at tiles 8 .. 60.
3. `validation/h200/softmax_offset/` (`validation/probes/softmax_offset.py`): two warpgroups looping over the
   consumer's softmax, the second `delay` cycles late, no barrier: each one's period over iterations 8 .. 40 and the
   offset between their iteration starts (the first iterations are slow, instruction fetch).
4. `validation/h200/v3_phase_offset_h200.csv` (the twenty-fifth session's whole-kernel timings with consumer 1 held
   back): the ping-pong gain with the overlap on (the wave's cycles without ping-pong over those with it, delay 0
   for ping-pong) per start delay, and the period per key tile without ping-pong (N = 2048 and 8192).
5. `validation/h200/wgmma_queue/wgmma_queue_softmax_h200.csv` (`wgmma_queue.py --softmax`): the first warpgroup's
   hand-ins while the second runs 0, 1 or 2 of the consumer's softmaxes instead of spinning: spacing of its first
   eight and its release, against the lone run.
Run from the repository root:
`python docs/results/wgmma_queue_33/analysis.py > docs/results/wgmma_queue_33/analysis.txt`.
"""

from __future__ import annotations

import csv
import itertools
import statistics
from collections import defaultdict
from pathlib import Path

QUEUE = Path("validation/h200/wgmma_queue/wgmma_queue_h200.csv")
TRACE = Path("validation/h200/v3_offset_trace/v3_offset_trace_h200.csv")
SOFTMAX = Path("validation/h200/softmax_offset/softmax_offset_h200.csv")
PHASE_OFFSET = Path("validation/h200/v3_phase_offset_h200.csv")
BESIDE = Path("validation/h200/wgmma_queue/wgmma_queue_softmax_h200.csv")


def queue_stamps(path: Path) -> dict[tuple[int, int, int, int], dict[str, float]]:
    """A wgmma_queue CSV's medians by (headdim, warpgroups, delay, warpgroup), then by stamp."""
    stamps: dict[tuple[int, int, int, int], dict[str, float]] = defaultdict(dict)
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            key = (int(row["headdim"]), int(row["warpgroups"]), int(row["delay_cycles"]), int(row["warpgroup"]))
            stamps[key][row["stamp"]] = float(row["cycles"])
    return stamps


def queue() -> None:
    stamps = queue_stamps(QUEUE)
    spacings: list[float] = []
    for d in (64, 128):
        lone = stamps[(d, 1, 0, 0)]
        order = [name for name in lone if name not in ("start", "s_done", "pv_done")]
        times = [lone[name] for name in order]
        first = times[:8]
        spacings += [b - a for a, b in itertools.pairwise(first)]
        # Tensor work of each instruction at 4096 FLOP/clk/SM: S's m64n128k16 64 cycles, P V's m64n{d}k16 d / 2.
        cycles = [64.0 if name.startswith("s") else d / 2 for name in order]
        ends = [times[0] + sum(cycles[: i + 1]) for i in range(len(order))]
        gaps = [times[i + 8] - ends[i] for i in range(len(order) - 8)]
        print(f"d={d} lone: let go at {' '.join(f'{t:.0f}' for t in times)}; released {times[-1]:.0f} "
              f"({times[-1] - times[0]:.0f} after the first); instruction i + 8 let go after instruction i's work "
              f"ends (the first taken to start when let go): {[round(g) for g in gaps]}")  # fmt: skip
    print(f"lone, spacing of the first eight instructions: median {statistics.median(spacings):.1f} cycles "
          f"(min {min(spacings):.0f}, max {max(spacings):.0f})")  # fmt: skip
    for d in (64, 128):
        for delay in sorted({k[2] for k in stamps if k[0] == d and k[1] == 2}):
            a, b = stamps[(d, 2, delay, 0)], stamps[(d, 2, delay, 1)]
            names = [n for n in a if n not in ("start", "s_done", "pv_done")]
            events = sorted([(a[n], 0) for n in names] + [(b[n], 1) for n in names])
            first8 = events[:8]
            takes = "".join(str(wg) for _, wg in events)
            start = b["start"]
            release = (a[names[-1]], b[names[-1]])
            lead = [a[n] for n in names[:4]]
            spacing = statistics.median(q - p for p, q in itertools.pairwise(lead))
            print(f"d={d:3} delay={delay:3}: warpgroup 0's first four go in from {lead[0]:4.0f}, "
                  f"{spacing:4.0f} apart (median)")  # fmt: skip
            print(f"d={d:3} delay={delay:3}: warpgroup 1 starts {start:5.0f}; of the first eight, warpgroup 0 has "
                  f"{sum(1 for _, wg in first8 if wg == 0)}; "
                  f"first eight in {first8[-1][0] - first8[0][0]:4.0f} cycles; "
                  f"released {release[0]:5.0f} / {release[1]:5.0f} (offset {release[1] - release[0]:+5.0f}); "
                  f"order {takes}")  # fmt: skip


def trace() -> None:
    turns: dict[tuple[int, str, str, int], dict[tuple[int, int], float]] = defaultdict(dict)
    with TRACE.open(newline="") as handle:
        for row in csv.DictReader(handle):
            key = (int(row["headdim"]), row["pingpong"], row["intra_wg_overlap"], int(row["delay"]))
            turns[key][(int(row["consumer"]), int(row["tile"]))] = float(row["turn"])
    for key in sorted(turns):
        t = turns[key]
        offsets = [t[(1, j)] - t[(0, j)] for j in range(8, 61)]
        period = (t[(0, 60)] - t[(0, 4)]) / 56
        d, pingpong, overlap, delay = key
        print(f"d={d:3} pingpong={pingpong:5} intra_wg_overlap={overlap:5} delay={delay:4}: period {period:5.0f}, "
              f"offset median {statistics.median(offsets):+6.0f} "
              f"(min {min(offsets):+6.0f}, max {max(offsets):+6.0f})")  # fmt: skip


def softmax() -> None:
    stamps: dict[int, dict[tuple[int, int], float]] = defaultdict(dict)
    with SOFTMAX.open(newline="") as handle:
        for row in csv.DictReader(handle):
            stamps[int(row["delay"])][(int(row["warpgroup"]), int(row["iteration"]))] = float(row["cycles"])
    for delay, t in sorted(stamps.items()):
        periods = [(t[(wg, 40)] - t[(wg, 8)]) / 32 for wg in (0, 1)]
        offsets = [t[(1, i)] - t[(0, i)] for i in range(8, 41)]
        first = [t[(wg, 1)] - t[(wg, 0)] for wg in (0, 1)]
        print(f"softmax pair, delay {delay:4}: first iteration {first[0]:5.0f} / {first[1]:5.0f} cycles, then period "
              f"{periods[0]:5.0f} / {periods[1]:5.0f}; offset median {statistics.median(offsets):+6.0f} "
              f"(min {min(offsets):+6.0f}, max {max(offsets):+6.0f})")  # fmt: skip


def phase_offset() -> None:
    waves: dict[tuple[int, int, str, int], float] = {}
    with PHASE_OFFSET.open(newline="") as handle:
        for row in csv.DictReader(handle):
            if row["intra_wg_overlap"] == "True":
                key = (int(row["headdim"]), int(row["seqlen"]), row["pingpong"], int(row["delay"]))
                waves[key] = float(row["wave_cycles"])
    for d in (64, 128):
        for delay in sorted({k[3] for k in waves if k[0] == d}):
            gains = [waves[(d, n, "False", delay)] / waves[(d, n, "True", 0)] - 1 for n in (2048, 8192)]
            period = (waves[(d, 8192, "False", delay)] - waves[(d, 2048, "False", delay)]) / (64 - 16)
            print(f"whole kernel d={d:3} delay={delay:4}: ping-pong gain {gains[0]:+.1%} (N=2048), {gains[1]:+.1%} "
                  f"(N=8192); period without ping-pong {period:5.0f}")  # fmt: skip


def beside() -> None:
    stamps = queue_stamps(BESIDE)
    for d in (64, 128):
        lone = stamps[(d, 1, 0, 0)]
        names = [name for name in lone if name not in ("start", "s_done", "pv_done")]
        for softmaxes in (0, 1, 2):
            first = stamps[(d, 2, softmaxes, 0)]
            times = [first[name] for name in names[:8]]
            gaps = [round(b - a) for a, b in itertools.pairwise(times)]
            print(f"d={d:3}, {softmaxes} softmax(es) beside: warpgroup 0's first eight {gaps} apart (median "
                  f"{statistics.median(gaps):.0f}), released {first[names[-1]]:4.0f} "
                  f"(alone {lone[names[-1]]:4.0f})")  # fmt: skip


queue()
trace()
softmax()
phase_offset()
beside()

"""The model's side of `validation/probes/softmax_offset.py --passes`: two warpgroups on one SM of the H200 model
(exact mode), warpgroup 0 looping over the consumer's whole softmax (row-max pass, then the exp pass with P's
packing and the probe's `s_acc *= 8`), warpgroup 1 starting `delay` cycles later and looping over the whole
softmax (part 0), the exp pass with the packing (1), the row-max pass (2) or nothing (3), as the probe's parts.
Prints per part and delay, against the probe's rows (median over the launches; iterations 8-47): each warpgroup's
cycles per iteration, warpgroup 0's row-max pass and the rest of its iteration (exp pass, packing, FMUL: the
model's exp op holds the packing), and the offset between the two's starts of iteration 24.
The probe's stamps slow its loop (warpgroup 0 alone: ~1107 cycles per iteration against 771 without them), so the
model's lone softmax (868) is compared with the uninstrumented loop's elsewhere (`docs/results/checks_2026-12-02m.py`);
what the rows test here is how the period and the offset depend on the start (the offset is shown for part 0 only,
where both loop over the same body). Run from the repository root:
`python docs/results/softmax_passes_34/model_passes.py [CSV] > docs/results/softmax_passes_34/model_passes.txt`
(default CSV: `validation/h200/softmax_offset/softmax_offset_passes_h200.csv`).
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

from algorithms._schedule.softmax import online_softmax
from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import CtaResources, Kernel, Role
from simgpu.ops import Chain, Delay, Op, Repeat, Vector
from simgpu.trace import Trace

ITERS, SETTLED, MIDDLE = 48, 8, 24  # as the probe: 48 iterations, from iteration 8 on, the offset at iteration 24
ROW_MAX, QUAD_MAX, EXPS = online_softmax(64, 128, 64, masked=False, rescale_o=False)
NEXT_S = Vector(fma=64 * 128, chain=Chain(fma=1))  # the probe's s_acc *= 8
MAX_PASS: tuple[Op, ...] = (ROW_MAX, QUAD_MAX)
EXP_PASS: tuple[Op, ...] = (EXPS, NEXT_S)
PARTS: dict[int, tuple[Op, ...] | None] = {0: MAX_PASS + EXP_PASS, 1: EXP_PASS, 2: MAX_PASS, 3: None}
DEFAULT = Path("validation/h200/softmax_offset/softmax_offset_passes_h200.csv")


def model(part: int, delay: int) -> dict[str, float]:
    """Model cycles per iteration of each warpgroup, warpgroup 0's row-max and exp spans, the offset at `MIDDLE`."""
    bodies = [PARTS[0], PARTS[part]]
    roles = tuple(
        Role(
            f"wg{g}",
            4,
            lambda tile, body=body, g=g: (
                Delay(float(delay if g else 0) + 1e-9),
                Repeat(ITERS, lambda i, body=body: body),
            ),
        )
        for g, body in enumerate(bodies)
        if body is not None
    )
    trace = Trace()
    Engine(load_arch("h200"), sms=1, trace=trace).run(
        [Kernel("passes", (0,), CtaResources(128 * len(roles), 168, 30000), roles, ())]
    )
    starts: dict[int, list[float]] = defaultdict(list)
    spans: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for span in trace.spans:
        for g in range(len(roles)):
            if span.track.endswith(f"wg{g}") and span.name != "Delay":
                spans[g].append((span.start_cycles, span.end_cycles))
    for g, group in spans.items():
        group.sort()
        per = len(bodies[g] or ())
        starts[g] = [group[i][0] for i in range(0, len(group), per)] + [group[-1][1]]
    out = {f"period{g}": (starts[g][-1] - starts[g][SETTLED]) / (ITERS - SETTLED) for g in starts}
    group = spans[0]
    maxes = [group[4 * i + 1][1] - group[4 * i][0] for i in range(SETTLED, ITERS)]
    out["max0"] = sum(maxes) / len(maxes)
    out["rest0"] = out["period0"] - out["max0"]
    if part == 0:
        out["offset"] = starts[1][MIDDLE] - starts[0][MIDDLE]
    return out


def measured(path: Path) -> dict[tuple[int, int], dict[str, float]]:
    """The probe's rows per (part, delay), summarized as `model`'s."""
    stamps: dict[tuple[int, int], dict[tuple[int, int, int], float]] = defaultdict(dict)
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            key = (int(row["part"]), int(row["delay"]))
            stamps[key][int(row["warpgroup"]), int(row["iteration"]), int(row["stamp"])] = float(row["cycles"])
    out = {}
    for key, t in stamps.items():
        summary = {}
        for g in (0, 1) if key[0] != 3 else (0,):
            summary[f"period{g}"] = (t[g, ITERS, 0] - t[g, SETTLED, 0]) / (ITERS - SETTLED)
        summary["max0"] = sum(t[0, i, 1] - t[0, i, 0] for i in range(SETTLED, ITERS)) / (ITERS - SETTLED)
        summary["rest0"] = summary["period0"] - summary["max0"]
        if key[0] == 0:
            summary["offset"] = t[1, MIDDLE, 0] - t[0, MIDDLE, 0]
        out[key] = summary
    return out


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    rows = measured(path)
    print(f"probe rows: {path}")
    print("part delay | period wg0 model/chip | period wg1 model/chip | wg0 max pass | wg0 rest | offset at it 24")
    for (part, delay), chip in sorted(rows.items()):
        sim = model(part, delay)

        def pair(name: str, sim: dict[str, float] = sim, chip: dict[str, float] = chip) -> str:
            if name not in chip:
                return f"{'-':>11}"
            return f"{sim[name]:5.0f}/{chip[name]:5.0f}"

        print(
            f"{part:4d} {delay:5d} | {pair('period0'):>21} | {pair('period1'):>21} | {pair('max0'):>12} | "
            f"{pair('rest0'):>8} | {pair('offset')}"
        )


if __name__ == "__main__":
    main()

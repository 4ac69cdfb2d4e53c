"""The thirty-eighth session's simspeed runs against the thirty-second's, case by case: the median ratio of fast-mode
times over the cases whose schedules no change between them touched (v1, the forward passes of v2, v3 and v4: the
VM's speed that day; the plan's one-pass fold, `simgpu.fast_plan`, runs in all of them) and over those whose schedules
the changes did touch (standard attention, the v2, v3 and v4 backward passes).
`python docs/results/simspeed_38_vs_32.py`
"""

import csv
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent


def times(name: str) -> dict[tuple[str, ...], float]:
    with (HERE / name).open(encoding="utf-8") as handle:
        rows = csv.DictReader(handle)
        return {
            (r["arch"], r["algo"], r["pass"], r["seqlen"]): float(r["fast_median_s"])
            for r in rows
            if r["fast_median_s"]
        }


def touched(case: tuple[str, ...]) -> bool:
    _, algo, pass_, _ = case
    return algo == "standard" or (pass_ == "bwd" and algo in ("v2", "v3", "v4"))


before = times("simspeed_32.csv")
for run in ("simspeed_38a.csv", "simspeed_38.csv"):
    after = times(run)
    for label, wanted in (("untouched", False), ("changed", True)):
        ratios = [after[case] / before[case] for case in before if case in after and touched(case) == wanted]
        print(f"{run}: {label} cases {len(ratios)}, median ratio to simspeed_32 {statistics.median(ratios):.2f}")

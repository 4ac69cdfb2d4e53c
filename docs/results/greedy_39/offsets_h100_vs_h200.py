"""The two-warpgroup softmax offset probe (validation/probes/softmax_offset.py) on the H100 (this session) against the
H200's two runs: per start delay, warpgroup 0's cycles per iteration over iterations 8-48 and warpgroup 1's lag at
iteration 24. `python docs/results/greedy_39/offsets_h100_vs_h200.py > .../offsets_h100_vs_h200.txt`"""

import collections
import csv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3] / "validation/h200"


def periods_and_lags(path: Path) -> dict[int, tuple[float, float]]:
    stamps: dict[tuple[int, int], dict[int, float]] = collections.defaultdict(dict)
    with path.open() as handle:
        for row in csv.DictReader(handle):
            stamps[int(row["delay"]), int(row["warpgroup"])][int(row["iteration"])] = float(row["cycles"])
    return {
        delay: ((stamps[delay, 0][48] - stamps[delay, 0][8]) / 40, stamps[delay, 1][24] - stamps[delay, 0][24])
        for delay, group in stamps
        if group == 0
    }


h100 = periods_and_lags(ROOT / "softmax_offset_on_h100/softmax_offset_h100.csv")
h200 = periods_and_lags(ROOT / "softmax_offset/softmax_offset_h200.csv")
print("delay: H100 period, lag | H200 period, lag (cycles)")
for delay in sorted(h100):
    print(f"{delay:5d}: {h100[delay][0]:7.1f} {h100[delay][1]:6.0f} | {h200[delay][0]:7.1f} {h200[delay][1]:6.0f}")

"""Which of the speed A/B's cases (`fast_ab.csv`, `benchmarks.fast_ab --grid simspeed`, base = 6c1abbc) the session's
change moved (their cycles differ between the checkouts), and the CPU time of those against the cases it left alone.
`python docs/results/saturated_53/fast_ab_changed.py > docs/results/saturated_53/fast_ab_changed.txt`"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    cycles: dict[tuple[str, ...], dict[str, float]] = defaultdict(dict)
    cpu: dict[tuple[str, ...], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    with (HERE / "fast_ab.csv").open(newline="") as handle:
        for row in csv.DictReader(handle):
            case = (row["arch"], row["algo"], row["pass"], row["seqlen"])
            cycles[case][row["label"]] = float(row["cycles"])
            cpu[case][row["label"]].append(float(row["cpu_s"]))
    ratios = {case: statistics.median(t["saturated"]) / statistics.median(t["base"]) for case, t in cpu.items()}
    moved = [case for case, c in cycles.items() if abs(c["saturated"] / c["base"] - 1) > 1e-9]
    print(f"{len(moved)} of {len(cycles)} cases moved:")
    for case in moved:
        change = cycles[case]["saturated"] / cycles[case]["base"]
        print(f"  {' '.join(case)}: cycles x{change:.4f}, CPU x{ratios[case]:.2f}")
    rest = [ratio for case, ratio in ratios.items() if case not in moved]
    print(f"the others' CPU: median x{statistics.median(rest):.3f}, {min(rest):.2f}-{max(rest):.2f}")


if __name__ == "__main__":
    main()

"""The fortieth session's simspeed runs (simspeed_40a: after the L2 replay's and the representative runs' speed-ups;
simspeed_40b: after the shared loop bodies, FoldMemo and standard attention's cheaper programs too) against the
thirty-ninth's last (simspeed_39c), case by case: the median and range of the ratios of fast-mode times per algorithm
and pass, and the slowest cases. `python docs/results/simspeed_40_vs_39.py > docs/results/simspeed_40_vs_39.txt`;
`python docs/results/simspeed_40_vs_39.py BASE.csv NEW.csv...` compares other runs of this folder the same way
(`simspeed_41_vs_40.txt`: the forty-first session's against simspeed_40b).
"""

import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def times(name: str) -> dict[tuple[str, str, str, int], float]:
    with (HERE / name).open(encoding="utf-8") as handle:
        return {
            (r["arch"], r["algo"], r["pass"], int(r["seqlen"])): float(r["fast_median_s"])
            for r in csv.DictReader(handle)
            if r["fast_median_s"]
        }


def main() -> None:
    base_name, *names = sys.argv[1:] or ["simspeed_39c.csv", "simspeed_40a.csv", "simspeed_40b.csv"]
    base = times(base_name)
    for name in names:
        new = times(name)
        ratios: defaultdict[tuple[str, str], list[float]] = defaultdict(list)
        for case, seconds in base.items():
            ratios[case[1], case[2]].append(new[case] / seconds)
        print(f"{name} against {base_name}, fast-mode time ratio per algorithm and pass (median, range):")
        for (algo, pass_), values in sorted(ratios.items()):
            print(f"  {algo:8} {pass_}  {statistics.median(values):.2f}  {min(values):.2f}-{max(values):.2f}")
        slowest = sorted(new.items(), key=lambda item: -item[1])[:6]
        print("  slowest: " + ", ".join(f"{' '.join(map(str, case))} {seconds:.3f} s" for case, seconds in slowest))


if __name__ == "__main__":
    main()

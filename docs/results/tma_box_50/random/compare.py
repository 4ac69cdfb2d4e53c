"""Two runs of `benchmarks.fast_random` case by case: the cases whose status or refusal changed, and those compared
in both whose fast/exact cycle ratio moved (how many came nearer exact mode).
`python docs/results/tma_box_50/random/compare.py BEFORE.csv AFTER.csv`"""

from __future__ import annotations

import csv
import sys


def main(before_path: str, after_path: str) -> None:
    with open(before_path, newline="", encoding="utf-8") as handle:
        before = list(csv.DictReader(handle))
    with open(after_path, newline="", encoding="utf-8") as handle:
        after = list(csv.DictReader(handle))
    changed = [
        (number, old, new)
        for number, (old, new) in enumerate(zip(before, after, strict=True))
        if old["status"] != new["status"] or old["detail"].split(":")[0] != new["detail"].split(":")[0]
    ]
    print(f"cases whose status or refusal changed: {len(changed)}")
    for number, old, new in changed:
        print(f"  case {number}: {old['status']} {old['detail'][:90]!r} -> {new['status']} {new['detail'][:90]!r}")
    moved = [
        (number, float(old["cycles_fast_over_exact"]), float(new["cycles_fast_over_exact"]))
        for number, (old, new) in enumerate(zip(before, after, strict=True))
        if old["status"] == new["status"] == "ok"
        and abs(float(old["cycles_fast_over_exact"]) - float(new["cycles_fast_over_exact"])) > 1e-6
    ]
    nearer = sum(abs(new - 1) < abs(old - 1) for _, old, new in moved)
    print(f"cases compared in both whose fast/exact ratio moved: {len(moved)}, nearer exact mode: {nearer}")
    for number, old, new in moved:
        print(f"  case {number}: {old:.4f} -> {new:.4f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

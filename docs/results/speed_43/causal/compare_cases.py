"""Two `experiments.fast_vs_exact` CSVs case by case: how many cases lie within 1, 2.5 and 5% of exact mode in each,
the mean and largest error, and the cases whose fast/exact ratio moved most (`python compare_cases.py BEFORE AFTER
[ROWS]`)."""

import csv
import sys

KEYS = ("arch", "algo", "pass", "causal", "sms", "batch", "heads", "seqlen_q", "headdim")


def load(path):
    return {tuple(row[k] for k in KEYS): row for row in csv.DictReader(open(path))}


def summary(rows):
    errors = [abs(float(row["fast_over_exact"]) - 1) for row in rows.values()]
    within = [sum(error <= bound for error in errors) for bound in (0.01, 0.025, 0.05)]
    mean = sum(errors) / len(errors)
    return f"{len(errors)} cases, within 1/2.5/5%: {within}, mean {mean:.4%}, max {max(errors):.4%}"


before, after = load(sys.argv[1]), load(sys.argv[2])
print("before", summary(before))
print("after ", summary(after))
moved = [(float(after[k]["fast_over_exact"]) - float(before[k]["fast_over_exact"]), k) for k in before if k in after]
moved.sort(key=lambda pair: -abs(pair[0]))
for change, key in moved[: int(sys.argv[3]) if len(sys.argv) > 3 else 15]:
    print(f"{change:+.4f}", " ".join(key), before[key]["fast_over_exact"][:6], "->", after[key]["fast_over_exact"][:6])

"""Two fast_vs_exact CSVs (before, after): each one's counts within 1%, 2.5% and 5% of exact mode, and the rows whose
fast-over-exact ratio moved. `python compare_runs.py BEFORE.csv AFTER.csv`."""

import csv
import sys


def stats(path):
    with open(path) as handle:
        rows = list(csv.DictReader(handle))
    r = [abs(float(x["fast_over_exact"]) - 1) for x in rows]
    counts = ", ".join(f"{limit:g}% {sum(v <= limit / 100 for v in r)}" for limit in (1, 2.5, 5))
    bytes_equal = sum(x["bytes_equal"] == "True" for x in rows)
    summary = f"{len(r)} cases: within {counts}, mean {sum(r) / len(r) * 100:.2f}%, max {max(r) * 100:.1f}%"
    return rows, f"{summary}, bytes equal {bytes_equal}"


a, sa = stats(sys.argv[1])
b, sb = stats(sys.argv[2])
print("before:", sa)
print("after: ", sb)
for x, y in zip(a, b, strict=True):
    if x["fast_over_exact"] != y["fast_over_exact"]:
        shape = f"{x['batch']}x{x['heads']}x{x['seqlen_q']} d={x['headdim']}"
        ratios = f"{float(x['fast_over_exact']):.4f} -> {float(y['fast_over_exact']):.4f}"
        print(f"  {x['arch']} {x['algo']} {x['pass']} causal={x['causal']} {shape}: {ratios}")

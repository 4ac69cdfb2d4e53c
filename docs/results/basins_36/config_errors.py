"""Mean signed error of fast-mode predictions per v3 build (head dimension, causal, ping-pong, overlap; 6 shapes
each) in `simgpu validate` CSVs: `python docs/results/basins_36/config_errors.py CSV...`."""

from __future__ import annotations

import csv
import statistics
import sys
from collections import defaultdict


def main() -> None:
    for path in sys.argv[1:]:
        errors: defaultdict[tuple[str, str, str, str], list[float]] = defaultdict(list)
        with open(path, encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                options = dict(item.split("=") for item in row["options"].split())
                key = (row["headdim"], row["causal"], options["pingpong"], options["intra_wg_overlap"])
                errors[key].append(100 * float(row["rel_error"]))
        print(f"== {path}")
        for (d, causal, pingpong, overlap), values in sorted(errors.items(), key=lambda kv: (int(kv[0][0]), kv[0])):
            print(
                f"  d={d:3s} causal={causal:5s} pingpong={pingpong:5s} overlap={overlap:5s}: {len(values)} shapes, "
                f"mean {statistics.mean(values):+5.1f}%, {min(values):+5.1f}% .. {max(values):+5.1f}%"
            )


if __name__ == "__main__":
    main()

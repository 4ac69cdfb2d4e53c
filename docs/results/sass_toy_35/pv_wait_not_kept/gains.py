"""MAPE and the ping-pong and intra-warpgroup-overlap gains (measured and predicted) of a v3 `simgpu validate`
CSV: per (sequence length, head dimension, causal), time with the mechanism off over time with it on, less one,
with the other mechanism on; the mean per head dimension and over all. Run from the repository root:
`python docs/results/sass_toy_35/pv_wait_not_kept/gains.py CSV`.
"""

from __future__ import annotations

import csv
import statistics
import sys


def main(path: str) -> None:
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))

    def on(row: dict[str, str], name: str) -> bool:
        return f"{name}=True" in row["options"]

    def mape(selected: list[dict[str, str]]) -> str:
        return f"{100 * statistics.mean(abs(float(r['rel_error'])) for r in selected):.1f}%"

    fa3 = [r for r in rows if on(r, "pingpong") and on(r, "intra_wg_overlap")]
    print(
        f"MAPE all {mape(rows)}, d=64 {mape([r for r in rows if r['headdim'] == '64'])}, "
        f"d=128 {mape([r for r in rows if r['headdim'] == '128'])}, FA3's configuration {mape(fa3)} ({len(fa3)})"
    )
    for mechanism, other in (("pingpong", "intra_wg_overlap"), ("intra_wg_overlap", "pingpong")):
        for column in ("measured_ms", "predicted_ms"):
            times: dict[tuple[str, str, str], dict[bool, float]] = {}
            for r in rows:
                if on(r, other):
                    times.setdefault((r["seqlen"], r["headdim"], r["causal"]), {})[on(r, mechanism)] = float(r[column])
            gain = {key: t[False] / t[True] - 1 for key, t in times.items() if len(t) == 2}
            parts = []
            for d in ("64", "128", None):
                values = [g for key, g in gain.items() if d is None or key[1] == d]
                parts.append(f"{'all' if d is None else 'd=' + d} {100 * statistics.mean(values):+.1f}%")
            print(f"  {mechanism} gain ({other} on), {column.removesuffix('_ms')}: {', '.join(parts)}")


if __name__ == "__main__":
    main(sys.argv[1])

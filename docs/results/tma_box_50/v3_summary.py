"""v3's validation against our kernel (a `simgpu validate` CSV): MAPE over the 96 configurations, per head dimension
(and its mean signed error by sequence length) and in FA3's configuration (ping-pong and intra-warpgroup overlap on),
and the ping-pong gain (overlap on: the time without ping-pong over the time with it, less one, mean over the 24
shapes), predicted and measured.
`python docs/results/tma_box_50/v3_summary.py VALIDATION.csv`"""

from __future__ import annotations

import csv
import statistics
import sys
from pathlib import Path


def main(path: Path) -> None:
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))

    def mape(chosen: list[dict[str, str]]) -> float:
        return 100 * statistics.mean(abs(float(row["rel_error"])) for row in chosen)

    def flag(row: dict[str, str], name: str) -> bool:
        return f"{name}=True" in row["options"].split()

    print(f"{len(rows)} configurations, MAPE {mape(rows):.1f}%")
    for d in ("64", "128"):
        print(f"  d={d}: {mape([row for row in rows if row['headdim'] == d]):.1f}%")
    for d in ("64", "128"):
        signed = []
        for n in sorted({int(row["seqlen"]) for row in rows}):
            chosen = [float(row["rel_error"]) for row in rows if row["headdim"] == d and int(row["seqlen"]) == n]
            signed.append(f"N={n} {100 * statistics.mean(chosen):+.1f}%")
        print(f"  d={d} mean signed error by N: " + ", ".join(signed))
    fa3 = [row for row in rows if flag(row, "pingpong") and flag(row, "intra_wg_overlap")]
    print(f"  FA3's configuration ({len(fa3)}): {mape(fa3):.1f}%")
    times: dict[tuple[str, ...], dict[bool, tuple[float, float]]] = {}
    for row in rows:
        if flag(row, "intra_wg_overlap"):
            shape = (row["headdim"], row["seqlen"], row["causal"])
            times.setdefault(shape, {})[flag(row, "pingpong")] = (float(row["measured_ms"]), float(row["predicted_ms"]))
    for label, index in (("measured", 0), ("predicted", 1)):
        gains = [pair[False][index] / pair[True][index] - 1 for pair in times.values()]
        pairs = list(zip(times, gains, strict=True))
        by_d = {d: statistics.mean(g for (dd, _, _), g in pairs if dd == d) for d in ("64", "128")}
        print(
            f"  ping-pong gain {label}: {100 * statistics.mean(gains):+.1f}% over {len(gains)} shapes"
            f" (d=64 {100 * by_d['64']:+.1f}%, d=128 {100 * by_d['128']:+.1f}%)"
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]))

"""The v2 validation of the sixteenth session against the one before it, from the committed CSVs only.

`validation/h200/validation_2026-12-03/validation.csv`: our v2 kernels with the forward's m16 groups sharing their
K/V fragments, and the schedule that counts them; `validation_2026-12-02z/report_v2/validation.csv`: the kernel and
schedule before. Prints the MAPE and mean error per pass and head dimension, then, per forward configuration, how
the measured and the predicted SM cycles (time x the run's clock) changed from the earlier run to this one.
Run: `python docs/results/v2_validation_2026-12-03.py` (writes `v2_validation_2026-12-03.txt`)."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

NOW = Path("validation/h200/validation_2026-12-03/validation.csv")
BEFORE = Path("validation/h200/validation_2026-12-02z/report_v2/validation.csv")
KEY = ("pass", "batch", "heads", "seqlen", "headdim", "causal")


def rows(path: Path) -> dict[tuple[str, ...], dict[str, str]]:
    return {tuple(r[k] for k in KEY): r for r in csv.DictReader(path.open(encoding="utf-8"))}


def cycles(row: dict[str, str], column: str) -> float:
    return float(row[column]) * float(row["clock_mhz"])


def main() -> None:
    now, before = rows(NOW), rows(BEFORE)
    lines = []
    for pass_ in ("fwd", "bwd"):
        for headdim in ("64", "128"):
            errors = [float(r["rel_error"]) for k, r in now.items() if k[0] == pass_ and k[4] == headdim]
            mape = 100 * statistics.fmean(abs(e) for e in errors)
            lines.append(f"{pass_} d={headdim}: MAPE {mape:.1f}%, mean {100 * statistics.fmean(errors):+.1f}% "
                         f"over {len(errors)} configurations")  # fmt: skip
    lines.append("forward, now over before in SM cycles (measured / predicted):")
    for key, row in now.items():
        if key[0] == "fwd" and key in before:
            measured = cycles(row, "measured_ms") / cycles(before[key], "measured_ms")
            predicted = cycles(row, "predicted_ms") / cycles(before[key], "predicted_ms")
            lines.append(f"  d={key[4]} N={key[3]:>5} causal={key[5]:5}: {measured:.3f} / {predicted:.3f}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    Path("docs/results/v2_validation_2026-12-03.txt").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

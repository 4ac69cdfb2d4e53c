"""Two fast-vs-exact CSVs (`experiments.fast_vs_exact`) side by side: `python compare.py BEFORE.csv AFTER.csv [ALGO]`
prints each file's counts within 1, 2.5 and 5% of exact mode's cycles, mean and largest error and the cases whose
bytes equal exact mode's (of algorithm ALGO only, where given), then every case whose error moved by more than 0.2
points or whose byte equality changed."""

import csv
import sys
from pathlib import Path

FIELDS = ("arch", "algo", "pass", "causal", "sms", "batch", "heads", "seqlen_q", "headdim")


def load(path: Path, algo: str | None = None) -> dict[tuple[str, ...], dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if algo is None or row["algo"] == algo]
    return {tuple(row[field] for field in FIELDS): row for row in rows}


def summary(rows: dict[tuple[str, ...], dict[str, str]]) -> str:
    errors = [abs(float(row["fast_over_exact"]) - 1) for row in rows.values()]
    within = " ".join(f"within {limit}%: {sum(e <= limit / 100 for e in errors)}" for limit in (1, 2.5, 5))
    equal = sum(row["bytes_equal"] == "True" for row in rows.values())
    return (
        f"{len(errors)} cases, {within}, mean {100 * sum(errors) / len(errors):.2f}%, "
        f"at most {100 * max(errors):.2f}%, bytes equal {equal}"
    )


def main() -> None:
    algo = sys.argv[3] if len(sys.argv) > 3 else None
    before, after = load(Path(sys.argv[1]), algo), load(Path(sys.argv[2]), algo)
    print(f"before: {summary(before)}\nafter:  {summary(after)}")
    for case, row in before.items():
        if case not in after:
            continue
        was, now = float(row["fast_over_exact"]) - 1, float(after[case]["fast_over_exact"]) - 1
        if abs(abs(now) - abs(was)) > 0.002 or row["bytes_equal"] != after[case]["bytes_equal"]:
            equal = f"bytes equal {row['bytes_equal']} -> {after[case]['bytes_equal']}"
            print(" ".join(case), f"{100 * was:+.2f}% -> {100 * now:+.2f}%", equal)


if __name__ == "__main__":
    main()

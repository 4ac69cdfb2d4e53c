"""`simgpu validate --fast` on the H200's measured kernels (standard, v1, v2) at the forty-sixth session's end
(`../../prefix_46/validate_fast/end_kernels.csv`) and at this session's end (`end_kernels.csv`, written by
`simgpu validate --measured validation/h200/kernels_h200.csv --arch h200 --fast`): how many configurations' predicted
times moved, by how much at most, and each algorithm's MAPE in both. Run from the repository root:
`python docs/results/rounds_47/validate_fast/compare.py > docs/results/rounds_47/validate_fast/compare.txt`."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

HERE = Path("docs/results/rounds_47/validate_fast")
BEFORE = Path("docs/results/prefix_46/validate_fast/end_kernels.csv")


def load(path: Path) -> list[dict[str, str]]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


def main() -> None:
    before, after = load(BEFORE), load(HERE / "end_kernels.csv")
    moved, largest = 0, 0.0
    errors: dict[tuple[str, str], list[list[float]]] = defaultdict(lambda: [[], []])
    for old, new in zip(before, after, strict=True):
        assert (old["algo"], old["seqlen"], old["headdim"], old["causal"]) == (
            new["algo"],
            new["seqlen"],
            new["headdim"],
            new["causal"],
        )
        change = abs(float(new["predicted_ms"]) / float(old["predicted_ms"]) - 1)
        moved, largest = moved + (change > 0), max(largest, change)
        for n, row in enumerate((old, new)):
            errors[row["algo"], row["pass"]][n].append(abs(float(row["rel_error"])))
    print(f"{len(before)} configurations, {moved} moved, by at most {largest:.2e}")
    for (algo, pass_), (old_errors, new_errors) in sorted(errors.items()):
        print(
            f"{algo} {pass_}: MAPE {100 * sum(old_errors) / len(old_errors):.2f}% -> "
            f"{100 * sum(new_errors) / len(new_errors):.2f}%"
        )


if __name__ == "__main__":
    main()

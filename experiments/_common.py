"""Helpers shared by the experiment scripts: the output folder and CSV writing."""

from __future__ import annotations

import argparse
import csv
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

OUT_DIR = Path("out")


def write_csv(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def parse_args(doc: str | None, quick_help: str, argv: list[str] | None, jobs: bool = False) -> argparse.Namespace:
    """The two flags every experiment takes: `--quick` (small shapes, for tests) and `--out`; with `jobs`, also
    `--jobs` (worker processes, default 1)."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    if jobs:
        parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    return parser.parse_args(argv)


def print_row(row: Mapping[str, object]) -> None:
    """One result row on one line, floats to 4 significant digits (the experiments' console output)."""
    print(", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))


def save(rows: Sequence[Mapping[str, object]], out: Path, name: str, plot: Callable[[Path, Path], object]) -> Path:
    """CSV first, then the PNG drawn from that CSV (never from memory), as every experiment does."""
    csv_path = write_csv(out / f"{name}.csv", rows)
    png_path = out / f"{name}.png"
    plot(csv_path, png_path)
    print(f"wrote {csv_path} and {png_path}")
    return csv_path

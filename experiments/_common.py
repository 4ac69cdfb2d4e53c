"""Helpers shared by the experiment scripts: the output folder and CSV writing."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path

OUT_DIR = Path("out")


def write_csv(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path

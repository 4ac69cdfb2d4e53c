"""The throughput experiment runs end to end in quick mode and writes its CSV and PNG."""

from __future__ import annotations

import csv
from pathlib import Path

from experiments import throughput


def test_quick_run_writes_csv_and_png(tmp_path: Path) -> None:
    throughput.main(
        ["--quick", "--archs", "a100", "--algos", "v2", "standard", "--passes", "fwd", "--out", str(tmp_path)]
    )
    rows = list(csv.DictReader((tmp_path / "throughput.csv").open()))
    assert {r["algo"] for r in rows} == {"v2", "standard"}
    assert all(float(r["tflops"]) > 0 for r in rows)
    assert (tmp_path / "throughput.png").stat().st_size > 0

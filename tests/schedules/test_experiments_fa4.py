"""The FA4 what-if experiment runs end to end in --quick mode: a CSV with every study, each row naming its
bottleneck, and a PNG drawn from it."""

from __future__ import annotations

import csv
from pathlib import Path

from experiments import fa4_whatif


def test_quick_run_writes_csv_and_png(tmp_path: Path) -> None:
    fa4_whatif.main(["--quick", "--out", str(tmp_path)])
    with (tmp_path / "fa4_whatif.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["study"] for row in rows} == {"mufu", "emulation", "smem", "tmem", "tau"}
    assert all(row["bottleneck"] for row in rows)
    assert any(row["arch"] != rows[0]["arch"] for row in rows if row["study"] == "tmem")  # the Hopper what-if ran
    assert (tmp_path / "fa4_whatif.png").stat().st_size > 0

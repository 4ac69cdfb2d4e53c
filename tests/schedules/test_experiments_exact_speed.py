"""The exact-mode speed experiment runs the CLI end to end in --quick mode: one row per case, a PNG from the CSV."""

from __future__ import annotations

import csv
from pathlib import Path

from experiments import exact_speed


def test_quick_run_times_every_algorithm(tmp_path: Path) -> None:
    exact_speed.main(["--quick", "--out", str(tmp_path)])
    with (tmp_path / "exact_speed.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["algo"] for r in rows] == list(exact_speed.ALGOS)
    assert not any(r["error"] for r in rows)
    assert all(float(r["wall_s"]) >= float(r["sim_wall_s"]) > 0 for r in rows)  # the process includes the simulation
    assert (tmp_path / "exact_speed.png").stat().st_size > 0

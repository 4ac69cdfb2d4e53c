"""The SM timeline experiment writes a Chrome trace per algorithm, the spans CSV and the Gantt PNG."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from experiments import timeline


def test_quick_run_writes_traces_csv_and_png(tmp_path: Path) -> None:
    timeline.main(["--quick", "--out", str(tmp_path), "--window", "4"])
    for algo in timeline.CASES:
        events = json.loads((tmp_path / f"timeline_{algo}.json").read_text())["traceEvents"]
        assert any(e.get("name") == "tensor" for e in events)
    rows = list(csv.DictReader((tmp_path / "timeline.csv").open()))
    assert {r["algo"] for r in rows} == set(timeline.CASES)
    assert all(0 <= float(r["start_us"]) <= float(r["end_us"]) <= 4 for r in rows)
    assert (tmp_path / "timeline.png").stat().st_size > 0

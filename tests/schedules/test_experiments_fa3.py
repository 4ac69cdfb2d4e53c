"""The FA3 ablation experiment runs end to end in --quick mode and its CSV holds what the plot claims."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from experiments import fa3_ablation


def test_fa3_ablation_quick_run_keeps_the_published_order(tmp_path: Path) -> None:
    fa3_ablation.main(["--quick", "--out", str(tmp_path)])
    assert (tmp_path / "fa3_ablation.png").stat().st_size > 0
    with (tmp_path / "fa3_ablation.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["variant"] for r in rows] == [name for name, _, _ in fa3_ablation.VARIANTS]
    full, no_pipelining, no_specialization = (float(r["predicted_tflops"]) for r in rows)
    # FA3 Table 2's order: each mechanism switched off costs throughput.
    assert full > no_pipelining and full > no_specialization
    assert float(rows[0]["predicted_share_of_full"]) == 1.0
    assert float(rows[1]["predicted_share_of_full"]) == pytest.approx(no_pipelining / full)
    assert all(r["published_tflops"] == "" for r in rows)  # no published figure at the quick shape

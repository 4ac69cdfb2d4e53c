"""`make run`'s default study: every scheduled algorithm on every shipped arch, one row each."""

from __future__ import annotations

import csv
from pathlib import Path

from experiments import default_study
from simgpu.registry import algorithm_names


def test_quick_study_has_a_row_per_arch_and_algorithm(tmp_path: Path) -> None:
    default_study.main(["--quick", "--out", str(tmp_path)])
    rows = list(csv.DictReader((tmp_path / "default_study.csv").open()))
    assert {(r["arch"], r["algo"]) for r in rows} == {
        (arch, algo) for arch in default_study.SHIPPED for algo in algorithm_names()
    }
    assert all(float(r["tflops"]) > 0 for r in rows if not r["note"])
    assert (tmp_path / "default_study.png").stat().st_size > 0

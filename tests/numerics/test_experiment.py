"""`python -m experiments.numerics --quick` writes non-empty CSVs and PNGs."""

from __future__ import annotations

import csv

from experiments import numerics


def test_quick_run_writes_csv_and_png(tmp_path):
    assert numerics.main(["--quick", "--out", str(tmp_path)]) == 0
    for name in ("fp8_rmse", "exp2_poly", "exp2_error_curve", "rescaling"):
        with (tmp_path / f"{name}.csv").open() as handle:
            rows = list(csv.DictReader(handle))
        assert rows, name
    for name in ("fp8_rmse", "exp2_poly", "rescaling"):
        png = (tmp_path / f"{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 10_000

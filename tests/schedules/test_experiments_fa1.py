"""The FA1 experiments run end to end in --quick mode: a non-empty CSV and a PNG drawn from it."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from experiments import fa1_block_size, gpt2_medium, v1_levels


@pytest.mark.parametrize(
    ("module", "name"),
    [(fa1_block_size, "fa1_block_size"), (gpt2_medium, "gpt2_medium"), (v1_levels, "v1_levels")],
)
def test_quick_run_writes_csv_and_png(module: object, name: str, tmp_path: Path) -> None:
    module.main(["--quick", "--out", str(tmp_path)])  # type: ignore[attr-defined]
    with (tmp_path / f"{name}.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows
    assert (tmp_path / f"{name}.png").stat().st_size > 0


def test_block_size_quick_bytes_fall_with_the_block() -> None:
    rows = fa1_block_size.run(quick=True)
    uncached = [row["hbm_gb_l2_off"] for row in rows]
    assert uncached == sorted(uncached, reverse=True)  # type: ignore[type-var]


def test_workers_give_the_rows_of_one_process() -> None:
    # `--jobs` runs the rows in worker processes: the same rows, in the same order (but for the wall times).
    def predictions(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        return [{key: value for key, value in row.items() if key != "sim_wall_s"} for row in rows]

    assert predictions(fa1_block_size.run(quick=True, jobs=2)) == predictions(fa1_block_size.run(quick=True))

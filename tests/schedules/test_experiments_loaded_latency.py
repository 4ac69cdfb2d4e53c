"""`experiments.loaded_latency`: the H200's loaded-latency probe against the arch file's rule and the engine."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from experiments import loaded_latency
from simgpu.arch import load_arch


def test_quick_run_puts_each_measured_setting_beside_the_rule_and_the_engine(tmp_path: Path) -> None:
    loaded_latency.main(["--quick", "--out", str(tmp_path)])
    assert (tmp_path / "loaded_latency.png").stat().st_size > 0
    with (tmp_path / "loaded_latency.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert (rows[0]["source"], rows[0]["streaming_sms"]) == ("idle", "0")
    assert {r["streaming_sms"] for r in rows[1:]} == {"131"} and len(rows) == 7
    spec = load_arch("h200").hbm.loaded_latency
    assert spec is not None
    for row in rows:
        utilization = float(row["measured_hbm_utilization"])
        expected = spec.extra_cycles * min(1.0, utilization / spec.knee_utilization)
        assert float(row["rule_extra_cycles"]) == pytest.approx(expected)
    # The engine's prober waits longer the more boxes the streamers keep in flight.
    hbm = sorted((int(r["inflight"]), float(r["model_probe_cycles"])) for r in rows if r["source"] == "hbm")
    assert [cycles for _, cycles in hbm] == sorted(cycles for _, cycles in hbm)
    assert float(rows[0]["model_extra_cycles"]) == 0.0

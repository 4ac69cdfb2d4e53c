"""The FA4 experiments run end to end in --quick mode: CSVs with every study (the what-if rows naming their
bottleneck), and PNGs drawn from them."""

from __future__ import annotations

import csv
from pathlib import Path

from experiments import fa4_forward_gap, fa4_scheduling, fa4_two_cta, fa4_varlen, fa4_whatif


def test_quick_run_writes_csv_and_png(tmp_path: Path) -> None:
    fa4_whatif.main(["--quick", "--out", str(tmp_path)])
    with (tmp_path / "fa4_whatif.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["study"] for row in rows} == {"mufu", "emulation", "smem", "tmem", "tau", "excess"}
    assert all(row["bottleneck"] for row in rows)
    assert any(row["arch"] != rows[0]["arch"] for row in rows if row["study"] == "tmem")  # the Hopper what-if ran
    points = {row["point"]: row for row in rows}
    # FA4's backward at d = 128 is its 2-CTA kernel: the smem study runs it; it moves dS over DSMEM, 1-CTA does not.
    assert (
        float(points["bwd 2-CTA, smem 128 B/clk"]["busy_dsmem"])
        > 0
        == float(points["bwd 1-CTA, smem 128 B/clk"]["busy_dsmem"])
    )
    # Doubling MUFU with every exp on it cannot slow the forward down.
    assert float(points["MUFU 32/clk, 0% sw exp"]["tflops"]) >= float(points["MUFU 16/clk, 0% sw exp"]["tflops"])
    # The per-tile accounting: moving exps off MUFU lowers its share of the MMA cycles and raises the issue slots'.
    for d in (64, 96, 128):
        mufu_only, split = points[f"d={d}, 0% sw exp"], points[f"d={d}, 25% sw exp"]
        assert float(split["tile_mufu_over_mma"]) < float(mufu_only["tile_mufu_over_mma"])
        assert float(split["tile_issue_over_mma"]) > float(mufu_only["tile_issue_over_mma"])
    assert (tmp_path / "fa4_whatif.png").stat().st_size > 0


def test_two_cta_quick_run_writes_csv_and_png(tmp_path: Path) -> None:
    fa4_two_cta.main(["--quick", "--out", str(tmp_path)])
    with (tmp_path / "fa4_two_cta.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    pair = [row for row in rows if row["study"] == "pair"]
    assert {row["variant"] for row in pair} == {"1-CTA", "2-CTA"}
    assert all(row["bottleneck"] for row in rows)
    dsmem = {row["variant"]: float(row["tflops"]) for row in rows if row["study"] == "dsmem"}
    # A free network can only help, a slower one only hurt.
    assert dsmem["DSMEM free"] >= dsmem["model"] >= dsmem["latency x4"]
    assert (tmp_path / "fa4_two_cta.png").stat().st_size > 0


def test_scheduling_quick_run_writes_csv_and_png(tmp_path: Path) -> None:
    fa4_scheduling.main(["--quick", "--out", str(tmp_path)])
    with (tmp_path / "fa4_scheduling.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["study"] for row in rows} == {"lpt", "deterministic", "l2_latency"}
    tflops = {(row["causal"], row["seqlen"], row["variant"]): float(row["tflops"]) for row in rows}
    # Non-causal, one wave: the deterministic wavefront costs time.
    assert tflops["False", "512", "deterministic"] < tflops["False", "512", "non-deterministic"]
    assert (tmp_path / "fa4_scheduling.png").stat().st_size > 0


def test_forward_gap_quick_run_writes_csv_and_png(tmp_path: Path) -> None:
    fa4_forward_gap.main(["--quick", "--out", str(tmp_path)])
    with (tmp_path / "fa4_forward_gap.csv").open(encoding="utf-8") as handle:
        rows = {row["point"]: row for row in csv.DictReader(handle)}
    model = rows["model"]
    # The traced row says where the steady state goes: the tensor cores work part of the time, and a softmax
    # warpgroup's ops take part of the time between two of its blocks.
    assert 0 < float(model["steady_tensor_share"]) < 1
    assert 0 < float(model["softmax_ops_cycles_per_block"]) < float(model["softmax_period_cycles"])
    # A longer MMA round trip can only slow the forward down.
    assert float(rows["MMA round trip x2"]["tflops"]) <= float(model["tflops"])
    # The softmax warpgroups have one warp per scheduler: letting such a warp overlap its pipes fully (the B200 model
    # before it took Hopper's measured single-warp rule) makes the forward faster.
    assert float(rows[fa4_forward_gap.FULL_OVERLAP]["tflops"]) > float(model["tflops"])
    assert (tmp_path / "fa4_forward_gap.png").stat().st_size > 0


def test_varlen_quick_run_writes_csv_and_png(tmp_path: Path) -> None:
    fa4_varlen.main(["--quick", "--out", str(tmp_path)])
    with (tmp_path / "fa4_varlen.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:  # each row's sequences are the draw's, in its order
        seqlens = [int(n) for n in row["seqlens"].split()]
        assert (len(seqlens), sum(seqlens), max(seqlens)) == (
            int(row["sequences"]),
            int(row["tokens"]),
            int(row["longest"]),
        )
    drawn = [int(n) for n in rows[0]["seqlens"].split()]
    assert sum(drawn) == 2048 and all(n <= 1024 for n in drawn)
    assert {row["order"] for row in rows} == {"as given", "sorted longest first", "plain batch at the mean length"}
    assert all(float(row["tflops"]) > 0 and row["bottleneck"] for row in rows)
    assert (tmp_path / "fa4_varlen.png").stat().st_size > 0

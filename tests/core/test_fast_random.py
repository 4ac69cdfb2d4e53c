"""The random-problem benchmark of fast against exact mode: its draws repeat by seed, its rows and its summary."""

from __future__ import annotations

import random

import pytest

from benchmarks.fast_random import ALGOS_BY_ARCH, compare, draw, summary


def test_draws_repeat_by_seed_and_stay_within_what_each_arch_runs() -> None:
    first = [draw(random.Random(7)) for _ in range(3)]
    assert first == [draw(random.Random(7)) for _ in range(3)]
    cases = [draw(random.Random(seed)) for seed in range(50)]
    assert all(case["algo"] in ALGOS_BY_ARCH[case["arch"]] for case in cases)


def test_a_case_gives_fast_over_exact_cycles_and_byte_differences() -> None:
    case = {
        "arch": "h100",
        "overrides": {"sms": 8},
        "algo": "v2",
        "options": {"block_n": 64},
        "batch": 1,
        "heads": 2,
        "seqlen_q": 256,
        "seqlen_k": 256,
        "headdim": 64,
        "causal": False,
        "dtype": "bf16",
        "pass_": "fwd",
    }
    row = compare(case)
    assert row["status"] == "ok" and row["sms"] == 8 and row["l2_bytes"] == "" and row["options"] == "block_n=64"
    assert row["cycles_fast_over_exact"] == pytest.approx(1.0, abs=0.01)
    assert row["bytes_max_rel_difference"] == 0.0
    # No TMA on the A100: a clear error, skipped.
    refused = compare(case | {"algo": "v3", "arch": "a100", "options": {}})
    assert refused["status"] == "skipped" and refused["detail"].startswith("OptionError")


def test_the_summary_counts_each_band_and_the_crashes() -> None:
    rows = [
        {"algo": "v2", "status": "ok", "cycles_fast_over_exact": 1.005, "bytes_max_rel_difference": 0.0},
        {"algo": "v2", "status": "ok", "cycles_fast_over_exact": 0.97, "bytes_max_rel_difference": 0.1},
        {"algo": "v2", "status": "crash"},
        {"algo": "v1", "status": "skipped"},
    ]
    assert summary(rows).splitlines() == [
        "v1       0 compared; cycles within 1.0%: 0, within 2.5%: 0, within 5.0%: 0; largest -; bytes equal 0; "
        "crashes 0",
        "v2       2 compared; cycles within 1.0%: 1, within 2.5%: 1, within 5.0%: 2; largest 3.0%; bytes equal 1; "
        "crashes 1",
        "all      2 compared; cycles within 1.0%: 1, within 2.5%: 1, within 5.0%: 2; largest 3.0%; bytes equal 1; "
        "crashes 1",
    ]

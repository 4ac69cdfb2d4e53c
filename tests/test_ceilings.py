"""`simgpu calibrate --ceilings`: which reference ceilings the calibration measurements reproduce.

The committed H200 calibration (validation/h200/calibration_h200.json, from before the L2-copy and GEMM
benchmarks existed) against validation/h200/ceilings.json: eight ceilings measured, FFMA outside 10% (the
reference loop was issue-bound), the four new ones "not measured". A made-up calibration with the new results
shows the chosen L2-copy variant and a skipped fp8 GEMM. No GPU is needed.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from simgpu.ceilings import CSV_COLUMNS, CeilingRow, compare_ceilings, csv_rows
from simgpu.cli import main

H200 = Path(__file__).resolve().parents[1] / "validation" / "h200"


def committed() -> tuple[dict[str, Any], dict[str, Any]]:
    measured = json.loads((H200 / "calibration_h200.json").read_text())
    ceilings = json.loads((H200 / "ceilings.json").read_text())
    return measured, ceilings


def test_committed_calibration_against_the_h200_ceilings() -> None:
    rows = csv_rows(compare_ceilings(*committed()))
    assert [(r["key"], r["measured"], r["measured_over_reference"], r["within_10pct"]) for r in rows] == [
        ("hbm_copy_TBps", "3.92502", "0.9238", "yes"),
        ("hbm_read_TBps", "4.52789", "1.0671", "yes"),
        ("l2_copy_TBps", "not measured", "", "not measured"),
        ("bf16_mm_TFLOPs", "not measured", "", "not measured"),
        ("fp16_mm_TFLOPs", "not measured", "", "not measured"),
        ("fp8_mm_TFLOPs", "not measured", "", "not measured"),
        ("mufu_ex2_per_s", "4.15491e+12", "1.0091", "yes"),
        ("mufu_ex2_per_sm_per_clk_at_1980MHz", "15.9814", "1.0144", "yes"),
        ("fp32_fma_per_s", "3.29465e+13", "1.2256", "no"),
        ("fp32_fma_per_sm_per_clk_at_1980MHz", "126.667", "1.2316", "no"),
        ("smem_bytes_per_s", "3.32219e+13", "1.0532", "yes"),
        ("smem_bytes_per_sm_per_clk_at_1980MHz", "127.905", "1.0598", "yes"),
    ]
    assert rows[0] == {
        "key": "hbm_copy_TBps",
        "reference": "4.24901",
        "measured": "3.92502",
        "measured_over_reference": "0.9238",
        "within_10pct": "yes",
        "measurement": "hbm_copy.per_s [fastest of 4 variants] (median of 274 runs; nvidia-smi 1980 MHz)",
    }
    assert rows[2]["measurement"] == "not measured: no 'l2_copy' in the calibration data"
    assert rows[9]["measurement"] == "fp32_fma.per_sm_per_clk_cycles (SM cycle counter: kernel at 1971 MHz)"


def new_results() -> dict[str, Any]:
    """The new benchmarks as the runner writes them (trimmed): the L2 copy's chosen variant and the per-call one the
    ceiling is compared with, a bf16 GEMM, an fp8 GEMM skipped for want of torch; fp16 absent."""
    return {
        "gpu": {"gpu_name": "NVIDIA H200"},
        "benchmarks": {
            "l2_copy": {
                "per_s": 5.0e12,
                "variant": "cupy.copyto, back-to-back calls",
                "variants": [
                    {"per_s": 1.9e12, "variant": "cupy.copyto, one copy per call", "runs": 1000, "clock_mhz": 1980.0}
                ],
            },
            "gemm_bf16": {"per_s": 7.0e14, "variant": "cuBLAS gemmEx via CuPy, bf16", "runs": 375, "clock_mhz": 1755.0},
            "gemm_fp8": {"skipped": "torch not importable (No module named 'torch')", "unit": "flop"},
        },
    }


def test_new_benchmarks_map_to_their_ceilings() -> None:
    ceilings = {"l2_copy_TBps": 1.8, "bf16_mm_TFLOPs": 693.0, "fp16_mm_TFLOPs": 693.0, "fp8_mm_TFLOPs": 1255.0}
    rows = compare_ceilings(new_results(), ceilings)
    assert rows == [
        CeilingRow(
            "l2_copy_TBps",
            1.8,
            1.9,
            "l2_copy.per_s [cupy.copyto, one copy per call] (median of 1000 runs; nvidia-smi 1980 MHz); the "
            "result's own figure [cupy.copyto, back-to-back calls]: 5",
        ),
        CeilingRow(
            "bf16_mm_TFLOPs",
            693.0,
            700.0,
            "gemm_bf16.per_s [cuBLAS gemmEx via CuPy, bf16] (median of 375 runs; nvidia-smi 1755 MHz)",
        ),
        CeilingRow("fp16_mm_TFLOPs", 693.0, None, "not measured: no 'gemm_fp16' in the calibration data"),
        CeilingRow(
            "fp8_mm_TFLOPs", 1255.0, None, "not measured: gemm_fp8 torch not importable (No module named 'torch')"
        ),
    ]
    assert [row.within() for row in rows] == [True, True, None, None]
    assert rows[0].ratio == pytest.approx(1.9 / 1.8)
    assert rows[0].within(tolerance=0.05) is False  # 5.6% off


def test_unknown_keys_are_listed_as_not_measured_and_facts_ignored() -> None:
    rows = compare_ceilings(new_results(), {"name": "NVIDIA H200", "sms": 132, "tf32_mm_TFLOPs": 400.0})
    assert rows == [
        CeilingRow("tf32_mm_TFLOPs", 400.0, None, "not measured: no calibration benchmark maps to this key")
    ]


@pytest.mark.parametrize(
    ("ceilings", "message"),
    [
        ({"l2_copy_TBps": "fast"}, "l2_copy_TBps must be a number, got 'fast'"),
        ({"l2_copy_TBps": True}, "l2_copy_TBps must be a number, got True"),
        ({"l2_copy_TBps": 0}, "l2_copy_TBps must be positive, got 0"),
        ({"name": "NVIDIA H200", "sms": 132}, "no ceilings in it"),
    ],
)
def test_bad_ceilings_are_refused(ceilings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compare_ceilings(new_results(), ceilings)


def test_cli_writes_the_check_beside_the_json_and_prints_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "measured" / "calibration.json"
    data.parent.mkdir()
    shutil.copy(H200 / "calibration_h200.json", data)
    ceilings = str(H200 / "ceilings.json")
    main(["calibrate", "--from-json", str(data), "--out", str(tmp_path / "a.yaml"), "--ceilings", ceilings])
    with (data.parent / "ceilings_check.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert rows == csv_rows(compare_ceilings(*committed()))
    out = capsys.readouterr().out
    assert "fp32_fma_per_sm_per_clk_at_1980MHz            102.9        126.7   1.232  no\n" in out
    assert "l2_copy_TBps                                  1.802 not measured          not measured\n" in out
    assert f"wrote {data.parent / 'ceilings_check.csv'}" in out


def test_cli_refuses_a_bad_ceilings_file_before_measuring(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "ceilings.json"
    bad.write_text('{"hbm_copy_TBps": "4.2"}')
    with pytest.raises(SystemExit) as done:
        main(["calibrate", "--out", str(tmp_path / "a.yaml"), "--ceilings", str(bad)])
    assert done.value.code == 2
    assert "hbm_copy_TBps must be a number, got '4.2'" in capsys.readouterr().err
    assert not (tmp_path / "a.yaml").exists()


def test_the_h200_run_of_2026_12_02_reproduces_every_ceiling_but_ffma() -> None:
    # The device run with the L2 copy and the vendor GEMMs: 14 keys, all measured; FFMA (per second and per clock)
    # is the only pair outside 10% (our loop issues 126.7 FFMA/clk/SM of 128 lanes, the reference's 102.9).
    measured = json.loads((H200 / "calibrate_2026-12-02" / "calibration.json").read_text())
    rows = compare_ceilings(measured, committed()[1])
    outside = [row.key for row in rows if not row.within()]
    assert outside == ["fp32_fma_per_s", "fp32_fma_per_sm_per_clk_at_1980MHz"]
    l2_copy = next(row for row in rows if row.key == "l2_copy_TBps")
    variants = measured["benchmarks"]["l2_copy"]["variants"]
    per_call = next(v for v in variants if v["variant"] == "cupy.copyto, one copy per call")
    assert l2_copy.measured == per_call["per_s"] / 1e12

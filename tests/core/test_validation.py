"""`simgpu validate`: predictions for measured configurations, at the measured clock, scored by MAPE."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import pytest

from simgpu import Problem, load_arch, simulate
from simgpu.cli import main
from simgpu.validation import compare, fast_error, mape, predict, read_cases, what_if_table

ROOT = Path(__file__).resolve().parents[2]
HEADER = (
    "gpu_name,sm_clock_mhz,max_sm_clock_mhz,driver,kernel,pass,batch,heads,seqlen,headdim,causal,dtype,"
    "block_m,block_n,warps,stages,time_ms_median\n"
)


def measured_csv(tmp_path: Path) -> Path:
    path = tmp_path / "kernels.csv"
    path.write_text(
        HEADER
        + "NVIDIA H200,1800,1980,x,v2,fwd,1,2,256,64,False,bf16,128,128,4,2,0.050\n"
        + "NVIDIA H200,1980,1980,x,v2,bwd,1,2,256,64,True,bf16,64,128,8,2,0.080\n"
        + "NVIDIA H200,1980,1980,x,standard_qk,fwd,1,2,256,64,False,bf16,128,128,4,2,0.010\n"
    )
    return path


def test_cases_keep_the_measured_clock_and_tiles(tmp_path: Path) -> None:
    cases = read_cases(measured_csv(tmp_path), "h200")
    assert [(c.algo, c.problem.pass_, c.clock_mhz) for c in cases] == [("v2", "fwd", 1800.0), ("v2", "bwd", 1980.0)]
    assert not cases[0].clock_is_effective
    # Our kernel's backward is the schedule's "ring" main kernel (`KERNEL_OPTIONS`), not its default, FA2's own.
    assert cases[1].options == {"block_m": 64, "block_n": 128, "warps": 8, "stages": 2, "bwd_layout": "ring"}


def test_prediction_takes_the_measured_clock_as_its_ceiling(tmp_path: Path) -> None:
    (first, _) = compare(read_cases(measured_csv(tmp_path), "h200"))
    fixed = load_arch("h200", {"clock_hz": 1.8e9})
    options = {"block_m": 128, "block_n": 128, "warps": 4, "stages": 2}
    expected = simulate(fixed, "v2", Problem(1, 2, 256, 64), options, mode="exact")
    assert first.predicted_ms == expected.time_s * 1e3
    assert first.rel_error == (first.predicted_ms - 0.050) / 0.050


def test_mape_is_the_mean_absolute_relative_error_per_algorithm_and_pass(tmp_path: Path) -> None:
    comparisons = compare(read_cases(measured_csv(tmp_path), "h200"))
    assert mape(comparisons) == {
        ("v2", "bwd"): abs(comparisons[1].rel_error),
        ("v2", "fwd"): abs(comparisons[0].rel_error),
    }


def test_a_what_if_table_gives_each_overrides_fast_mode_errors(tmp_path: Path) -> None:
    # The forward case was measured at 1800 MHz: fast mode predicts it on the H200 file at that clock.
    cases = read_cases(measured_csv(tmp_path), "h200")
    expected_ms = simulate(load_arch("h200", {"clock_hz": 1.8e9}), "v2", cases[0].problem, cases[0].options).time_s
    slow_hbm = {"hbm.bandwidth_bytes_per_s": 1e11}
    fwd, bwd = (fast_error(case) for case in cases)
    slow_fwd, slow_bwd = (fast_error(case, slow_hbm) for case in cases)
    assert fwd == (expected_ms * 1e3 - 0.050) / 0.050
    assert slow_fwd > fwd and slow_bwd > bwd

    def row(error: float) -> str:
        return f"MAPE {100 * abs(error):5.1f}%, mean {100 * error:+5.1f}%"

    assert what_if_table(cases, {"as it is": {}, "slow HBM": slow_hbm}).splitlines() == [
        "as it is",
        f"  v2       bwd  {row(bwd)}",
        f"  v2       fwd  {row(fwd)}",
        "slow HBM",
        f"  v2       bwd  {row(slow_bwd)}",
        f"  v2       fwd  {row(slow_fwd)}",
    ]


def test_cli_writes_csv_and_scatter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["validate", "--measured", str(measured_csv(tmp_path)), "--out", str(tmp_path / "report")])
    out = capsys.readouterr().out
    assert "v2        fwd  MAPE" in out
    assert (tmp_path / "report" / "validation.csv").stat().st_size > 0
    assert (tmp_path / "report" / "validation.png").stat().st_size > 0


def test_fast_validation_predicts_every_case_in_fast_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = read_cases(measured_csv(tmp_path), "h200")
    forward, backward = compare(cases, fast=True)
    assert (forward.mode, backward.mode) == ("fast", "fast")
    assert forward.rel_error == fast_error(cases[0])
    main(["validate", "--fast", "--measured", str(measured_csv(tmp_path)), "--out", str(tmp_path / "report")])
    assert "v2        fwd  MAPE" in capsys.readouterr().out
    with (tmp_path / "report" / "validation.csv").open() as handle:
        assert [row["mode"] for row in csv.DictReader(handle)] == ["fast", "fast"]


def test_without_a_gpu_or_measurements_it_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if importlib.util.find_spec("cupy") is not None:
        pytest.skip("a GPU stack is installed here")
    with pytest.raises(SystemExit) as done:
        main(["validate", "--out", str(tmp_path)])
    assert done.value.code == 2
    assert "no GPU to measure on" in capsys.readouterr().err


def test_calibrate_writes_a_loadable_arch_from_committed_measurements(tmp_path: Path) -> None:
    path = tmp_path / "local.yaml"
    main(["calibrate", "--from-json", str(ROOT / "validation" / "h200" / "calibration_h200.json"), "--out", str(path)])
    arch = load_arch(path)
    assert arch.l2.bandwidth_bytes_per_s == pytest.approx(9.162e12)
    assert arch.sms == 132


def test_v3_rows_carry_their_switches_kernel_options_and_probe_clock(tmp_path: Path) -> None:
    path = tmp_path / "v3.csv"
    path.write_text(
        HEADER.rstrip("\n")
        + ",pingpong,intra_wg_overlap,probe_clock_mhz\n"
        + "NVIDIA H200,1980,1980,x,v3,fwd,1,2,256,64,True,bf16,128,128,12,2,0.050,False,True,1850\n"
    )
    (case,) = read_cases(path, "h200")
    assert case.options == {
        "block_m": 128,
        "block_n": 128,
        "stages": 2,
        "pingpong": False,
        "intra_wg_overlap": True,
        "persistent": False,
        "epilogue": "registers",
    }
    assert (case.clock_mhz, case.clock_is_effective) == (1850.0, True)
    (comparison,) = compare([case])
    fixed = load_arch("h200", {"clock_hz": 1.85e9, "power": None})
    assert comparison.predicted_ms == simulate(fixed, "v3", case.problem, case.options, mode="exact").time_s * 1e3


def test_cli_validates_v3_rows_against_the_v3_schedule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--algos v3` on a CSV of cupy_kernels.v3.selfcheck: each row is simulated with its own switches, the
    kernel's non-persistent launch and the probe clock, and scored; rows of other kernels are left out."""
    path = tmp_path / "v3.csv"
    path.write_text(
        HEADER.rstrip("\n")
        + ",pingpong,intra_wg_overlap,probe_clock_mhz\n"
        + "NVIDIA H200,1980,1980,x,v3,fwd,1,2,256,64,False,bf16,128,128,12,2,0.020,True,True,1900\n"
        + "NVIDIA H200,1980,1980,x,v3,fwd,1,2,256,64,False,bf16,128,128,12,2,0.025,False,True,1950\n"
        + "NVIDIA H200,1980,1980,x,v3,fwd,1,2,256,128,True,bf16,128,128,12,2,0.010,True,False,1980\n"
        + "NVIDIA H200,1980,1980,x,v2,fwd,1,2,256,64,False,bf16,128,128,4,2,0.050,,,\n"
    )
    main(["validate", "--measured", str(path), "--algos", "v3", "--out", str(tmp_path / "report")])
    with (tmp_path / "report" / "validation.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["algo"], r["headdim"], r["causal"], r["clock_mhz"]) for r in rows] == [
        ("v3", "64", "False", "1900.0"),
        ("v3", "64", "False", "1950.0"),
        ("v3", "128", "True", "1980.0"),
    ]
    assert list(rows[0]) == [
        "algo", "batch", "heads", "seqlen", "headdim", "causal", "options", "clock_mhz", "measured_ms",
        "predicted_ms", "rel_error", "measured_tflops", "predicted_tflops", "predicted_hbm_bytes", "bottleneck",
        "mode", "pass",
    ]  # fmt: skip
    assert {row["mode"] for row in rows} == {"exact"}
    assert rows[1]["options"] == (
        "block_m=128 block_n=128 stages=2 pingpong=False intra_wg_overlap=True persistent=False epilogue=registers"
    )
    # (measured ms, pingpong, intra_wg_overlap, clock) of each row above
    measured = [(0.020, True, True, 1.9e9), (0.025, False, True, 1.95e9), (0.010, True, False, 1.98e9)]
    errors = []
    for row, (measured_ms, pingpong, overlap, clock_hz) in zip(rows, measured, strict=True):
        options = {"block_m": 128, "block_n": 128, "stages": 2, "pingpong": pingpong, "intra_wg_overlap": overlap,
                   "persistent": False, "epilogue": "registers"}  # fmt: skip
        problem = Problem(1, 2, 256, int(row["headdim"]), causal=row["causal"] == "True")
        expected = simulate(
            load_arch("h200", {"clock_hz": clock_hz, "power": None}), "v3", problem, options, mode="exact"
        )
        predicted_ms = float(row["predicted_ms"])
        assert predicted_ms == expected.time_s * 1e3
        assert float(row["rel_error"]) == (predicted_ms - measured_ms) / measured_ms
        assert float(row["measured_tflops"]) == pytest.approx(problem.flops / (measured_ms * 1e-3) / 1e12)
        errors.append(abs(float(row["rel_error"])))
    assert f"v3        fwd  MAPE {100 * sum(errors) / 3:6.1f}%  over 3 configurations" in capsys.readouterr().out
    assert (tmp_path / "report" / "validation.png").stat().st_size > 0


def test_a_configuration_over_exact_modes_budget_is_predicted_in_fast_mode_and_says_so(tmp_path: Path) -> None:
    (exact_case, _) = read_cases(measured_csv(tmp_path), "h200")
    assert predict(exact_case).mode == "exact"
    over = predict(exact_case, event_budget=10)
    assert over.mode == "fast"
    fixed = load_arch("h200", {"clock_hz": 1.8e9})
    options = {"block_m": 128, "block_n": 128, "warps": 4, "stages": 2}
    assert over.predicted_ms == simulate(fixed, "v2", Problem(1, 2, 256, 64), options, mode="fast").time_s * 1e3


def test_our_v1_kernel_is_predicted_with_its_own_loop(tmp_path: Path) -> None:
    path = tmp_path / "v1.csv"
    path.write_text(HEADER + "NVIDIA H200,1980,1980,x,v1,fwd,1,2,256,64,False,bf16,64,64,4,1,0.050\n")
    (case,) = read_cases(path, "h200")
    assert case.options == {"block_m": 64, "block_n": 64, "warps": 4, "variant": "algorithm1"}

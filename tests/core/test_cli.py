"""The command line: tables and JSON on success, one line and exit status 2 on any user error."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

import simgpu.api
from simgpu.cli import main
from simgpu.result import JSON_KEYS

SMALL_GEMM = ["run", "--arch", "h100", "--algo", "gemm", "--m", "512", "--n", "512", "--k", "512"]
V4_ONE_HEAD = ["run", "--arch", "b200", "--algo", "v4", "--batch", "1", "--heads", "1"]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(args)
        status = 0
    except SystemExit as done:
        status = int(done.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_archs_lists_the_shipped_files(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["archs", "--json"], capsys)
    assert status == 0
    assert [row["name"] for row in json.loads(out)] == ["a100", "b200", "h100", "h200", "h200_sustained"]


def test_run_json_has_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run([*SMALL_GEMM, "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    assert set(JSON_KEYS) <= set(data)
    assert data["flops"] == 2 * 512**3
    assert data["mode"] == "fast"


def test_run_writes_a_chrome_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.json"
    status, _, _ = run([*SMALL_GEMM, "--trace", str(path)], capsys)
    assert status == 0
    events = json.loads(path.read_text())["traceEvents"]
    tracks = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert {"unit tensor", "unit hbm", "unit l2"} <= tracks
    assert any(track.endswith("producer") for track in tracks)


def test_run_per_tile_json_has_the_tile_and_the_work_item(capsys: pytest.CaptureFixture[str]) -> None:
    # The first work item: two 128-row Q tiles against 32 key blocks; a main-loop tile is one key block of both.
    status, out, _ = run([*V4_ONE_HEAD, "--seqlen", "4096", "--per-tile", "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    assert set(JSON_KEYS) <= set(data)
    assert data["mode"] == "exact, per tile"
    tile = 4 * 256 * 128 * 128 / 8192  # B200: 8192 FLOP per clock per SM
    assert data["unit_cycles"]["tensor"] == tile
    assert data["work_item_unit_cycles"]["tensor"] == 4096 // 128 * tile


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--arch", "h9", "--algo", "gemm"], "unknown arch 'h9'"),
        (["run", "--arch", "h100", "--algo", "nope"], "unknown algorithm 'nope'"),
        (["run", "--arch", "h100", "--algo", "gemm", "--bogus"], "No such option"),
        (["run", "--arch", "h100", "--algo", "gemm", "--set", "hbm.foo=1"], "hbm.foo: no such key"),
        (["run", "--arch", "a100", "--algo", "gemm", "--dtype", "fp8"], "dtype fp8 is not supported"),
        (["run", "--arch", "h100", "--algo", "gemm", "--option", "block_q=1"], "has no option block_q"),
        (["run", "--arch", "h100", "--algo", "gemm", "--option", "stages=0"], "stages must be a positive"),
        (["run", "--arch", "h100", "--algo", "gemm", "--m", "0"], "m must be a positive integer"),
        (["run", "--arch", "h100", "--algo", "gemm", "--option", "stages=100"], "shared memory per CTA"),
        ([*SMALL_GEMM, "--trace", "/nonexistent/dir/t.json"], "cannot write trace"),
        (["run", "--arch", "b200", "--algo", "v4", "--seqlens", "512,x"], "expected comma-separated integers"),
        (["run", "--arch", "b200", "--algo", "v4", "--seqlens", "512,0"], "each of seqlens must be a positive"),
        (["run", "--arch", "b200", "--algo", "v4", "--seqlens", "512", "--seqlen-k", "256"], "leave out --seqlen-k"),
        (["run", "--arch", "h100", "--algo", "v3", "--seqlens", "512,256"], "does not model varlen batches"),
        ([*V4_ONE_HEAD, "--seqlen", "128", "--per-tile"], "in its shortest: use a longer sequence"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(args, capsys)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("simgpu: error: ")
    assert message in err
    assert "Traceback" not in err + out


def test_an_internal_error_is_one_line_and_exit_3(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = simgpu.api._run
    monkeypatch.setattr(simgpu.api, "_run", lambda *args: replace(real(*args), cycles=1.0))  # below the roofline
    status, out, err = run(SMALL_GEMM, capsys)
    assert (status, out) == (3, "")
    assert err.startswith("simgpu: error: internal error: gemm on NVIDIA H100 SXM5: 1 cycles is below the roofline")
    assert err.count("\n") == 1


def test_run_takes_a_varlen_batch(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "--arch", "b200", "--algo", "v4", "--seqlens", "256,640", "--heads", "2", "--json"]
    status, out, _ = run([*args, "--option", "rescale_fraction=0"], capsys)
    assert status == 0
    problem = json.loads(out)["problem"]
    assert (problem["batch"], problem["seqlen_q"], problem["seqlens"]) == (2, 640, [256, 640])
    assert json.loads(out)["flops"] == 4 * 2 * 128 * (256**2 + 640**2)

"""The bad-input corpus (tests/bad_inputs/, issue 10) through the command line.

Every entry of `tests/bad_inputs/cases.yaml` must exit 2 within 5 s with exactly one line on stderr,
`simgpu: error: ...`, naming the file, key path or option at fault, and no traceback. Every entry runs through
`simgpu.cli.main` in-process (under a 5 s alarm); a sample with one entry per kind of mistake also runs as
`python -m simgpu ...` in a fresh process (interpreter start-up costs ~0.7 s a run, too much for ~150 entries;
`benchmarks/bad_inputs.py` runs and times them all that way). Every bad arch file must also raise `ArchError`,
and every bad sweep spec `SweepSpecError`, from the Python API.
"""

from __future__ import annotations

import contextlib
import csv
import os
import shlex
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from simgpu import cli
from simgpu.arch import load_arch
from simgpu.errors import ArchError, OptionError
from simgpu.sweep import SweepSpecError, load_points
from tests.bad_inputs.corpus import CORPUS, LIMIT_S, REPO, SAMPLE, SWEEPS, Case, faults, load_cases, run_fresh, spec

CASES = load_cases()
SPEC = spec()


def params(names: tuple[str, ...] | None = None) -> list[object]:
    chosen = [c for c in CASES if names is None or c.name in names]
    assert names is None or len(chosen) == len(names), "a sampled case is missing from cases.yaml"
    return [
        pytest.param(c, id=c.name, marks=[pytest.mark.xfail(reason=c.xfail, strict=True)] if c.xfail else [])
        for c in chosen
    ]


def test_cases_list_every_file_of_the_corpus() -> None:
    loader = {"corpus.py", "cases.yaml"}
    assert set(SPEC["arch_files"]) == {p.name for p in CORPUS.iterdir() if p.is_file() and p.name not in loader}
    assert set(SPEC["sweep_specs"]) == {p.name for p in SWEEPS.iterdir() if p.is_file()}
    assert len({c.name for c in CASES}) == len(CASES), "case names must be unique"


@pytest.mark.parametrize("case", params(SAMPLE))
def test_bad_input_exits_2_with_one_line_in_a_fresh_process(case: Case) -> None:
    done = run_fresh(case)
    if done.status is None:
        pytest.fail(f"{case.name}: no answer within {LIMIT_S} s: simgpu {shlex.join(case.argv)}")
    assert not faults(case, done.status, done.stdout, done.stderr)


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("case", params())
def test_bad_input_exits_2_with_one_line_in_process(
    case: Case, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    with time_limit(LIMIT_S), pytest.raises(SystemExit) as done:
        cli.main(list(case.argv))
    status: int | None = done.value.code if isinstance(done.value.code, int) else None
    out, err = capsys.readouterr()
    assert not faults(case, status, out, err)


@pytest.mark.parametrize("file", sorted(SPEC["arch_files"]))
def test_bad_arch_file_raises_arch_error_from_the_api(file: str) -> None:
    with pytest.raises(ArchError) as raised:
        load_arch(CORPUS / file)
    message = str(raised.value)
    assert "\n" not in message
    assert f"bad_inputs/{file}" in message  # the culprit, or the child that inherited it


@pytest.mark.parametrize("file", sorted(SPEC["sweep_specs"]))
def test_bad_sweep_spec_raises_sweep_spec_error_from_the_api(file: str) -> None:
    with pytest.raises(SweepSpecError) as raised:
        load_points(SWEEPS / file)
    assert "\n" not in str(raised.value)
    assert str(raised.value).startswith(f"{SWEEPS / file}: ")


def test_an_unwritable_folder_is_refused_before_simulating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Root ignores permission bits, so `os.access` stands in for a read-only folder."""
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(OptionError, match=r"cannot write trace to .*t\.json \(--trace\): permission denied"):
        cli.check_writable(str(tmp_path / "t.json"), "--trace", "trace")
    with pytest.raises(SystemExit) as done:
        cli.main(["run", "--arch", "h100", "--algo", "v2", "--trace", str(tmp_path / "t.json")])
    assert done.value.code == 2
    assert "permission denied" in capsys.readouterr().err
    assert not (tmp_path / "t.json").exists()


def test_the_timing_benchmark_runs_its_quick_entries(tmp_path: Path) -> None:
    from benchmarks.bad_inputs import QUICK, main

    out = tmp_path / "timing.csv"
    assert main(["--quick", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [row["name"] for row in rows] == [c.name for c in CASES if c.name in QUICK]
    assert all(row["follows_rule"] == row["within_limit"] == "True" and row["exit_status"] == "2" for row in rows)

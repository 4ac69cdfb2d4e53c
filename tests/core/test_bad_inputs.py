"""The bad-input corpus (tests/bad_inputs/, issue 10) through the command line.

Every entry of `tests/bad_inputs/cases.yaml` must exit 2 within 5 s with exactly one line on stderr,
`simgpu: error: ...`, naming the file, key path or option at fault, and no traceback. Every entry runs through
`simgpu.cli.main` in-process (under a 5 s alarm); a sample with one entry per kind of mistake also runs as
`python -m simgpu ...` in a fresh process (interpreter start-up costs ~0.7 s a run, too much for ~100 entries).
Every bad arch file must also raise `ArchError` from the Python API.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import pytest
import yaml

from simgpu import cli
from simgpu.arch import load_arch
from simgpu.errors import ArchError, OptionError

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "bad_inputs"
CASES_FILE = CORPUS / "cases.yaml"
TIMEOUT_S = 5.0
# The problem every bad arch file is asked about: small, so that a file that wrongly loads fails fast.
ARCH_FILE_RUN = ("--algo", "v2", "--heads", "1", "--seqlen", "128")


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]
    expect: tuple[str, ...]
    xfail: str | None = None


def _fill(text: str, file: str = "") -> str:
    return text.replace("{file}", file).replace("{corpus}", str(CORPUS)).replace("{repo}", str(REPO))


def load_cases() -> list[Case]:
    spec = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))
    cases = []
    for file, expect in spec["arch_files"].items():
        path = f"tests/bad_inputs/{file}"  # as a user types it, relative to the repository root (the cwd)
        argv: tuple[str, ...] = ("run", "--arch", path, *ARCH_FILE_RUN)
        cases.append(Case(f"arch:{file}", argv, tuple(_fill(e, path) for e in expect)))
    for run in spec["runs"]:
        args = run["args"]
        words = shlex.split(args) if isinstance(args, str) else list(args)
        argv = tuple(_fill(word) for word in words)
        cases.append(Case(run["name"], argv, tuple(_fill(e) for e in run["expect"]), run.get("xfail")))
    return cases


CASES = load_cases()
# One entry per kind of mistake, run in a fresh process as well.
SUBPROCESS_SAMPLE = {
    "arch:unknown_nested_key.yaml",
    "arch:missing_nested_key.yaml",
    "arch:wrong_type_string.yaml",
    "arch:nan_value.yaml",
    "arch:smem_per_cta_above_sm.yaml",
    "arch:inherit_cycle_a.yaml",
    "arch:syntax_tab_indent.yaml",
    "arch:unsafe_tag.yaml",
    "arch:binary.yaml",
    "zero_batch",
    "fp8_on_a100",
    "v3_on_a100",
    "option_unknown_v2",
    "tile_exceeds_registers_v2",
    "trace_under_a_file",
    "calibrate_out_under_a_file",
}


def params(names: set[str] | None = None) -> list[object]:
    chosen = [c for c in CASES if names is None or c.name in names]
    assert names is None or len(chosen) == len(names), "a sampled case is missing from cases.yaml"
    return [
        pytest.param(c, id=c.name, marks=[pytest.mark.xfail(reason=c.xfail, strict=True)] if c.xfail else [])
        for c in chosen
    ]


def check_failure(case: Case, status: int | None, out: str, err: str) -> None:
    """Exit status 2, one stderr line `simgpu: error: ...` containing every expected string, no traceback."""
    assert "Traceback" not in out + err, f"{case.name}: traceback\n{err}"
    assert status == 2, f"{case.name}: exit status {status}, stderr {err!r}"
    assert out == "", f"{case.name}: printed on stdout: {out!r}"
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), f"{case.name}: stderr is not exactly one line: {err!r}"
    assert lines[0].startswith("simgpu: error: "), lines[0]
    missing = [e for e in case.expect if e not in lines[0]]
    assert not missing, f"{case.name}: {missing} not in {lines[0]!r}"


def test_cases_list_every_file_of_the_corpus() -> None:
    listed = set(yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))["arch_files"])
    present = {p.name for p in CORPUS.iterdir() if p.is_file() and p != CASES_FILE}
    assert listed == present
    assert len({c.name for c in CASES}) == len(CASES), "case names must be unique"


@pytest.mark.parametrize("case", params(SUBPROCESS_SAMPLE))
def test_bad_input_exits_2_with_one_line_in_a_fresh_process(case: Case) -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "simgpu", *case.argv],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case.name}: no answer within {TIMEOUT_S} s: simgpu {shlex.join(case.argv)}")
    check_failure(case, done.returncode, done.stdout, done.stderr)


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
    with time_limit(TIMEOUT_S), pytest.raises(SystemExit) as done:
        cli.main(list(case.argv))
    status: int | None = done.value.code if isinstance(done.value.code, int) else None
    out, err = capsys.readouterr()
    check_failure(case, status, out, err)


@pytest.mark.parametrize("file", sorted(yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))["arch_files"]))
def test_bad_arch_file_raises_arch_error_from_the_api(file: str) -> None:
    with pytest.raises(ArchError) as raised:
        load_arch(CORPUS / file)
    message = str(raised.value)
    assert "\n" not in message
    assert f"bad_inputs/{file}" in message  # the culprit, or the child that inherited it


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

"""The bad-input corpus of issue 10 as cases: loaded from `cases.yaml`, run as the command line, judged.

Shared by the tests (`tests/core/test_bad_inputs.py`) and the timing benchmark (`benchmarks/bad_inputs.py`), so
both run the same argument lists and apply the same rule: exit status 2, exactly one line on stderr starting with
`simgpu: error: ` and containing every expected string, nothing on stdout, no traceback.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "bad_inputs"
SWEEPS = CORPUS / "sweeps"
CASES_FILE = CORPUS / "cases.yaml"
LIMIT_S = 5.0  # the bound on the time to an answer
USAGE_ERROR = 2
# The problem every bad arch file is asked about: small, so that a file that wrongly loads fails fast.
ARCH_FILE_RUN = ("--algo", "v2", "--heads", "1", "--seqlen", "128")
# Where a bad sweep spec would write: under a file, so a spec wrongly accepted fails with another message and
# writes nothing, and no point runs.
SWEEP_OUT = ("--out", "tests/bad_inputs/empty.yaml/sweep.csv")
# One entry per kind of mistake: run in a fresh process by the tests (and by the benchmark's --quick).
SAMPLE = (
    "arch:unknown_nested_key.yaml",
    "arch:missing_nested_key.yaml",
    "arch:wrong_type_string.yaml",
    "arch:nan_value.yaml",
    "arch:smem_per_cta_above_sm.yaml",
    "arch:inherit_cycle_a.yaml",
    "arch:syntax_tab_indent.yaml",
    "arch:unsafe_tag.yaml",
    "arch:binary.yaml",
    "sweep:unknown_key.yaml",
    "zero_batch",
    "fp8_on_a100",
    "v3_on_a100",
    "option_unknown_v2",
    "tile_exceeds_registers_v2",
    "problem_exceeds_hbm",
    "exact_over_event_budget",
    "trace_under_a_file",
    "calibrate_out_under_a_file",
)


@dataclass(frozen=True)
class Case:
    """One bad input: the `simgpu` arguments (run from the repository root) and the strings its error must hold."""

    name: str
    argv: tuple[str, ...]
    expect: tuple[str, ...]
    xfail: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What one run of `simgpu` did; `status` is None when it was stopped at the time limit."""

    status: int | None
    stdout: str
    stderr: str
    wall_s: float


def _fill(text: str, file: str = "") -> str:
    return text.replace("{file}", file).replace("{corpus}", str(CORPUS)).replace("{repo}", str(REPO))


def spec() -> dict[str, Any]:
    """`cases.yaml` as loaded: `arch_files` and `sweep_specs` (file -> expected strings) and `runs`."""
    loaded: dict[str, Any] = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))
    return loaded


def load_cases() -> tuple[Case, ...]:
    """Every case of `cases.yaml`: arch files, sweep specs, then the listed runs, in file order."""
    table = spec()
    cases = []
    for file, expect in table["arch_files"].items():
        path = f"tests/bad_inputs/{file}"  # as a user types it, relative to the repository root (the cwd)
        argv: tuple[str, ...] = ("run", "--arch", path, *ARCH_FILE_RUN)
        cases.append(Case(f"arch:{file}", argv, tuple(_fill(e, path) for e in expect)))
    for file, expect in table["sweep_specs"].items():
        path = f"tests/bad_inputs/sweeps/{file}"
        cases.append(Case(f"sweep:{file}", ("sweep", path, *SWEEP_OUT), tuple(_fill(e, path) for e in expect)))
    for run in table["runs"]:
        args = run["args"]
        words = shlex.split(args) if isinstance(args, str) else list(args)
        argv = tuple(_fill(word) for word in words)
        cases.append(Case(run["name"], argv, tuple(_fill(e) for e in run["expect"]), run.get("xfail")))
    return tuple(cases)


def faults(case: Case, status: int | None, stdout: str, stderr: str) -> tuple[str, ...]:
    """How a run breaks the rule (empty when it follows it)."""
    found = []
    if "Traceback" in stdout + stderr:
        found.append("traceback")
    if status != USAGE_ERROR:
        found.append(f"exit status {status}")
    if stdout:
        found.append(f"printed on stdout: {stdout[:200]!r}")
    lines = stderr.splitlines()
    if len(lines) != 1 or not stderr.endswith("\n"):
        found.append(f"stderr is not exactly one line: {stderr[:400]!r}")
    elif not lines[0].startswith("simgpu: error: "):
        found.append(f"not a `simgpu: error:` line: {lines[0]!r}")
    missing = [e for e in case.expect if e not in stderr]
    if missing:
        found.append(f"{missing} not in {stderr.strip()!r}")
    return tuple(found)


def run_fresh(case: Case, timeout_s: float = LIMIT_S) -> Outcome:
    """`python -m simgpu ARGS` in a new interpreter from the repository root, stopped after `timeout_s`."""
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "simgpu", *case.argv],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as stopped:
        out, err = (
            text.decode(errors="replace") if isinstance(text, bytes) else text or ""
            for text in (stopped.stdout, stopped.stderr)
        )
        return Outcome(None, out, err, time.perf_counter() - started)
    return Outcome(done.returncode, done.stdout, done.stderr, time.perf_counter() - started)

"""`simgpu sweep`: a YAML grid run with a progress bar, resumable from its cache, identical under every executor.

The big story is a 512-point grid of tiny GEMMs (about 6 s on one core): computed once as the reference, then
interrupted and resumed, run on 2 processes and on a Dask LocalCluster; every CSV must equal the reference byte for
byte. A real `simgpu sweep` killed with SIGKILL leaves only valid cache entries, equal to the reference rows.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from simgpu.cli import cli, main
from simgpu.sweep import Point, execute, load_points, make_table, plan_sweep, prepare_output, write_table
from simgpu.sweep_cli import sweep_command

SIZES = [192, 256, 320, 384, 448, 512, 576, 640]
GEMM_GRID = {
    "archs": ["h100"],
    "algos": ["gemm"],
    "problem": {"m": SIZES, "n": SIZES, "k": [64, 128, 192, 256, 320, 384, 448, 512]},
}
TINY_ATTENTION = {"batch": [1], "heads": [2], "seqlen": [256], "headdim": [64]}


@pytest.fixture(autouse=True)
def sweep_registered() -> Iterator[None]:
    """Until simgpu.cli registers the command itself, register it for the test and take it away afterwards."""
    added = "sweep" not in cli.commands
    if added:
        cli.add_command(sweep_command, "sweep")
    yield
    if added:
        del cli.commands["sweep"]


def write_spec(directory: Path, spec: object, name: str = "spec.yaml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(yaml.safe_dump(spec, sort_keys=False) if not isinstance(spec, str) else spec)
    return path


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(args)
        status = 0
    except SystemExit as done:
        status = int(done.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def sweep_in_process(spec: Path, out: Path, executor: str = "local", jobs: int = 1) -> bytes:
    paths = prepare_output(out)
    write_table(execute(plan_sweep(load_points(spec), paths.cache_dir), executor, jobs), paths)
    return out.read_bytes()


@pytest.fixture(scope="module")
def gemm_spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_spec(tmp_path_factory.mktemp("spec"), GEMM_GRID)


@pytest.fixture(scope="module")
def reference_path(gemm_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("reference") / "ref.csv"
    sweep_in_process(gemm_spec, path)
    return path


@pytest.fixture(scope="module")
def reference_csv(reference_path: Path) -> bytes:
    return reference_path.read_bytes()


# ---------------------------------------------------------------------------------------------------------------------
# The 512-point story


def test_reference_has_one_row_per_point_in_spec_order(reference_csv: bytes, gemm_spec: Path) -> None:
    lines = reference_csv.decode().splitlines()
    header = lines[0].split(",")
    assert len(lines) == 1 + 8 * 8 * 8
    assert header[:9] == ["point", "config_hash", "arch", "arch_sha256", "algo", "m", "n", "k", "dtype"]
    assert {"error", "cycles", "tflops", "hbm_read_bytes", "bottleneck", "busy_tensor", "busy_hbm"} <= set(header)
    assert "sim_wall_s" not in header  # wall clock: would break bit-identical tables
    first, last = (dict(zip(header, line.split(","), strict=True)) for line in (lines[1], lines[-1]))
    assert (first["point"], first["m"], first["n"], first["k"]) == ("0", "192", "192", "64")
    assert (last["point"], last["m"], last["n"], last["k"]) == ("511", "640", "640", "512")  # k varies fastest
    assert first["flops"] == str(2.0 * 192 * 192 * 64)
    assert first["error"] == ""


def test_interrupted_sweep_resumes_without_recomputing(
    gemm_spec: Path, reference_csv: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.csv"
    paths = prepare_output(out)
    finished: list[Point] = []

    def crash_after_200(point: Point) -> None:
        finished.append(point)
        if len(finished) == 200:
            raise RuntimeError("simulated crash")

    with pytest.raises(RuntimeError, match="simulated crash"):
        execute(plan_sweep(load_points(gemm_spec), paths.cache_dir), progress=crash_after_200)
    assert not out.exists()
    plan = plan_sweep(load_points(gemm_spec), paths.cache_dir)
    assert (len(plan.cached), len(plan.todo), plan.corrupt) == (200, 312, ())
    assert sorted(plan.cached) == [p.index for p in finished]

    status, stdout, stderr = run(["sweep", str(gemm_spec), "--out", str(out), "-j", "2"], capsys)
    assert status == 0, stderr
    assert "512 points (312 computed, 200 from cache, 0 failed)" in stdout
    assert "512/512" in stderr  # the progress bar, started at 200 so that its ETA counts computed points only
    assert out.read_bytes() == reference_csv
    jsonl = [json.loads(line) for line in out.with_suffix(".jsonl").read_text().splitlines()]
    assert [row["point"] for row in jsonl] == list(range(512))

    status, stdout, _ = run(["sweep", str(gemm_spec), "--out", str(out)], capsys)
    assert "(0 computed, 512 from cache, 0 failed)" in stdout
    assert out.read_bytes() == reference_csv


def start_sweep(spec: Path, out: Path) -> subprocess.Popen[str]:
    """`simgpu sweep -j 2` in its own process group (a signal to the group reaches its pool workers, as Ctrl-C does)."""
    script = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "  # even if started ignoring it
        "from simgpu.cli import cli, main; from simgpu.sweep_cli import sweep_command; "
        "cli.add_command(sweep_command, 'sweep'); main(sys.argv[1:])"
    )
    return subprocess.Popen(
        [sys.executable, "-c", script, "sweep", str(spec), "--out", str(out), "-j", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def signal_after_entries(process: subprocess.Popen[str], cache: Path, entries: int, signum: int) -> tuple[str, str]:
    try:
        deadline = time.monotonic() + 30
        while len(list(cache.glob("*.json"))) < entries and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        os.killpg(process.pid, signum)
    return process.communicate(timeout=30)


def test_killed_sweep_leaves_only_valid_entries(gemm_spec: Path, reference_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "killed.csv"
    signal_after_entries(start_sweep(gemm_spec, out), Path(f"{out}.cache"), 40, signal.SIGKILL)
    points = load_points(gemm_spec)
    plan = plan_sweep(points, Path(f"{out}.cache"))
    assert plan.corrupt == ()
    assert 40 <= len(plan.cached) < 512
    # What another process cached is what this one computes (the resume itself is the test above).
    reference = [json.loads(line) for line in reference_path.with_suffix(".jsonl").read_text().splitlines()]
    resumed = make_table([points[i] for i in sorted(plan.cached)], plan.cached)
    assert list(resumed.rows) == [reference[i] for i in sorted(plan.cached)]


def test_ctrl_c_stops_with_one_line_and_status_130(gemm_spec: Path, tmp_path: Path) -> None:
    out = tmp_path / "interrupted.csv"
    process = start_sweep(gemm_spec, out)
    _, stderr = signal_after_entries(process, Path(f"{out}.cache"), 20, signal.SIGINT)
    assert process.returncode == 130
    assert "Traceback" not in stderr
    last = stderr.replace("\r", "\n").splitlines()[-1]
    cached = len(plan_sweep(load_points(gemm_spec), Path(f"{out}.cache")).cached)
    assert last == (
        f"simgpu: interrupted: {cached} of 512 points are cached in {out}.cache; run the same command again to resume"
    )
    assert not out.exists()


def test_two_processes_give_the_same_csv(gemm_spec: Path, reference_csv: bytes, tmp_path: Path) -> None:
    assert sweep_in_process(gemm_spec, tmp_path / "j2.csv", jobs=2) == reference_csv


def test_dask_local_cluster_gives_the_same_csv(gemm_spec: Path, reference_csv: bytes, tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed")
    assert sweep_in_process(gemm_spec, tmp_path / "dask.csv", executor="dask", jobs=2) == reference_csv


# ---------------------------------------------------------------------------------------------------------------------
# Points, columns and failed points


def test_options_apply_to_the_algorithms_that_declare_them(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        {
            "archs": ["h100"],
            "algos": ["gemm", "v2"],
            "problem": {**TINY_ATTENTION, "m": [256], "n": [256], "k": [256]},
            "options": {"block_k": [32, 64], "block_n": [64]},  # block_k: gemm only; block_n: both
            "set": {"mufu.ex2_per_cycle": [16, 32]},
        },
    )
    points = load_points(spec)
    assert [(p.algo, dict(p.options), dict(p.overrides)["mufu.ex2_per_cycle"]) for p in points] == [
        ("gemm", {"block_k": 32, "block_n": 64}, 16),
        ("gemm", {"block_k": 64, "block_n": 64}, 16),
        ("v2", {"block_n": 64}, 16),
        ("gemm", {"block_k": 32, "block_n": 64}, 32),
        ("gemm", {"block_k": 64, "block_n": 64}, 32),
        ("v2", {"block_n": 64}, 32),
    ]
    assert points[0].arch_sha256 != points[3].arch_sha256  # the hash is of the arch after `set`
    assert len({p.config_hash for p in points}) == 6
    out = tmp_path / "mixed.csv"
    sweep_in_process(spec, out)
    rows = [json.loads(line) for line in out.with_suffix(".jsonl").read_text().splitlines()]
    assert rows[2]["option_block_k"] is None and rows[2]["m"] is None and rows[2]["seqlen_q"] == 256
    assert rows[0]["seqlen_q"] is None and rows[0]["m"] == 256
    assert [row["set_mufu.ex2_per_cycle"] for row in rows] == [16, 16, 16, 32, 32, 32]
    assert all(row["error"] is None and row["cycles"] > 0 for row in rows)


def test_a_failing_point_is_a_row_not_a_crash(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        {
            "archs": ["a100"],
            "algos": ["gemm", "v2"],
            "problem": {**TINY_ATTENTION, "m": [256], "n": [256], "k": [256], "dtype": ["bf16", "fp8"]},
            "options": {"block_n": [64, 100000]},
        },
    )
    out = tmp_path / "errors.csv"
    sweep_in_process(spec, out)
    rows = [json.loads(line) for line in out.with_suffix(".jsonl").read_text().splitlines()]
    assert [(row["algo"], row["dtype"], row["option_block_n"], row["error"] is None) for row in rows] == [
        ("gemm", "bf16", 64, True),
        ("gemm", "bf16", 100000, False),
        ("gemm", "fp8", 64, False),
        ("gemm", "fp8", 100000, False),
        ("v2", "bf16", 64, True),
        ("v2", "bf16", 100000, False),
        ("v2", "fp8", 64, False),
        ("v2", "fp8", 100000, False),
    ]
    assert rows[2]["error"].startswith("ProblemError: dtype fp8 is not supported by NVIDIA A100")
    assert rows[2]["cycles"] is None
    plan = plan_sweep(load_points(spec), Path(f"{out}.cache"))
    assert len(plan.cached) == 8  # failed points are cached too: they fail the same way every time


# ---------------------------------------------------------------------------------------------------------------------
# Bad input: one line, exit 2, before any point runs


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"archz": ["h100"]}, "archz: unknown key"),
        ({"problem": {**TINY_ATTENTION, "seqlen": [256, 0]}}, "problem.seqlen[1]: Input should be greater than 0"),
        ({"problem": {**TINY_ATTENTION, "seqlen": 256}}, "problem.seqlen: Input should be a valid list"),
        ({"problem": {**TINY_ATTENTION, "seqlen": ["256"]}}, "problem.seqlen[0]: Input should be a valid integer"),
        ({"problem": {**TINY_ATTENTION, "dtype": ["fp4"]}}, "problem.dtype[0]: must be one of"),
        ({"problem": {**TINY_ATTENTION, "causal": []}}, "problem.causal: List should have at least 1 item"),
        ({"problem": {"heads": [2], "seqlen": [256]}}, "problem.headdim: missing key"),
        ({"problem": {**TINY_ATTENTION, "m": [256]}}, "problem.m: no listed algorithm takes it"),
        ({"problem": {**TINY_ATTENTION, "seqlen": [256, 256]}}, "problem.seqlen[1]: duplicate value 256"),
        ({"algos": ["v2", "v9"]}, "algos[1]: unknown algorithm 'v9'"),
        ({"archs": ["h100", "h9"]}, "archs[1]: unknown arch 'h9'"),
        ({"archs": ["missing.yaml"]}, "archs[0]: missing.yaml: no such arch file"),
        ({"options": {"block_q": [64]}}, "options.block_q: no listed algorithm accepts it (v2: atom_dkv, atom_dq"),
        ({"set": {"hbm.foo": [1]}}, "set (arch h100): hbm.foo: no such key"),
        ({"set": {"mufu.ex2_per_cycle": [16, -1]}}, "set (arch h100): mufu.ex2_per_cycle: Input should be greater"),
        ({"set": {"smem.per_cta_bytes": [10**9]}}, "smem.per_cta_bytes (1000000000) exceeds smem.capacity_bytes"),
    ],
)
def test_spec_errors_are_reported_before_any_point_runs(
    change: dict[str, object],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def must_not_run(point: Point) -> None:
        raise AssertionError("a point ran")

    monkeypatch.setattr("simgpu.sweep.run_point", must_not_run)
    spec = write_spec(tmp_path, {"archs": ["h100"], "algos": ["v2"], "problem": TINY_ATTENTION, **change})
    out = tmp_path / "out" / "r.csv"
    status, _, stderr = run(["sweep", str(spec), "--out", str(out)], capsys)
    assert status == 2
    assert stderr.startswith(f"simgpu: error: {spec}: ") and stderr.count("\n") == 1
    assert message in stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("archs: [h100\n", "line 2: YAML syntax error"),
        ("- h100\n", "a sweep spec must be a YAML mapping, got list"),
    ],
)
def test_unreadable_specs(text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write_spec(tmp_path, text)
    status, _, stderr = run(["sweep", str(spec), "--out", str(tmp_path / "r.csv")], capsys)
    assert (status, stderr.count("\n")) == (2, 1)
    assert message in stderr
    status, _, stderr = run(["sweep", str(tmp_path / "nope.yaml")], capsys)
    assert status == 2
    assert "nope.yaml: cannot read sweep spec: No such file or directory" in stderr


def test_unwritable_output_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write_spec(tmp_path, {"archs": ["h100"], "algos": ["v2"], "problem": TINY_ATTENTION})
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for out, message in [(blocker / "r.csv", "cannot write to"), (tmp_path, "is a directory")]:
        status, _, stderr = run(["sweep", str(spec), "--out", str(out)], capsys)
        assert (status, stderr.count("\n")) == (2, 1)
        assert stderr.startswith("simgpu: error: ") and message in stderr


def test_bad_executor_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write_spec(tmp_path, {"archs": ["h100"], "algos": ["v2"], "problem": TINY_ATTENTION})
    status, _, stderr = run(["sweep", str(spec), "--executor", "spark", "--out", str(tmp_path / "r.csv")], capsys)
    assert status == 2
    assert "expected local, dask or dask://ADDRESS" in stderr


def test_missing_dask_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("dask.distributed is installed")
    spec = write_spec(tmp_path, {"archs": ["h100"], "algos": ["v2"], "problem": TINY_ATTENTION})
    status, _, stderr = run(["sweep", str(spec), "--executor", "dask", "--out", str(tmp_path / "r.csv")], capsys)
    assert status == 2
    assert "pip install 'simgpu[dask]'" in stderr


# ---------------------------------------------------------------------------------------------------------------------
# The cache is checked, not trusted


def test_corrupt_cache_entries_are_reported_once_and_recomputed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write_spec(
        tmp_path, {"archs": ["h100"], "algos": ["gemm"], "problem": {"m": [256], "n": [256], "k": [64, 128, 192, 256]}}
    )
    out = tmp_path / "r.csv"
    args = ["sweep", str(spec), "--out", str(out)]
    status, stdout, _ = run(args, capsys)
    assert status == 0 and "(4 computed, 0 from cache, 0 failed)" in stdout
    first = out.read_bytes()
    entries = [Path(f"{out}.cache") / f"{p.config_hash}.json" for p in load_points(spec)]
    entries[0].write_text(entries[0].read_text()[:40])  # truncated: invalid JSON
    tampered = json.loads(entries[1].read_text())
    tampered["outcome"]["cycles"] += 1.0
    entries[1].write_text(json.dumps(tampered))  # valid JSON, checksum no longer matches
    entries[2].write_text(entries[3].read_text())  # another point's entry: wrong config hash

    status, stdout, stderr = run(args, capsys)
    assert status == 0
    warnings = [line for line in stderr.splitlines() if line.startswith("simgpu: warning:")]
    assert warnings == [
        f"simgpu: warning: 3 corrupt cache entries ignored and recomputed (first: {entries[0]}: invalid JSON)"
    ]
    assert "(3 computed, 1 from cache, 0 failed)" in stdout
    assert out.read_bytes() == first

    status, stdout, stderr = run(args, capsys)
    assert "warning" not in stderr and "(0 computed, 4 from cache, 0 failed)" in stdout


def test_a_recomputed_checksum_does_not_make_an_entry_an_outcome(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, {"archs": ["h100"], "algos": ["gemm"], "problem": {"m": [256], "n": [256], "k": [64]}})
    (point,) = load_points(spec)
    cache = tmp_path / "cache"
    cache.mkdir()
    for outcome in ({"cycles": 1.0}, {"error": None}, {"arch_name": "x", "mode": "fast", "cycles": "many"}):
        text = json.dumps(outcome, separators=(",", ":"))
        entry = {"config_hash": point.config_hash, "outcome_sha256": hashlib.sha256(text.encode()).hexdigest()}
        (cache / f"{point.config_hash}.json").write_text(json.dumps({**entry, "outcome": outcome}))
        plan = plan_sweep([point], cache)
        assert not plan.cached
        assert [c.reason for c in plan.corrupt] == ["not a point's outcome"]


def test_a_cache_entry_that_is_a_folder_stops_the_sweep_before_any_point_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def must_not_run(point: Point) -> None:
        raise AssertionError("a point ran")

    monkeypatch.setattr("simgpu.sweep.run_point", must_not_run)
    spec = write_spec(tmp_path, {"archs": ["h100"], "algos": ["gemm"], "problem": {"m": [256], "n": [256], "k": [64]}})
    out = tmp_path / "r.csv"
    (point,) = load_points(spec)
    (Path(f"{out}.cache") / f"{point.config_hash}.json").mkdir(parents=True)
    status, _, stderr = run(["sweep", str(spec), "--out", str(out)], capsys)
    assert (status, stderr.count("\n")) == (2, 1)
    assert f"{point.config_hash}.json: a cache entry that is not a file; remove it" in stderr


def test_example_spec_is_valid() -> None:
    points = load_points(Path(__file__).parents[2] / "experiments" / "specs" / "example_sweep.yaml")
    assert len(points) == 32
    assert {p.algo for p in points} == {"v2", "v3"}

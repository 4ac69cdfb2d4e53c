"""How fast simgpu answers: fast mode's wall time per prediction for every arch x algorithm x pass at sequence
lengths 1k..128k (16k total tokens where the batch allows, heads 16, d = 128), fast/exact agreement and speed-up
where exact mode is affordable, exact mode's events (unit ops) per second, and a 1,000-point sweep with 2 workers.

`python -m benchmarks.simspeed [--quick] [--out DIR]` (or `make bench`) writes `simspeed.csv`,
`simspeed_sweep.csv` and `simspeed.png` (from the CSVs); `--quick` writes `simspeed_quick*` instead. Times are
medians of repeated predictions in this one process after a warm-up run (each computed from scratch: nothing is
cached between predictions); a case whose warm-up takes longer than `SLOW_S` is timed once. Exact mode runs where
its estimated ops are under the budget.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import yaml

from simgpu import Problem, load_arch, native, simulate
from simgpu.api import schedule
from simgpu.engine import estimated_ops
from simgpu.errors import SimgpuError
from simgpu.result import BYTE_FIELDS

ARCHS = ("a100", "h100", "h200", "b200")
ALGOS = ("standard", "v1", "v2", "v3", "v4")
PASSES = ("fwd", "bwd")
SEQLENS = (1024, 4096, 16384, 65536, 131072)
TOKENS = 16384
REPEATS = 5
SLOW_S = 2.0  # a warm-up slower than this is the measurement (no repeats)
CASE_LIMIT_S = 30  # a fast-mode prediction still running after this is recorded as over the limit
EXACT_OPS = {True: 60_000, False: 400_000}  # exact mode runs when its estimated ops fit (quick, full)


class _OverLimit(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    def stop(_signum: int, _frame: object) -> None:
        raise _OverLimit

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def problem_for(seqlen: int, pass_: str) -> Problem:
    return Problem(max(1, TOKENS // seqlen), 16, seqlen, 128, pass_=pass_)


def measure(arch_name: str, algo: str, pass_: str, seqlen: int, quick: bool) -> dict[str, object]:
    arch = load_arch(arch_name)
    problem = problem_for(seqlen, pass_)
    row: dict[str, object] = {"arch": arch_name, "algo": algo, "pass": pass_, "seqlen": seqlen, "batch": problem.batch}
    try:
        started, started_cpu = time.perf_counter(), time.process_time()
        with _time_limit(CASE_LIMIT_S):
            fast = simulate(arch, algo, problem, mode="fast")
    except SimgpuError as err:
        return {**row, "error": f"{type(err).__name__}: {err}"}
    except _OverLimit:
        return {**row, "error": f"over {CASE_LIMIT_S} s"}
    warm_up_s = time.perf_counter() - started
    times, cpu_times = [warm_up_s], [time.process_time() - started_cpu]
    if warm_up_s < SLOW_S:
        times, cpu_times = [], []
        for _ in range(2 if quick else REPEATS):
            started, started_cpu = time.perf_counter(), time.process_time()
            simulate(arch, algo, problem, mode="fast")
            times.append(time.perf_counter() - started)
            cpu_times.append(time.process_time() - started_cpu)
    row.update(
        fast_median_s=statistics.median(times),
        # This process's CPU time: on a machine shared with other jobs, wall time also counts their share.
        fast_cpu_median_s=statistics.median(cpu_times),
        load1=os.getloadavg()[0],
        fast_runs=len(times),
        cycles_fast=fast.cycles,
        tflops_fast=fast.tflops,
    )
    ops = sum(estimated_ops(kernel) for kernel in schedule(arch, algo, problem, {}))
    row["exact_ops_estimate"] = ops
    if ops <= EXACT_OPS[quick]:
        started = time.perf_counter()
        exact = simulate(arch, algo, problem, mode="exact")
        exact_s = time.perf_counter() - started
        row.update(
            exact_s=exact_s,
            cycles_exact=exact.cycles,
            cycles_fast_over_exact=fast.cycles / exact.cycles,
            bytes_equal=all(abs(getattr(fast, name) - getattr(exact, name)) < 0.5 for name in BYTE_FIELDS),
            speedup=exact_s / row["fast_median_s"],  # type: ignore[operator]
        )
    return row


def engine_rate(arch_name: str, algo: str, seqlen: int) -> dict[str, object]:
    """Exact mode's engine alone on one forward case: the unit ops it ran and the seconds they took."""
    from simgpu.engine import Engine

    arch = load_arch(arch_name)
    kernels = schedule(arch, algo, problem_for(seqlen, "fwd"), {})
    started = time.perf_counter()
    stats = Engine(arch).run(kernels)
    seconds = time.perf_counter() - started
    return {"arch": arch_name, "algo": algo, "seqlen": seqlen, "ops": stats.ops, "seconds": seconds}


SWEEP_SPEC = {
    "archs": ["h100", "b200"],
    "algos": ["v2"],
    "problem": {
        "batch": [1, 2, 4, 8, 16],
        "heads": [16],
        "seqlen": [512, 1024, 2048, 4096, 8192],
        "headdim": [64, 128],
        "causal": [False, True],
    },
    "set": {"mufu.ex2_per_cycle": [8, 16, 24, 32, 64]},
}  # 2 x 5 x 5 x 2 x 2 x 5 = 1,000 points


def sweep_seconds(jobs: int, quick: bool) -> dict[str, object]:
    """Wall time of `simgpu sweep` over SWEEP_SPEC with `jobs` workers, from a cold cache, in a subprocess."""
    spec = dict(SWEEP_SPEC)
    if quick:
        spec = {**spec, "set": {"mufu.ex2_per_cycle": [16]}, "archs": ["h100"]}
    with tempfile.TemporaryDirectory() as folder:
        spec_path = Path(folder) / "spec.yaml"
        spec_path.write_text(yaml.safe_dump(spec), encoding="utf-8")
        command = [sys.executable, "-m", "simgpu", "sweep", str(spec_path), "-j", str(jobs)]
        command += ["--out", str(Path(folder) / "sweep.csv")]
        started, children = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, check=True, capture_output=True)
        seconds = time.perf_counter() - started
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_s = used.ru_utime + used.ru_stime - children.ru_utime - children.ru_stime
        with (Path(folder) / "sweep.csv").open(encoding="utf-8") as handle:
            points = sum(1 for _ in csv.DictReader(handle))
    # CPU seconds of the sweep's processes over the workers: its wall time on a machine of its own (the machine the
    # benchmark runs on is shared; load1 says how busy it was).
    return {
        "points": points,
        "jobs": jobs,
        "seconds": seconds,
        "seconds_per_point": seconds / points,
        "cpu_seconds_per_worker": cpu_s / jobs,
        "load1": os.getloadavg()[0],
    }


def plot(csv_path: Path, png_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r.get("fast_median_s")]
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    for (arch, algo, pass_), group in _groups(rows):
        seqlens = [int(r["seqlen"]) for r in group]
        axes[0].plot(seqlens, [float(r["fast_median_s"]) * 1e3 for r in group], marker="o", lw=1, label=None)
        axes[0].annotate(f"{arch} {algo} {pass_}", (seqlens[-1], float(group[-1]["fast_median_s"]) * 1e3), fontsize=5)
    axes[0].axhline(50, color="red", ls="--", lw=1, label="50 ms target")
    axes[0].set(xscale="log", yscale="log", xlabel="sequence length", ylabel="fast mode, ms per prediction")
    axes[0].legend()
    exact = [r for r in rows if r.get("speedup")]
    axes[1].scatter([float(r["exact_s"]) for r in exact], [float(r["cycles_fast_over_exact"]) for r in exact], s=10)
    axes[1].axhline(1.01, color="grey", ls=":")
    axes[1].axhline(0.99, color="grey", ls=":")
    axes[1].set(xlabel="exact mode, s per prediction", ylabel="fast / exact cycles")
    if exact:
        axes[1].set_xscale("log")
    axes[1].set_title("agreement where exact mode is affordable")
    fig.suptitle(f"simgpu prediction speed ({cpu_model()}, 1 process)")
    fig.tight_layout()
    fig.savefig(png_path, dpi=140)
    plt.close(fig)


def _groups(rows: Sequence[dict[str, str]]) -> list[tuple[tuple[str, str, str], list[dict[str, str]]]]:
    keys: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    for row in rows:
        keys.setdefault((row["arch"], row["algo"], row["pass"]), []).append(row)
    return list(keys.items())


def write_rows(path: Path, rows: Sequence[dict[str, object]]) -> None:
    columns: list[str] = []
    for row in rows:
        columns += [key for key in row if key not in columns]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="h100 and b200, 1k and 4k, a 100-point sweep")
    parser.add_argument("--out", type=Path, default=Path("out/bench"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    archs = ("h100", "b200") if args.quick else ARCHS
    seqlens = SEQLENS[:2] if args.quick else SEQLENS
    rows = []
    for arch in archs:
        for algo in ALGOS:
            for pass_ in PASSES:
                for seqlen in seqlens:
                    row = measure(arch, algo, pass_, seqlen, args.quick)
                    rows.append(row)
                    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
                    if "error" in row:
                        break  # the algorithm does not run on this arch at any length
    stem = "simspeed_quick" if args.quick else "simspeed"
    csv_path = args.out / f"{stem}.csv"
    write_rows(csv_path, rows)
    engine = [engine_rate(arch, "v2", 4096) for arch in archs]
    sweep = sweep_seconds(2, args.quick)
    summary = {
        **sweep,
        "exact_ops_per_s": sum(r["ops"] for r in engine) / sum(r["seconds"] for r in engine),  # type: ignore[misc]
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "native": native.compiled(),  # whether the engine ran compiled (`simgpu.native`): the rows' too
    }
    write_rows(args.out / f"{stem}_sweep.csv", [summary])
    plot(csv_path, args.out / f"{stem}.png")
    print(summary)


def cpu_model() -> str:
    """The processor's model name (Linux's `/proc/cpuinfo`; else what `platform` tells): the same code runs 1.5-2x
    apart on this project's development VMs of two makes (`docs/results/first_touch_57/README.md`), so a timing says
    which it ran on."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                name, _, value = line.partition(":")
                if name.strip() == "model name":
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


if __name__ == "__main__":
    main()

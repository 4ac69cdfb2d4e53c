"""Exact mode's speed in CPU seconds, for A/B runs of two versions of the code on a shared machine.

Cases: the engine alone on `benchmarks.simspeed`'s exact-rate cases (v2 forward at N = 4096 on every arch: its
`exact_ops_per_s`), and issue 4's case end to end, through `simulate(..., mode="exact")` in this process and through
the CLI in a subprocess as a user runs it (`simgpu run --exact --arch h200 --algo v2 --pass fwd --batch 4 --heads 16
--seqlen 4096 --headdim 64`, start-up included). CPU time (`time.process_time`, the child's for the CLI) is what the
run used, so other jobs on the machine change it less than wall time; both are written.

`python -m benchmarks.exact_speed --label NAME --out FILE` appends one CSV row per case to FILE. Alternate runs of
the two versions (each from its own folder) and compare per label: `benchmarks.exact_ab` does that.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.simspeed import problem_for
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import Engine

ENGINE_ARCHS = ("a100", "h100", "h200", "b200")
ISSUE4 = Problem(4, 16, 4096, 64)
ISSUE4_CLI = "run --exact --arch h200 --algo v2 --pass fwd --batch 4 --heads 16 --seqlen 4096 --headdim 64 --json"
COLUMNS = ("label", "case", "ops", "cpu_s", "wall_s", "ops_per_cpu_s", "cycles", "load1")


def engine_row(arch_name: str) -> dict[str, object]:
    arch = load_arch(arch_name)
    kernels = schedule(arch, "v2", problem_for(4096, "fwd"), {})
    wall, cpu = time.perf_counter(), time.process_time()
    stats = Engine(arch).run(kernels)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"case": f"engine v2 fwd {arch_name} N4096", "ops": stats.ops, "cpu_s": cpu, "wall_s": wall} | {
        "ops_per_cpu_s": stats.ops / cpu,
        "cycles": stats.cycles,
    }


def issue4_row() -> dict[str, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = simulate("h200", "v2", ISSUE4, mode="exact")
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"case": "simulate exact v2 fwd h200 B4 H16 N4096 d64", "cpu_s": cpu, "wall_s": wall} | {
        "cycles": result.cycles
    }


def cli_row() -> dict[str, object]:
    command = [sys.executable, "-m", "simgpu", *ISSUE4_CLI.split()]
    before, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    wall, after = time.perf_counter() - wall, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"case": f"cli simgpu {ISSUE4_CLI}", "cpu_s": cpu, "wall_s": wall} | {
        "cycles": json.loads(done.stdout)["cycles"]
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--label", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    rows = [engine_row(arch) for arch in ENGINE_ARCHS] + [issue4_row(), cli_row()]
    new = not args.out.exists()
    with args.out.open("a", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        for row in rows:
            writer.writerow({"label": args.label, "load1": os.getloadavg()[0]} | row)


if __name__ == "__main__":
    main()

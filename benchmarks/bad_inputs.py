"""How fast and how cleanly simgpu refuses bad input: every entry of the bad-input corpus (`tests/bad_inputs/`) run
as a fresh `python -m simgpu ...` process from the repository root, timed from spawn to exit.

`python -m benchmarks.bad_inputs [--quick] [--out CSV]` writes one row per entry: wall time, exit status, stderr
lines, whether the one line holds every expected string, whether the run follows the whole rule
(`tests.bad_inputs.corpus.faults`), and the machine's load average and CPU count when the entry started (the
machine may be shared: load says how busy it was). `--quick` runs `QUICK`, a few entries. A run still going at
`--limit-s` (default 60 s, well past the issue's 5 s) is stopped and recorded with exit status `timeout`, so a hang
shows as a row, not as a benchmark that never ends. Wall time includes interpreter start-up and imports, as a user
waiting on the command sees it. Prints the max and median wall time; exits 1 if any entry broke the rule or took
longer than 5 s.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.bad_inputs.corpus import LIMIT_S, REPO, Case, faults, load_cases, run_fresh

QUICK = ("arch:nan_value.yaml", "sweep:unknown_key.yaml", "fp8_on_a100", "trace_under_a_file")
COLUMNS = (
    "name",
    "wall_s",
    "exit_status",
    "stderr_lines",
    "expected_found",
    "follows_rule",
    "within_limit",
    "load1",
    "load5",
    "cpus",
    "command",
)


def measure(case: Case, limit_s: float) -> dict[str, object]:
    load1, load5, _ = os.getloadavg()
    done = run_fresh(case, timeout_s=limit_s)
    return {
        "name": case.name,
        "wall_s": round(done.wall_s, 4),
        "exit_status": "timeout" if done.status is None else done.status,
        "stderr_lines": len(done.stderr.splitlines()),
        "expected_found": all(e in done.stderr for e in case.expect),
        "follows_rule": not faults(case, done.status, done.stdout, done.stderr),
        "within_limit": done.status is not None and done.wall_s <= LIMIT_S,
        "load1": round(load1, 2),
        "load5": round(load5, 2),
        "cpus": os.cpu_count(),
        "command": " ".join(("simgpu", *case.argv)).replace(str(REPO), "."),  # the same on every checkout
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=Path("out/bad_inputs_timing.csv"))
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--limit-s", type=float, default=60.0, help="stop a run after this many seconds")
    args = parser.parse_args(argv)
    cases = [c for c in load_cases() if not args.quick or c.name in QUICK]
    rows = []
    for number, case in enumerate(cases, 1):
        rows.append(measure(case, args.limit_s))
        print(f"[{number}/{len(cases)}] {case.name}: {rows[-1]['wall_s']} s", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    walls = [float(str(row["wall_s"])) for row in rows]
    loads = [float(str(row["load1"])) for row in rows]
    broken = [str(row["name"]) for row in rows if not (row["follows_rule"] and row["within_limit"])]
    print(
        f"{len(rows)} bad inputs: wall time max {max(walls):.2f} s, median {statistics.median(walls):.2f} s; "
        f"load1 {min(loads):.2f} .. {max(loads):.2f} on {os.cpu_count()} CPUs; "
        f"{len(broken)} broke the rule or the {LIMIT_S:g} s limit{': ' + ', '.join(broken) if broken else ''}; "
        f"wrote {args.out}"
    )
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())

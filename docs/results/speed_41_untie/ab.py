"""Exact mode's CPU time for one case in several checkouts, alternating, one fresh process per run: A100 standard
attention forward at issue 4's CLI shape (batch 4, 16 heads, N = 4096, d = 64), after a small warm-up prediction.
The forty-first session ran it on b4f4bd3 (base), a737570 (the speed branches merged, with speed41_engine's c0a502e,
which kept every kernel's processes to the run's end) and 11793ee (each kernel's processes untied as it ends), each
a worktree with its own `make setup` and native build.

`python docs/results/speed_41_untie/ab.py OUT.csv LABEL=DIR...` [--rounds N]
"""

from __future__ import annotations

import argparse
import csv
import subprocess
from pathlib import Path

WORKER = """
import time
from simgpu import Problem, load_arch, native, simulate
simulate("h100", "v2", Problem(1, 1, 256, 64), mode="exact")
started = time.process_time()
simulate(load_arch("a100"), "standard", Problem(4, 16, 4096, 64), mode="exact")
print(time.process_time() - started, native.compiled())
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("checkouts", nargs="+", help="LABEL=DIR")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    checkouts = [item.split("=", 1) for item in args.checkouts]
    rows = []
    for round_ in range(args.rounds):
        for label, folder in checkouts:
            python = Path(folder) / ".venv/bin/python"
            done = subprocess.run([str(python), "-c", WORKER], cwd=folder, capture_output=True, text=True, check=True)
            seconds, compiled = done.stdout.split()
            rows.append({"round": round_, "label": label, "cpu_s": float(seconds), "native": compiled})
            print(rows[-1], flush=True)
    with args.out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()

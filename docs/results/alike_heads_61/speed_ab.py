"""CPU seconds per fast-mode prediction, a base checkout against this one, over the speed benchmark's cases
(`benchmarks.simspeed`'s problems: 16k tokens, 16 heads, d = 128) named on the command line as arch:algo:pass:seqlen.
Each checkout runs every case in a process of its own (a warm-up, then the median of `REPEATS` predictions, CPU time),
the two checkouts taking turns case by case, so that the VM's drift falls on both alike; each line also gives both
predictions' cycles and HBM bytes. `python docs/results/alike_heads_61/speed_ab.py BASE_DIR NEW_DIR CASE...` (each
directory a checkout with its native build)."""

from __future__ import annotations

import subprocess
import sys

REPEATS = 5
CODE = """
import statistics, sys, time
from simgpu import Problem, load_arch, simulate
arch, algo, pass_, seqlen = sys.argv[1].split(":")
n = int(seqlen)
a, problem = load_arch(arch), Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_)
result = simulate(a, algo, problem, mode="fast")
times = []
for _ in range(REPEATS):
    started = time.process_time()
    simulate(a, algo, problem, mode="fast")
    times.append(time.process_time() - started)
print(statistics.median(times), result.cycles, result.hbm_read_bytes, result.hbm_write_bytes)
""".replace("REPEATS", str(REPEATS))


def run(tree: str, case: str) -> list[float]:
    env = {"PYTHONPATH": tree, "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [f"{tree}/.venv/bin/python", "-c", CODE, case], cwd=tree, env=env, capture_output=True, text=True, check=True
    )
    return [float(value) for value in out.stdout.split()]


def main(base: str, new: str, cases: list[str]) -> None:
    print(f"{'case':26} {'base ms':>8} {'new ms':>8}  cycles new/base  HBM read, write new/base")
    for case in cases:
        before, after = run(base, case), run(new, case)
        print(
            f"{case:26} {1000 * before[0]:8.1f} {1000 * after[0]:8.1f}  {after[1] / before[1]:.6f}  "
            f"{after[2] / before[2]:.6f} {after[3] / before[3]:.6f}"
        )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])

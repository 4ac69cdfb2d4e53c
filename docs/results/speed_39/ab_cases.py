"""An A/B of a few cases between two checkouts, CPU time: each round starts one process per checkout (the order
alternating between rounds), which answers each case with a warm-up prediction and then the least CPU time
(`time.process_time`) of 5 more; per case, the median over rounds. The shapes are `benchmarks.simspeed`'s (16k
tokens, 16 heads, d = 128).
`python docs/results/speed_39/ab_cases.py BASE_DIR NEW_DIR ROUNDS arch:algo:pass:seqlen ...`
"""

import json
import statistics
import subprocess
import sys

WORKER = r"""
import json, sys, time
from simgpu import Problem, load_arch, simulate
out = {}
for spec in sys.argv[1:]:
    arch, algo, pass_, n = spec.split(":")
    problem, chip = Problem(max(1, 16384 // int(n)), 16, int(n), 128, pass_=pass_), load_arch(arch)
    simulate(chip, algo, problem)
    best = float("inf")
    for _ in range(5):
        started = time.process_time()
        simulate(chip, algo, problem)
        best = min(best, time.process_time() - started)
    out[spec] = best
print(json.dumps(out))
"""


def main() -> None:
    base, new, rounds, cases = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    folders = {"base": base, "new": new}
    times: dict[str, dict[str, list[float]]] = {label: {case: [] for case in cases} for label in folders}
    for number in range(rounds):
        for label in ("base", "new") if number % 2 == 0 else ("new", "base"):
            folder = folders[label]
            run = subprocess.run(
                [sys.executable, "-c", WORKER, *cases],
                cwd=folder,
                env={"PYTHONPATH": folder, "PATH": "/usr/bin"},
                capture_output=True,
                text=True,
                check=True,
            )
            for case, seconds in json.loads(run.stdout).items():
                times[label][case].append(seconds)
    for case in cases:
        before, after = (statistics.median(times[label][case]) for label in ("base", "new"))
        rows = " ".join(f"{label} {[round(t, 4) for t in times[label][case]]}" for label in folders)
        print(f"{case:28s} base {before:.4f} new {after:.4f} ratio {after / before:.3f}  {rows}")


if __name__ == "__main__":
    main()

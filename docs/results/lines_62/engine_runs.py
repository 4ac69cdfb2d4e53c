"""The engine runs and their ops in one fast-mode prediction of speed-benchmark cases (16k tokens, 16 heads,
d = 128), counted as Python (`SIMGPU_NATIVE=0`: it wraps `Engine.run`), with the base and change medians of
`bench_ab/`: why the forwards' 128k over 1k stays far above 2x.
`SIMGPU_NATIVE=0 python docs/results/lines_62/engine_runs.py > docs/results/lines_62/engine_runs.txt`."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from simgpu import Problem, load_arch, simulate
from simgpu.engine import Engine

CASES = [(arch, algo, n) for arch in ("h100", "h200") for algo in ("v2", "v3") for n in (1024, 131072)]
HERE = Path(__file__).parent
COUNTS = [0, 0]
_RUN = Engine.run


def _counted(self: Engine, kernels: Any) -> Any:
    stats = _RUN(self, kernels)
    COUNTS[0] += 1
    COUNTS[1] += stats.ops
    return stats


def main() -> None:
    medians: dict[tuple[str, ...], list[float]] = {}
    for run in ("base_1", "new_1", "base_2", "new_2"):
        with (HERE / "bench_ab" / run / "simspeed.csv").open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                key = (row["arch"], row["algo"], row["pass"], row["seqlen"])
                medians.setdefault(key, []).append(1000 * float(row["fast_median_s"] or "nan"))
    Engine.run = _counted  # type: ignore[method-assign]
    for arch, algo, n in CASES:
        COUNTS[:] = [0, 0]
        simulate(load_arch(arch), algo, Problem(max(1, 16384 // n), 16, n, 128, pass_="fwd"))
        times = ", ".join(f"{ms:.1f}" for ms in medians[(arch, algo, "fwd", str(n))])
        runs, ops = COUNTS
        print(f"{arch} {algo} fwd {n}: {runs} engine runs, {ops} ops; bench medians (ms, base/new/base/new) {times}")


if __name__ == "__main__":
    main()

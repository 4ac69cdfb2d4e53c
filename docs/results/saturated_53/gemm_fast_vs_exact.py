"""Fast mode against exact mode on the default GEMM of each arch (bf16, nine shapes, the whole chip at its own
clock): cycles and time (the two modes may settle at different power-limited clocks).
`python docs/results/saturated_53/gemm_fast_vs_exact.py OUT.csv` (2 workers; about 20 s on the development VM)."""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchmarks.simspeed import write_rows
from simgpu import GemmProblem, simulate

ARCHS = ("a100", "h100", "h200", "b200")
SHAPES = (
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 2048),
    (4096, 4096, 1024),
    (2048, 2048, 8192),
    (8192, 4096, 4096),
    (3000, 5000, 2000),
    (4096, 4096, 8192),
)


def compare(case: tuple[str, tuple[int, int, int]]) -> dict[str, object]:
    arch, (m, n, k) = case
    problem = GemmProblem(m, n, k, "bf16")
    fast, exact = simulate(arch, "gemm", problem), simulate(arch, "gemm", problem, mode="exact")
    return {
        "arch": arch,
        "m": m,
        "n": n,
        "k": k,
        "fast_cycles": fast.cycles,
        "exact_cycles": exact.cycles,
        "fast_clock_hz": fast.clock_hz,
        "exact_clock_hz": exact.clock_hz,
        "cycles_fast_over_exact": round(fast.cycles / exact.cycles, 4),
        "time_fast_over_exact": round(fast.time_s / exact.time_s, 4),
    }


def main(out: str) -> None:
    with ProcessPoolExecutor(2) as pool:
        rows = list(pool.map(compare, [(arch, shape) for arch in ARCHS for shape in SHAPES]))
    write_rows(Path(out), rows)
    for row in rows:
        print(*(row[key] for key in ("arch", "m", "n", "k", "cycles_fast_over_exact", "time_fast_over_exact")))


if __name__ == "__main__":
    main(sys.argv[1])

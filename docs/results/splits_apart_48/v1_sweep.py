"""v1 (FA1's released forward, the release's splits) on FA2's benchmark shapes (16k tokens, hidden 2048, d = 64 and
128, N = 512-16k, not causal) on the A100 and H100 files: fast mode over exact mode in cycles and HBM bytes.
`python docs/results/splits_apart_48/v1_sweep.py > docs/results/splits_apart_48/sweep_after.txt` (about
2.5 minutes on 2 cores; exact mode's event budget raised for the 16k-token runs)."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

from algorithms.v1.schedule import release_splits
from simgpu import Problem, load_arch, simulate

EXACT_BUDGET = 10**9


def one(case: tuple[str, int, int]) -> str:
    arch_name, seqlen, headdim = case
    arch = load_arch(arch_name)
    problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim)
    options = {"splits": release_splits(arch, problem)}
    fast = simulate(arch, "v1", problem, options)
    exact = simulate(arch, "v1", problem, options, mode="exact", event_budget=EXACT_BUDGET)
    return (
        f"{arch_name} N={seqlen} d={headdim} splits={options['splits']}: fast over exact cycles"
        f" {fast.cycles / exact.cycles:.4f}, HBM reads {fast.hbm_read_bytes / exact.hbm_read_bytes:.3f}"
        f" (exact {exact.hbm_read_bytes / 1e6:.0f} MB), writes {fast.hbm_write_bytes / exact.hbm_write_bytes:.3f}"
    )


def main() -> None:
    cases = [(a, n, d) for a in ("a100", "h100") for d in (64, 128) for n in (512, 1024, 2048, 4096, 8192, 16384)]
    with ProcessPoolExecutor(2) as pool:
        for line in pool.map(one, cases):
            print(line, flush=True)


if __name__ == "__main__":
    main()

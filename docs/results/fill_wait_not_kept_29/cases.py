"""Exact-mode cycles of five cases, to compare with and without `fill_wait.patch` (`FILLWAIT=0` / `FILLWAIT=1`,
`SIMGPU_NATIVE=0 PYTHONPATH=. python docs/results/fill_wait_not_kept_29/cases.py`)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

CASES = (
    ("h100", "v2", Problem(16, 16, 1024, 128)),
    ("h100", "v3", Problem(16, 16, 1024, 128)),
    ("h200", "v3", Problem(1, 32, 16384, 64)),
    ("h100", "v2", Problem(2, 16, 8192, 64, causal=True)),
    ("a100", "v2", Problem(16, 16, 1024, 64, pass_="bwd")),
)


def main() -> None:
    for arch, algo, problem in CASES:
        result = simulate(load_arch(arch), algo, problem, mode="exact")
        shape = f"{problem.batch} {problem.heads} {problem.seqlen_q} {problem.headdim} {problem.pass_}"
        print(arch, algo, shape, round(result.cycles))


if __name__ == "__main__":
    main()

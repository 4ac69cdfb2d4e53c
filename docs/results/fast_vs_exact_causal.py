"""Fast mode against exact mode on causal attention at full chip size (16k tokens, d = 64 and 128, N = 1k and 4k):
v1, v2 and v3 on the H200, v4 on the B200, v2 on the A100, forward and backward. The fast-vs-exact grid
(`experiments.fast_vs_exact`) runs cut chips, where causal kernels are small enough to run whole; here they take the
list schedule. Run: `python docs/results/fast_vs_exact_causal.py [OUT.csv]` (writes `fast_vs_exact_causal.csv`, or
OUT.csv: the same rows for another checkout's fast mode). `fast_vs_exact_causal_before.csv`: the rows of the checkout
before the seventeenth session's change to fast mode's class costs (c2dcd6c~1), run with PYTHONPATH at that checkout:
v2's forward on the H200 +2.8..+8.4% against exact mode there, -3.1..+3.6% since; nothing else moved by 0.1%."""

from __future__ import annotations

import csv
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from simgpu import Problem, load_arch, simulate

CASES = [
    (arch, algo, pass_, n, d)
    for arch, algo in (("h200", "v2"), ("h200", "v3"), ("b200", "v4"), ("h200", "v1"), ("a100", "v2"))
    for pass_ in ("fwd", "bwd")
    for n in (1024, 4096)
    for d in (64, 128)
]


def cycles(case: tuple[str, str, str, int, int], mode: str) -> float:
    arch, algo, pass_, n, d = case
    problem = Problem(16384 // n, 2048 // d, n, d, causal=True, pass_=pass_)
    return simulate(load_arch(arch), algo, problem, mode=mode).cycles


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/results/fast_vs_exact_causal.csv")
    with ProcessPoolExecutor(2) as pool:
        exact = list(pool.map(cycles, CASES, ["exact"] * len(CASES)))
        fast = list(pool.map(cycles, CASES, ["fast"] * len(CASES)))
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["arch", "algo", "pass", "seqlen", "headdim", "cycles_exact", "cycles_fast", "fast_over_exact"])
        for case, e, f in zip(CASES, exact, fast, strict=True):
            writer.writerow([*case, f"{e:.0f}", f"{f:.0f}", f"{f / e:.4f}"])
            print(*case, f"{f / e - 1:+.4f}")


if __name__ == "__main__":
    main()

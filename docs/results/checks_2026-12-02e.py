"""Side check of the seventh session: LPT's gain on the H200, where FA4's paper measured its 4-8% for MHA causal
(`../shared/reference/papers.md`). v3 (FA3's schedule, persistent, the default options) causal forward, bf16,
d = 128, 16 heads, 16k tokens per batch, exact mode, `lpt` on against off (index order).
Run from the repository root: `python docs/results/checks_2026-12-02e.py > docs/results/checks_2026-12-02e.txt`."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

from simgpu import Problem, simulate

SEQLENS = (1024, 2048, 4096)


def tflops(args: tuple[int, bool]) -> float:
    seqlen, lpt = args
    problem = Problem(16384 // seqlen, 16, seqlen, 128, causal=True)
    return simulate("h200", "v3", problem, {"lpt": lpt}, mode="exact").tflops


if __name__ == "__main__":
    cases = [(n, lpt) for n in SEQLENS for lpt in (True, False)]
    with ProcessPoolExecutor(2) as pool:
        results = dict(zip(cases, pool.map(tflops, cases), strict=True))
    for n in SEQLENS:
        on, off = results[(n, True)], results[(n, False)]
        print(f"H200 v3 causal N={n}: lpt {on:.1f} TFLOP/s, index order {off:.1f}, gain {100 * (on / off - 1):+.1f}%")

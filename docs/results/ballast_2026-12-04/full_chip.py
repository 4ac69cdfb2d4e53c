"""Fast mode on whole chips, the benchmark's shapes (16k tokens, 16 heads, d = 128; standard attention to 16k, the
FlashAttention schedules to 128k), forward and backward: cycles and HBM bytes per case, from the checkout on the
path. `full_chip_at_406a718.txt` is its output at the session's start (run with PYTHONPATH at a worktree of it),
`full_chip.txt` after the replay's later heads took room (`simgpu.replay._ballast`). The A100's standard backward at
N = 1k, the one case that moved by more than 0.2%, is also run in exact mode (`--exact`).
Run from the repository root: `python docs/results/ballast_2026-12-04/full_chip.py [--exact]`."""

from __future__ import annotations

import sys

import simgpu
from simgpu import Problem, simulate

CASES = (
    ("a100", ("standard", "v2")),
    ("h100", ("standard", "v2", "v3")),
    ("h200", ("standard", "v2", "v3")),
    ("b200", ("standard", "v2", "v4")),
)

if __name__ == "__main__":
    print("#", simgpu.__file__)
    if "--exact" in sys.argv:
        exact = simulate("a100", "standard", Problem(16, 16, 1024, 128, pass_="bwd"), mode="exact")
        print("a100 standard 1024 bwd exact", f"{exact.cycles:.0f}", f"{exact.hbm_read_bytes / 1e9:.4f}")
        sys.exit()
    for arch, algos in CASES:
        for algo in algos:
            for n in (1024, 4096, 16384, 131072):
                if algo == "standard" and n > 16384:
                    continue
                for pass_ in ("fwd", "bwd"):
                    r = simulate(arch, algo, Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_))
                    print(arch, algo, n, pass_, f"{r.cycles:.0f}", f"{r.hbm_read_bytes / 1e9:.4f}",
                          f"{r.hbm_write_bytes / 1e9:.4f}")  # fmt: skip

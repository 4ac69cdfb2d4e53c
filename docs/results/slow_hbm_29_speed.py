"""Fast mode's time per prediction (median of 5 after a warm-up, one process) on three H100 cases: v2 and v3 forward
at 4 x 16 heads N = 4096 d = 128, v2 at 16 x 16 N = 1024. `slow_hbm_29.txt` holds three rounds of it at three commits,
interleaved: `PYTHONPATH=<worktree> python docs/results/slow_hbm_29_speed.py`.
"""

from __future__ import annotations

import statistics
import time

from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch = load_arch("h100")
    for algo, problem in (
        ("v2", Problem(4, 16, 4096, 128)),
        ("v3", Problem(4, 16, 4096, 128)),
        ("v2", Problem(16, 16, 1024, 128)),
    ):
        simulate(arch, algo, problem)
        times = []
        for _ in range(5):
            started = time.perf_counter()
            simulate(arch, algo, problem)
            times.append(time.perf_counter() - started)
        print(algo, problem.seqlen_q, round(statistics.median(times) * 1000, 1), "ms")


if __name__ == "__main__":
    main()

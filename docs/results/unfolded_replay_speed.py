"""Fast mode's time per prediction on causal runs, whose kernels of unequal tiles the L2 replay now walks unfolded
where one head's tiles hold at most 10,000 memory accesses (`simgpu.fast_plan.UNFOLDED_REPLAY_ACCESSES`): the median
of three predictions after a warm-up, with cycles and HBM reads. Run from a checkout's root (`PYTHONPATH=.`), at the
commit before the change (cf85f41) and after it; `python docs/results/unfolded_replay_speed.py`."""

from __future__ import annotations

import statistics
import subprocess
import time

from simgpu import Problem, load_arch, native, simulate

CASES = (
    ("h200", "v2", Problem(2, 16, 8192, 128, causal=True)),
    ("h200", "v3", Problem(2, 16, 8192, 128, causal=True)),
    ("h200", "v2", Problem(2, 16, 8192, 128, causal=True, pass_="bwd")),
    ("b200", "v4", Problem(4, 16, 4096, 128, causal=True)),
    ("h200", "v1", Problem(2, 16, 8192, 128, causal=True)),
)


def main() -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"at {commit}, compiled: {native.compiled()}")
    for arch_name, algo, problem in CASES:
        arch = load_arch(arch_name)
        simulate(arch, algo, problem)
        times = []
        for _ in range(3):
            started = time.perf_counter()
            result = simulate(arch, algo, problem)
            times.append(time.perf_counter() - started)
        shape = f"{arch_name} {algo} {problem.pass_} B={problem.batch} N={problem.seqlen_q} causal"
        median_ms = statistics.median(times) * 1e3
        print(f"{shape}: {median_ms:.0f} ms, cycles {result.cycles:.0f}, HBM reads {result.hbm_read_bytes:.0f}")


if __name__ == "__main__":
    main()

"""v1's split forward grid on random small problems (seeded): any arch cut to 4-33 SMs and 1-16 MiB of L2, batch 1-4,
2-16 heads, N 128-1024, d 64 or 128, 2-6 splits; fast mode over exact mode in cycles and HBM bytes, and whether the
schedule takes a head's splits as launched apart (`Kernel.launched_apart_axis`; "-" before it existed).
`python docs/results/splits_apart_48/random_splits.py SEED COUNT > FILE` from the repository root."""

from __future__ import annotations

import importlib
import random
import sys

from simgpu import Problem, SimgpuError, load_arch, simulate

schedule_module = importlib.import_module("algorithms.v1.schedule")  # (the package exports a `schedule` function)


def main() -> None:
    rng = random.Random(int(sys.argv[1]))
    for _ in range(int(sys.argv[2])):
        arch_name = rng.choice(["a100", "h100", "h200", "b200"])
        sms, l2_mib = rng.choice([4, 8, 16, 33]), rng.choice([1, 2, 4, 8, 16])
        arch = load_arch(arch_name, {"sms": sms, "l2.capacity_bytes": l2_mib * 2**20})
        problem = Problem(
            rng.randint(1, 4), rng.choice([2, 4, 8, 16]), rng.choice([128, 256, 384, 512, 1024]), rng.choice([64, 128])
        )
        options = {"splits": rng.randint(2, 6)}
        try:
            kernels = schedule_module.schedule(arch, problem, **options)
            fast = simulate(arch, "v1", problem, options)
            exact = simulate(arch, "v1", problem, options, mode="exact")
        except SimgpuError as err:
            print(f"refused: {type(err).__name__}")
            continue
        apart = getattr(kernels[0], "launched_apart_axis", "-")
        print(
            f"{arch_name} {sms} SMs {l2_mib} MiB, {problem.batch} x {problem.heads} x {problem.seqlen_q}, d"
            f" {problem.headdim}, {options['splits']} splits, apart {apart}: cycles {fast.cycles / exact.cycles:.4f},"
            f" HBM reads {fast.hbm_read_bytes / exact.hbm_read_bytes:.4f}, writes"
            f" {fast.hbm_write_bytes / exact.hbm_write_bytes:.4f}",
            flush=True,
        )


if __name__ == "__main__":
    main()

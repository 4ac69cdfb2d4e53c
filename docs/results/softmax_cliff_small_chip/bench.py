"""A small bench for fast mode's miss of the softmax's second-pass cliff
(`docs/results/softmax_2048_fast_vs_exact.txt`): the H200 cut to `SMS` SMs (default 16) with its L2 capacity, L2
bandwidth and HBM bandwidth scaled by SMS / 132, standard attention's QK^T and softmax (two passes, our kernel's) at
8 heads and 2k tokens, N = 1k-4k. Prints per N the
softmax's passes over S from HBM in fast and exact mode and the softmax's fast / exact cycles. Exact mode takes
under a second a case here, where the full chip takes minutes.
Run from the repository root: `SMS=16 python docs/results/softmax_cliff_small_chip/bench.py`."""

from __future__ import annotations

import os

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import run_fast

SMS = int(os.environ.get("SMS", "16"))
FULL_L2_BYTES = 62_914_560  # the H200's 60 MiB

if __name__ == "__main__":
    scale = SMS / 132
    arch = load_arch("h200", {"sms": SMS, "l2.capacity_bytes": int(FULL_L2_BYTES * scale),
                              "hbm.bandwidth_bytes_per_s": 4.8e12 * scale,
                              "l2.bandwidth_bytes_per_s": 9.16e12 * scale})  # fmt: skip
    for n in (1024, 2048, 3072, 4096):
        problem = Problem(max(1, 2048 // n), 8, n, 64)
        kernels = list(schedule(arch, "standard", problem, {"softmax_passes": 2}))
        s_bytes = problem.batch * problem.heads * n * n * 2
        qk = run_fast(arch, kernels[:1], arch.clock_hz, 10**9).hbm_read_bytes
        fast = run_fast(arch, kernels[:2], arch.clock_hz, 10**9)
        exact = Engine(arch).run(kernels[:2])
        print(f"N={n}: S {s_bytes / 1e6:.1f} MB; softmax passes from HBM fast "
              f"{(fast.hbm_read_bytes - qk) / s_bytes:.2f}, exact {(exact.hbm_read_bytes - qk) / s_bytes:.2f}; "
              f"softmax cycles fast / exact {fast.kernel_cycles[1] / exact.kernel_cycles[1]:.3f}")  # fmt: skip

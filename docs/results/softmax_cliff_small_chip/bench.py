"""A small bench for fast mode's miss of the softmax's second-pass cliff
(`docs/results/softmax_2048_fast_vs_exact.txt`): the H200 cut to `SMS` SMs (default 16) with its L2 capacity, L2
bandwidth and HBM bandwidth scaled by SMS / 132, standard attention's QK^T and softmax (two passes, our kernel's) at
8 heads and 2k tokens. Exact mode takes under a second a case here, where the full chip takes minutes.

Default (`bench.txt`, run at SMS=16 and 33): per N = 1k-4k the softmax's passes over S from HBM in fast and exact
mode and the softmax's fast / exact cycles. `--occupancy` (`occupancy.txt`, 16 SMs): the model's side of
`validation/probes/softmax_occupancy.py`, the softmax's CTAs given 0, 27 or 52 KiB more shared memory, so that 16, 8
or 4 fit on an SM, at N = 1k-8k.
Run from the repository root: `SMS=16 python docs/results/softmax_cliff_small_chip/bench.py [--occupancy]`."""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine, ctas_per_sm
from simgpu.fast import run_fast
from simgpu.kernel import Kernel

SMS = int(os.environ.get("SMS", "16"))
FULL_L2_BYTES = 62_914_560  # the H200's 60 MiB
PAD_BYTES = (0, 27 * 1024, 52 * 1024)  # as the probe's


def passes(n: int, pad: int = 0) -> tuple[Kernel, float, float, float]:
    """The softmax kernel (given `pad` more shared memory), its passes over S from HBM in fast and exact mode, and
    its fast / exact cycles, at N = `n` on the small chip."""
    scale = SMS / 132
    arch = load_arch("h200", {"sms": SMS, "l2.capacity_bytes": int(FULL_L2_BYTES * scale),
                              "hbm.bandwidth_bytes_per_s": 4.8e12 * scale,
                              "l2.bandwidth_bytes_per_s": 9.16e12 * scale})  # fmt: skip
    problem = Problem(max(1, 2048 // n), 8, n, 64)
    qk, softmax = list(schedule(arch, "standard", problem, {"softmax_passes": 2}))[:2]
    softmax = replace(softmax, cta=replace(softmax.cta, smem_bytes=softmax.cta.smem_bytes + pad))
    s_bytes = problem.batch * problem.heads * n * n * 2
    qk_reads = run_fast(arch, [qk], arch.clock_hz, 10**9).hbm_read_bytes
    fast = run_fast(arch, [qk, softmax], arch.clock_hz, 10**9)
    exact = Engine(arch).run([qk, softmax])
    return (
        softmax,
        (fast.hbm_read_bytes - qk_reads) / s_bytes,
        (exact.hbm_read_bytes - qk_reads) / s_bytes,
        fast.kernel_cycles[1] / exact.kernel_cycles[1],
    )


if __name__ == "__main__":
    if "--occupancy" in sys.argv:
        for pad in PAD_BYTES:
            for n in (1024, 2048, 3072, 4096, 6144, 8192):
                softmax, fast, exact, _ = passes(n, pad)
                fit = ctas_per_sm(load_arch("h200", {"sms": SMS}), softmax)
                print(f"{fit} CTAs per SM, N={n}: passes of S from HBM fast {fast:.2f}, exact {exact:.2f}")
    else:
        for n in (1024, 2048, 3072, 4096):
            _, fast, exact, cycles = passes(n)
            print(f"N={n}: S {8 * n * n * 2 * max(1, 2048 // n) / 1e6:.1f} MB; softmax passes from HBM fast "
                  f"{fast:.2f}, exact {exact:.2f}; softmax cycles fast / exact {cycles:.3f}")  # fmt: skip

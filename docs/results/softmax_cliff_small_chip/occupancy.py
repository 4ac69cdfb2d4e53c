"""The model's side of `validation/probes/softmax_occupancy.py` on the small chip of `bench.py` (the H200 cut to 16
SMs, L2 and HBM scaled by 16 / 132): the softmax's CTAs given 0, 27 or 52 KiB more shared memory, so that 16, 8 or 4
fit on an SM, at N = 1k-8k; per case the softmax's passes over S from HBM in fast and exact mode.
Run from the repository root: `python docs/results/softmax_cliff_small_chip/occupancy.py`."""

from __future__ import annotations

from dataclasses import replace

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine, ctas_per_sm
from simgpu.fast import run_fast

SMS = 16
FULL_L2_BYTES = 62_914_560  # the H200's 60 MiB
PAD_BYTES = (0, 27 * 1024, 52 * 1024)  # as the probe's

if __name__ == "__main__":
    scale = SMS / 132
    arch = load_arch("h200", {"sms": SMS, "l2.capacity_bytes": int(FULL_L2_BYTES * scale),
                              "hbm.bandwidth_bytes_per_s": 4.8e12 * scale,
                              "l2.bandwidth_bytes_per_s": 9.16e12 * scale})  # fmt: skip
    for pad in PAD_BYTES:
        for n in (1024, 2048, 3072, 4096, 6144, 8192):
            problem = Problem(max(1, 2048 // n), 8, n, 64)
            qk, softmax = list(schedule(arch, "standard", problem, {"softmax_passes": 2}))[:2]
            softmax = replace(softmax, cta=replace(softmax.cta, smem_bytes=softmax.cta.smem_bytes + pad))
            s_bytes = problem.batch * problem.heads * n * n * 2
            qk_reads = run_fast(arch, [qk], arch.clock_hz, 10**9).hbm_read_bytes
            fast = run_fast(arch, [qk, softmax], arch.clock_hz, 10**9).hbm_read_bytes - qk_reads
            exact = Engine(arch).run([qk, softmax]).hbm_read_bytes - qk_reads
            print(f"{ctas_per_sm(arch, softmax)} CTAs per SM, N={n}: passes of S from HBM fast {fast / s_bytes:.2f}, "
                  f"exact {exact / s_bytes:.2f}")  # fmt: skip

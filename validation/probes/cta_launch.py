"""Device probe: the CTA launch gap on an SM, and the load latency of L2 and HBM (`cta_launch.cu`).

turnaround: 40 waves of CTAs of 128 threads that each spin 20,000 SM cycles, at 1 and 2 CTAs per SM (dynamic shared
memory sized so); per SM, each CTA after the first wave took the slot of the latest CTA to end before it started,
and the gap between the two (the SM's clock64) is the CTA retire-and-launch cost. chase: a pointer chase by one
thread over 4 MiB (L2-resident: the run before left it there) and 64 MiB (HBM: L2 flushed before each run; a working
set this small keeps TLB misses out), cycles per dependent load from clock64. Writes cta_launch_h200.csv (one row
per quantity: median, p10, p90).
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/cta_launch.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "cta_launch.cu"
SPIN_CYCLES, WAVES = 20_000, 40
LINE_WORDS = 32  # 128-byte spacing: every step a different L2 line


def turnaround(module: cp.RawModule, sms: int, ctas_per_sm: int) -> dict[str, float]:
    kernel = module.get_function("turnaround")
    smem = 120 * 1024 if ctas_per_sm == 1 else 64 * 1024
    kernel.max_dynamic_shared_size_bytes = smem
    ctas = sms * ctas_per_sm * WAVES
    log = cp.zeros(3 * ctas, dtype=cp.uint64)
    for _ in range(2):
        kernel((ctas,), (128,), (np.uint64(SPIN_CYCLES), log), shared_mem=smem)
    cp.cuda.runtime.deviceSynchronize()
    entries = log.get().reshape(ctas, 3).astype(np.float64)
    gaps = []
    for sm in np.unique(entries[:, 0]):
        mine = entries[entries[:, 0] == sm]
        starts, ends = np.sort(mine[:, 1]), np.sort(mine[:, 2])
        later = starts[ctas_per_sm:]  # each took the slot of the latest CTA to end before it started
        freed = ends[np.searchsorted(ends, later, side="right") - 1]
        gaps.extend(later - freed)
    gap_cycles = np.asarray(gaps)
    return {
        "quantity": f"cta_launch_gap_{ctas_per_sm}_per_sm",
        "median_cycles": float(np.median(gap_cycles)),
        "p10_cycles": float(np.percentile(gap_cycles, 10)),
        "p90_cycles": float(np.percentile(gap_cycles, 90)),
        "samples": len(gaps),
    }


def chase(module: cp.RawModule, working_set_bytes: int, steps: int, flush: common.L2Flusher | None) -> dict[str, float]:
    kernel = module.get_function("chase")
    count = working_set_bytes // (4 * LINE_WORDS)
    order = np.random.default_rng(1).permutation(count)
    next_line = np.empty(count, dtype=np.int64)
    next_line[order] = np.roll(order, -1)
    table = cp.zeros(count * LINE_WORDS, dtype=cp.uint32)
    table[cp.arange(count) * LINE_WORDS] = cp.asarray(next_line * LINE_WORDS, dtype=cp.uint32)
    sink, cycles = cp.zeros(1, dtype=cp.uint32), cp.zeros(1, dtype=cp.uint64)
    runs = []
    for _ in range(5):
        if flush is not None:
            flush()
        kernel((1,), (1,), (table, np.int32(steps), sink, cycles))
        runs.append(float(cycles.get()[0]) / steps)
    warm = runs[1:]  # the first run also fills the TLBs (and, without a flush, the L2)
    return {
        "quantity": f"chase_{working_set_bytes >> 20}_mib",
        "median_cycles": float(np.median(warm)),
        "p10_cycles": min(warm),
        "p90_cycles": max(warm),
        "samples": len(warm),
    }


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    module = cp.RawModule(code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS)
    rows = [turnaround(module, sms, 1), turnaround(module, sms, 2)]
    rows += [chase(module, 4 << 20, 20_000, None), chase(module, 64 << 20, 20_000, common.L2Flusher())]
    for row in rows:
        print(row, flush=True)
    common.write_rows(out_dir / "cta_launch_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()

"""Device probe: the HBM's sustained rate as a function of the read/write mix (`hbm_mix.cu`).

The arch files give one HBM rate for every stream (the H200's device-to-device copy, 0.885 of the datasheet), but
SM-issued streams measured apart reach 4.53 TB/s read-only and 3.8 TB/s of DRAM writes (`validation/h200/README.md`,
twenty-first session). This probe times streams of R source and W destination arrays of 2 GiB each (32x the L2,
so every byte is DRAM traffic; at most ~28 MB of a stream's stores stay dirty in L2 past its end, <= 1.4% of its
writes, and back-to-back runs write back the ones before), for mixes from read-only to write-only, at 2 and 4 CTAs
of 256 threads per SM (the stream saturates if both give the same rate). Rate = (R + W) x 2 GiB / median time
(CUDA events, `common.time_gpu`, back to back, no flush). Writes `hbm_mix_h200.csv` and the GPU facts to
`hbm_mix_gpu.txt`. Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/hbm_mix.py
OUT [ARRAY_MIB]`: ARRAY_MIB (default 2048) sizes each array; the mixes hold 38 of them at once, so an 80 GB H100 takes
1024 (still 20x its L2).
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "hbm_mix.cu"
ARRAY_BYTES = 2 << 30
MIXES = (
    (1, 0), (2, 0), (19, 1), (9, 1), (4, 1), (3, 1), (2, 1), (3, 2), (1, 1), (2, 2), (2, 3), (1, 2), (1, 3),
    (1, 4), (1, 7), (1, 9), (1, 19), (0, 1), (0, 2),
)  # fmt: skip
CTAS_PER_SM = (2, 4)
THREADS = 256


def main(out: Path, array_bytes: int = ARRAY_BYTES) -> None:
    out.mkdir(parents=True, exist_ok=True)
    facts = common.gpu_facts()
    (out / "hbm_mix_gpu.txt").write_text(f"{facts}\n", encoding="utf-8")
    names = [f"hbm_mix_{r}_{w}" for r, w in MIXES]
    module = cp.RawModule(code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS)
    n4 = array_bytes // 16
    most_r = max(r for r, _ in MIXES)
    most_w = max(w for _, w in MIXES)
    src = cp.ones(most_r * n4 * 4, dtype=cp.float32)
    dst = cp.zeros(max(1, most_w) * n4 * 4, dtype=cp.float32)
    rows = []
    for (reads, writes), name in zip(MIXES, names, strict=True):
        kernel = module.get_function(name)
        for per_sm in CTAS_PER_SM:
            grid = (per_sm * facts["sm_count"],)
            timing = common.time_gpu(lambda k=kernel, g=grid: k(g, (THREADS,), (src, dst, cp.uint64(n4))), target_s=1.0)
            nbytes = (reads + writes) * array_bytes
            rows.append(
                {
                    "array_bytes": array_bytes,
                    "reads": reads,
                    "writes": writes,
                    "write_fraction": writes / (reads + writes),
                    "ctas_per_sm": per_sm,
                    "median_ms": timing.median_ms,
                    "p10_ms": timing.p10_ms,
                    "p90_ms": timing.p90_ms,
                    "runs": timing.runs,
                    "tb_per_s": nbytes / (timing.median_ms * 1e-3) / 1e12,
                }
            )
            print(rows[-1], flush=True)
        if writes:  # every destination holds (index + R) in each lane: the stores happened
            got = dst[: 4 * 8].get().reshape(8, 4)[:, 0]
            expected = [float(i + reads) for i in range(8)]
            if list(got) != expected:
                raise RuntimeError(f"{name}: destination starts {list(got)}, expected {expected}")
    common.write_rows(out / "hbm_mix_h200.csv", rows)


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]) << 20 if len(sys.argv) > 2 else ARRAY_BYTES)

"""Device probe: an ldmatrix's latency while cp.async copies land in the same SM (`ldmatrix_under_copies.cu`).

Why: our standard PV kernel at d = 128 (one CTA of 4 warps per SM) takes about as long as its copies and its
product added up, though each half of the product (its ldmatrix, its mma.sync) hides under the copies, and at
d = 64 the whole product hides (`validation/h200/std_kernels/`). Its product alone takes ~30 cycles per fragment
group, the latency of one ldmatrix: if copies landing lengthen that latency, a lone warp's chain exposes it.

One CTA per SM (132), 64 rounds, each: every warp issues COPIES cp.async of 16 bytes per thread from HBM, then a
dependent chain of `chain` ldmatrix.x4, then waits for its copies; per setting the medians over the warps of the
cycles per chained ldmatrix and per round. Settings (warps, copies per thread per round, chain): the PV's k step
at d = 128 (4 warps, 32 copies: 64 KB; 64 fragment groups) and at d = 64 (24 copies: 48 KB; 32 groups), each also
without copies and without the chain, and at 8 warps (16 copies each, the same 64 KB). Writes
ldmatrix_under_copies_h200.csv and ldmatrix_under_copies_gpu_h200.csv.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/ldmatrix_under_copies.py OUT`.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from cupy_kernels import common
from cupy_kernels.common import cp

SOURCE = Path(__file__).resolve().parent / "ldmatrix_under_copies.cu"
SMS, ROUNDS = 132, 64
SMEM_BYTES = 120 * 1024  # one CTA per SM
SETTINGS = (  # (warps, copies per thread per round, chain)
    (4, 32, 64),
    (4, 0, 64),
    (4, 32, 0),
    (4, 24, 32),
    (4, 0, 32),
    (4, 24, 0),
    (8, 16, 64),
    (8, 0, 64),
    (8, 16, 0),
)


def main() -> None:
    out_dir = Path(sys.argv[1])
    most = max(warps * 32 * copies for warps, copies, _ in SETTINGS)
    src = cp.zeros((SMS * ROUNDS * most, 4), dtype=cp.uint32)
    rows: list[dict[str, object]] = []
    for warps, copies, chain in SETTINGS:
        kernel = common.get_kernel(SOURCE, f"ldmatrix_under_copies<{warps}, {copies}>", SMEM_BYTES)
        cycles = cp.zeros((SMS * warps, 2), dtype=cp.int64)
        args = (src, cp.int32(ROUNDS), cp.int32(chain), cp.uint32(0), cycles)
        for _ in range(2):  # the first run compiles and warms up
            kernel((SMS,), (warps * 32,), args, shared_mem=SMEM_BYTES)
        cp.cuda.Stream.null.synchronize()
        got = cycles.get()
        per_ldmatrix = statistics.median(got[:, 0] / (ROUNDS * chain)) if chain else float("nan")
        rows.append(
            {"warps": warps, "copies_per_thread": copies, "copy_bytes_per_round": warps * 32 * copies * 16,
             "chain": chain, "cycles_per_ldmatrix": per_ldmatrix,
             "cycles_per_round": statistics.median(got[:, 1] / ROUNDS)}
        )  # fmt: skip
        print(rows[-1], flush=True)
    common.write_rows(out_dir / "ldmatrix_under_copies_h200.csv", rows)
    print("gpu:", common.write_gpu_facts(out_dir / "ldmatrix_under_copies_gpu_h200.csv"))


if __name__ == "__main__":
    main()

"""Device probe: which dependency chains does another warp's dense issue on their scheduler slow, and by how much?
(`chain_beside.cu`; the question comes from `docs/results/hold_38/README.txt`: a dependent FFMA chain takes 4.06
cycles a step alone and 5.08 beside a warp of independent FFMAs, a SHFL chain 24.14 and 31.88, and the softmax
pair's row maximum is slowed beside the other warpgroup's exp pass.)

Every chain kind (FFMA, MUFU.EX2, SHFL.BFLY, MUFU.EX2 + FADD, FMNMX + FADD; and streams of independent exps, FMNMXs
or FADDs, whose "step" is one instruction) runs on warp 0 beside every busy kind on
warp 4 (its scheduler): nothing, dense independent FFMAs, FFMAs at half density, independent FMNMXs (the ALU),
independent FADDs, independent exps, and dense FFMAs on warp 1 (another scheduler). Per pair the chain's cycles per
step, median over the SMs (min, max beside); each busy kind alone gives its warp's cycles per instruction. Writes
`chain_beside.csv` and the GPU facts; with `--kernel-list` prints the kernels' names in launch order (for the
Nsight Compute script `chain_beside_ncu.sh`). Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/chain_beside.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np
from mufu_queue import spread  # this folder: the probes' scripts run from it

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "chain_beside.cu"
CHAINS = {0: "ffma", 1: "mufu", 2: "shfl", 3: "mufu_fadd", 4: "fmnmx_fadd", 5: "none", 6: "exp stream",
          7: "fmnmx stream", 8: "fadd stream"}  # fmt: skip
BUSY = {
    0: "nothing",
    1: "ffma x16, same scheduler",
    2: "ffma x2, same scheduler",
    3: "fmnmx x16, same scheduler",
    4: "fadd x16, same scheduler",
    5: "exp x16, same scheduler",
    6: "ffma x16, another scheduler",
}
PAIRS = [(chain, busy) for chain in CHAINS for busy in BUSY if (chain != 5 or busy != 0) and (chain < 6 or busy < 6)]
STREAM_ITERS = 2048  # x 32 independent instructions: at one per 8 cycles (exps) still shorter than the busy loops
ITERS = 256  # x 32 dependent steps: at most about 35 cycles each
BUSY_ITERS = 32768  # x 16 instructions: at one a cycle longer than any chain
STEPS_PER_ITER = 32
BUSY_PER_ITER = 16
WARPS = 8
SMEM_BYTES = 120 * 1024  # over half the SM's shared memory: one CTA per SM


def name(chain: int, busy: int) -> str:
    return f"chain_beside<{chain}, {busy}>"


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    facts = common.write_gpu_facts(out / "chain_beside_gpu.csv")
    sms = facts["sm_count"]
    names = [name(chain, busy) for chain, busy in PAIRS]
    module = common.module_with_defines(SOURCE, {}, names, ("-std=c++17", "-arch=sm_90a"))
    seed = cp.asarray(np.concatenate([np.linspace(0.1, 0.9, 64), [0.99951171875, 0.25]]).astype(np.float32))
    sink = cp.zeros(256, dtype=cp.float32)
    cycles = cp.zeros(sms, dtype=cp.int64)
    busy_cycles = cp.zeros(sms, dtype=cp.int64)
    rows = []
    for chain, busy in PAIRS:
        kernel = module.get_function(name(chain, busy))
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        for _ in range(2):  # the second launch is kept (the first warms clocks and caches)
            cycles.fill(0)
            busy_cycles.fill(0)
            iters = STREAM_ITERS if chain >= 6 else ITERS
            args = (seed, np.int32(iters), np.int32(BUSY_ITERS), cycles, busy_cycles, sink)
            kernel((sms,), (32 * WARPS,), args, shared_mem=SMEM_BYTES)
            cp.cuda.Device().synchronize()
        row: dict[str, object] = {"chain": CHAINS[chain], "beside": BUSY[busy]}
        if chain != 5:
            steps = (STREAM_ITERS if chain >= 6 else ITERS) * STEPS_PER_ITER
            row.update(spread("chain_cycles_per_step", cycles.get().astype(np.float64) / steps))
        if busy != 0:
            per_instruction = busy_cycles.get().astype(np.float64) / (BUSY_ITERS * BUSY_PER_ITER)
            row.update(spread("busy_cycles_per_instruction", per_instruction))
        rows.append(row)
        print(row, flush=True)
    keys = sorted({key for row in rows for key in row}, key=lambda key: (key not in ("chain", "beside"), key))
    common.write_rows(out / "chain_beside.csv", [{key: row.get(key, "") for key in keys} for row in rows])


if __name__ == "__main__":
    if sys.argv[1] == "--kernel-list":
        print("\n".join(name(chain, busy) for chain, busy in PAIRS))
    else:
        main(Path(sys.argv[1]))

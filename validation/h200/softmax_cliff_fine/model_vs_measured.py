"""The two-pass softmax alone on the H200 model, fast and exact mode, against `softmax_reuse_h200.csv` beside it (the
chip, N = 1280-2816 in steps of 256): passes of S from HBM and milliseconds per N. Two worker processes.
Run from the repository root (output: `model_vs_measured.txt`), with D = validation/h200/softmax_cliff_fine:
`python $D/model_vs_measured.py $D/softmax_reuse_h200.csv`."""

from __future__ import annotations

import csv
import sys
from concurrent.futures import ProcessPoolExecutor

import simgpu
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import run_fast


def one(row):
    arch = load_arch("h200")
    b, h, n = int(row["batch"]), int(row["heads"]), int(row["seqlen"])
    k = schedule(arch, "standard", Problem(b, h, n, 64), {"softmax_passes": 2})[1]
    s = float(row["s_bytes"])
    f = run_fast(arch, [k], arch.clock_hz, 10**9)
    e = Engine(arch).run([k])
    return (
        f"N={n}: passes measured {float(row['passes_from_dram']):.2f}, fast {f.hbm_read_bytes / s:.2f}, exact "
        f"{e.hbm_read_bytes / s:.2f}; ms measured {float(row['median_ms']):.3f}, fast "
        f"{f.cycles / arch.clock_hz * 1e3:.3f}, exact {e.cycles / arch.clock_hz * 1e3:.3f}"
    )


if __name__ == "__main__":
    print("#", simgpu.__file__)
    with open(sys.argv[1], encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with ProcessPoolExecutor(2) as pool:
        for line in pool.map(one, rows):
            print(line, flush=True)

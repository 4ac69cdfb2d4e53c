"""The L2's dirty capacity (`l2.max_dirty_fraction`, `simgpu.units.l2`) against two measurements on the H200.

1. `validation/h200/l2_writeback/` (probe `validation/probes/l2_writeback.py`, Nsight Compute with caches and clocks
   left alone, one pass of DRAM counters per kernel): how many bytes a kernel's stores leave dirty in L2 when it
   ends, measured as the DRAM writes of the next kernel that evicts them, and what stores that keep re-dirtying a
   resident buffer write back while they run.
2. `validation/h200/l2_writeback/l2_capacity_ncu_h200.csv` (the same probe, `--capacity`): a buffer of 24-64 MiB read
   twice after L2 was left clean, and read right after it was stored: the re-read's DRAM reads, against the model's
   L2 (LRU over the whole capacity: it hits all of a re-read that fits, none of one that does not).
3. Our FA1-order forward (`validation/h200/v1_l2_bytes*_h200.csv`, probe `validation/probes/v1_l2_bytes.py`): DRAM
   bytes as the CTAs' fp32 O working sets together grow past the dirty capacity, against the model's reads and the
   writes it makes while the kernel runs (its bytes less the dirty tiles it writes back after the run, untimed), with
   the dirty capacity and, as before it, with all of L2 allowed dirty.

Run from the repository root: `python docs/results/l2_writeback_vs_model.py > docs/results/l2_writeback_vs_model.txt`.
"""

from __future__ import annotations

import csv

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast import plan_fast
from simgpu.units.hbm import Hbm
from simgpu.units.l2 import L2

PROBE = "validation/h200/l2_writeback/l2_writeback_ncu_h200.csv"
CAPACITY = "validation/h200/l2_writeback/l2_capacity_ncu_h200.csv"
V1_FILES = ("validation/h200/v1_l2_bytes_h200.csv", "validation/h200/v1_l2_bytes_ladder_h200.csv")
V1_OPTIONS = {"block_m": 64, "block_n": 64, "warps": 4}


def probe_summary() -> None:
    with open(PROBE, newline="") as handle:
        rows = {row["step"]: row for row in csv.DictReader(handle)}
    arch = load_arch("h200")
    print(f"L2 {arch.l2.capacity_bytes / 1e6:.1f} MB; the model's dirty capacity "
          f"{arch.l2.dirty_capacity_bytes / 1e6:.1f} MB (max_dirty_fraction {arch.l2.max_dirty_fraction})")  # fmt: skip
    print("stored MiB: DRAM writes MB during the stores | in the next kernel (the dirty tail it evicts)")
    for mib in (16, 32, 128):
        writes = [float(rows[f"{mib} {step}"]["dram__bytes_write.sum"]) / 1e6 for step in ("fill", "sum after fill")]
        tail = float(rows[f"{mib} clean 50 ms after fill"]["dram__bytes_write.sum"]) / 1e6
        print(f"  fill {mib}: {writes[0]:.1f} | {writes[1]:.1f} (after 50 ms idle: {tail:.1f})")
        red = [float(rows[f"{mib} {step}"]["dram__bytes_write.sum"]) / 1e6 for step in ("red x4", "sum after red x4")]
        print(f"  RED x4 over {mib}: {red[0]:.1f} | {red[1]:.1f}")
        delta = [float(rows[f"{mib} {step}"]["dram__bytes_write.sum"]) / 1e6 for step in ("delta", "clean after delta")]
        print(f"  Delta pattern, {mib} zeroed: {delta[0]:.1f} | {delta[1]:.1f}")


def capacity() -> None:
    rows = {}
    with open(CAPACITY, newline="") as handle:
        for row in csv.DictReader(handle):
            rows[row["step"]] = row
    print("\nre-read of a buffer, MB: size | DRAM reads of a second read (model) | of a read after a store (model)")
    for mib in sorted({int(step.split()[0]) for step in rows}):
        size = mib * 2**20
        again = float(rows[f"{mib} sum again"]["dram__bytes_read.sum"]) / 1e6
        after_fill = float(rows[f"{mib} sum after fill"]["dram__bytes_read.sum"]) / 1e6
        model = [_model_reread(mib, first) / 1e6 for first in ("load", "store")]
        print(f"  {size / 1e6:5.1f} | {again:5.1f} ({model[0]:5.1f}) | {after_fill:5.1f} ({model[1]:5.1f})")


def _model_reread(mib: int, first: str) -> float:
    """HBM reads of the model's L2 (`simgpu.units.l2.L2`, the H200's capacity and dirty capacity) reading a buffer
    of `mib` MiB in 1 MiB tiles in order, after the same tiles were loaded or stored in order into an empty L2."""
    arch = load_arch("h200")
    hbm = Hbm(1.0, 0.0)
    l2 = L2(arch.l2.capacity_bytes, 1.0, 0.0, hbm, dirty_capacity_bytes=arch.l2.dirty_capacity_bytes)
    for tile in range(mib):
        (l2.load if first == "load" else l2.store)(0.0, ("buffer", tile), 2**20)
    before = hbm.read_bytes
    for tile in range(mib):
        l2.load(0.0, ("buffer", tile), 2**20)
    return hbm.read_bytes - before


def v1_ladder() -> None:
    rows = []
    for name in V1_FILES:
        with open(name, newline="") as handle:
            rows += list(csv.DictReader(handle))
    rows.sort(key=lambda r: int(r["batch"]) * int(r["heads"]) * int(r["seqlen"]))
    capped = load_arch("h200")
    uncapped = capped.with_overrides({"l2.max_dirty_fraction": 1.0})
    print("\nv1 forward, d = 64: batch x heads x seqlen (CTAs, their fp32 O together): DRAM read / write GB measured |")
    print("model, dirty capacity | model, all of L2 dirty (writes: those made while the kernel runs)")
    for r in rows:
        problem = Problem(int(r["batch"]), int(r["heads"]), int(r["seqlen"]), 64, dtype="bf16", pass_="fwd")
        cells = []
        for arch in (capped, uncapped):
            read, _, timed, _, _ = plan_fast(arch, schedule(arch, "v1", problem, V1_OPTIONS)).bytes_full
            # The HBM's busy bytes while the run lasts count a written byte at its write cost.
            written = (timed - read) / arch.hbm.write_cost_ratio
            cells.append(f"{read / 1e9:.3f} / {written / 1e9:.3f}")
        ctas = problem.batch * problem.heads
        working = ctas * problem.seqlen_q * 64 * 4 / 1e6
        read, write = float(r["dram__bytes_read.sum"]) / 1e9, float(r["dram__bytes_write.sum"]) / 1e9
        print(f"{r['batch']} x {r['heads']} x {r['seqlen']} ({ctas}, {working:.0f} MB): {read:.3f} / {write:.3f} | "
              f"{cells[0]} | {cells[1]}")  # fmt: skip


if __name__ == "__main__":
    probe_summary()
    capacity()
    v1_ladder()

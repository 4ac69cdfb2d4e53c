"""Which unit bounds v2 (FA2) on the H200: the model's busiest unit against Nsight Compute's counters on our FA2
forward kernel (`validation/h200/fa2_ncu_d{64,128}.csv`: B = 4, H = 2048 / d, N = 4096, bf16, 2026-11-29).

`python docs/results/checks_2026-12-02aa.py > docs/results/checks_2026-12-02aa.txt` (seconds). Per unit, the share
of the run it is busy: the model's `Result.busy` (fast mode), and ncu's pipe-active percentages; for shared memory,
ncu's LSU wavefronts to shared memory per SM over the elapsed SM cycles (one 128-byte wavefront per cycle).
"""

from __future__ import annotations

import csv
from pathlib import Path

from simgpu import Problem, load_arch, simulate

ROOT = Path(__file__).resolve().parents[2]
NCU_UNITS = {
    "tensor": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "issue": "sm__issue_active.avg.pct_of_peak_sustained_elapsed",
    "mufu": "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",
    "alu": "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "fma": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
}


def ncu(d: int) -> dict[str, float]:
    values: dict[str, float] = {}
    header: list[str] | None = None
    with (ROOT / f"validation/h200/fa2_ncu_d{d}.csv").open(encoding="utf-8") as handle:
        for row in csv.reader(handle):
            if row and row[0] == "ID":
                header = row
            elif header and len(row) == len(header):
                values[row[header.index("Metric Name")]] = float(row[header.index("Metric Value")].replace(",", ""))
    return values


def main() -> None:
    sms = load_arch("h200").sms
    for d in (64, 128):
        counters = ncu(d)
        elapsed_cycles = counters["gpu__time_duration.sum"] * 1e-9 * counters["sm__cycles_elapsed.avg.per_second"]
        measured = {unit: counters[name] / 100 for unit, name in NCU_UNITS.items()}
        measured["smem"] = counters["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"] / sms / elapsed_cycles
        result = simulate("h200", "v2", Problem(4, 2048 // d, 4096, d))
        print(f"d={d}: measured {counters['gpu__time_duration.sum'] / 1e6:.3f} ms, model {result.time_s * 1e3:.3f} ms")
        for unit in ("tensor", "smem", "issue", "mufu", "alu", "fma"):
            print(f"  {unit:7} measured {measured[unit]:6.1%}   model {result.busy[unit]:6.1%}")
        print(f"  busiest: measured {max(measured, key=measured.__getitem__)}, model {result.bottleneck}")


if __name__ == "__main__":
    main()

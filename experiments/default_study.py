"""The default study (`make run`): every registered workload on every shipped arch at one standard shape.

Prints a table (cycles, TFLOP/s, % of the dtype's peak, HBM bytes, bottleneck) and writes it as CSV under `out/`.
Today the workload is the bf16 GEMM; attention algorithms join the table as their schedules land.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from experiments._common import OUT_DIR, write_csv
from simgpu import GemmProblem, load_arch, simulate
from simgpu.arch import available_archs

SHIPPED = ("a100", "h100", "h200", "b200")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a small GEMM, for tests")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    size = 1024 if args.quick else 4096
    problem = GemmProblem(size, size, size, "bf16")
    rows = []
    for name in (a for a in SHIPPED if a in available_archs()):
        arch = load_arch(name)
        result = simulate(arch, "gemm", problem)
        peak = arch.tensor_core.flops_per_cycle["bf16"] * arch.sms * result.clock_hz
        rows.append(
            {
                "arch": name,
                "algo": "gemm",
                "shape": f"{size}x{size}x{size}",
                "clock_mhz": round(result.clock_hz / 1e6),
                "cycles": round(result.cycles),
                "time_ms": result.time_s * 1e3,
                "tflops": result.tflops,
                "pct_peak": 100 * result.flops / result.time_s / peak,
                "hbm_mb": result.hbm_bytes / 1e6,
                "bottleneck": result.bottleneck,
            }
        )
    path = write_csv(args.out / "default_study.csv", rows)
    print(
        f"{'arch':<5} {'algo':<5} {'shape':<15} {'MHz':>5} {'cycles':>10} {'ms':>8} {'TFLOP/s':>8} "
        f"{'%peak':>6} {'HBM MB':>8}  bottleneck"
    )
    for r in rows:
        print(
            f"{r['arch']:<5} {r['algo']:<5} {r['shape']:<15} {r['clock_mhz']:>5} {r['cycles']:>10} "
            f"{r['time_ms']:>8.3f} {r['tflops']:>8.1f} {r['pct_peak']:>6.1f} {r['hbm_mb']:>8.1f}  {r['bottleneck']}"
        )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

"""The GEMM check of the core issue: predict the 8192^3 bf16 GEMM and compare with measurements.

On the H200, two power states, two arch files, no GEMM-specific factor:
- `h200`: a short run, whose power-limited clock comes from a wgmma microbenchmark (1598 MHz saturated). Measured
  for it: one cuBLAS launch under Nsight Compute (`validation/h200/gemm_ncu_h200.csv`: 1.383 ms, 795 TFLOP/s).
- `h200_sustained`: tens of seconds at the 700 W cap, with the cycle-counted saturated clock of that state (1303
  MHz, `validation/h200/sustained_clock_h200.csv`). Measured for it: the ceilings file's sustained torch matmul
  (`validation/h200/ceilings.json`, 693 TFLOP/s).
Writes one CSV row per arch, then a bar chart of predicted against measured TFLOP/s from it (`gemm_ceiling_h200`).

The A100 the same way, against a published figure (`gemm_ceiling_a100`): cuBLAS's 8192^3 fp16 GEMM on an A100 SXM4
40GB at 297 TFLOP/s (github.com/NVIDIA/cutlass discussion #241, CUDA 11.3; CUTLASS 295 there; fp16 and bf16 share
the A100's 312 TFLOP/s peak). We have no A100 to measure.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from experiments._common import OUT_DIR, print_row, save
from simgpu import GemmProblem, simulate

VALIDATION = Path(__file__).resolve().parents[1] / "validation" / "h200"
CEILINGS = VALIDATION / "ceilings.json"
NCU_GEMM = VALIDATION / "gemm_ncu_h200.csv"
A100_PUBLISHED = ("cuBLAS fp16, published (CUTLASS #241)", 297.0)  # TFLOP/s; the module's docstring gives the source


def ncu_gemm_tflops(size: int = 8192) -> float:
    """TFLOP/s of the 8192^3 cuBLAS launch that Nsight Compute timed (`gpu__time_duration.sum`, ns)."""
    lines = NCU_GEMM.read_text(encoding="utf-8").splitlines()
    rows = csv.DictReader(line for line in lines if line.startswith('"'))
    (duration,) = (r["Metric Value"] for r in rows if r["Metric Name"] == "gpu__time_duration.sum")
    nanoseconds = float(duration.replace(",", ""))
    return 2.0 * size**3 / (nanoseconds * 1e-9) / 1e12


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="2048^3 instead of 8192^3 (no comparison)")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    size = 2048 if args.quick else 8192
    measured = {
        "h200": ("cuBLAS, one launch (ncu)", ncu_gemm_tflops()),
        "h200_sustained": ("torch, sustained (ceilings file)", json.loads(CEILINGS.read_text())["bf16_mm_TFLOPs"]),
    }
    save(_rows(measured, size), args.out, "gemm_ceiling_h200", plot)
    save(_rows({"a100": A100_PUBLISHED}, size), args.out, "gemm_ceiling_a100", plot)


def _rows(measured: dict[str, tuple[str, float]], size: int) -> list[dict[str, object]]:
    """One row per arch: the exact-mode prediction of the size^3 bf16 GEMM, and the measured figure at 8192^3."""
    rows = []
    for arch, (source, tflops) in measured.items():
        result = simulate(arch, "gemm", GemmProblem(size, size, size, "bf16"), mode="exact")
        rows.append(
            {
                "arch": arch,
                "shape": f"{size}^3 bf16",
                "predicted_tflops": result.tflops,
                "predicted_clock_mhz": result.clock_hz / 1e6,
                "measured": source if size == 8192 else "",
                "measured_tflops": tflops if size == 8192 else "",
                "relative_error": (result.tflops - tflops) / tflops if size == 8192 else "",
                "bottleneck": result.bottleneck,
                "tensor_busy": result.busy["tensor"],
                "sim_wall_s": result.sim_wall_s,
            }
        )
        print_row(rows[-1])
    return rows


def plot(csv_path: Path, png_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    labels, values, colors = [], [], []
    for row in rows:
        labels.append(f"{row['arch']}\npredicted ({float(row['predicted_clock_mhz']):.0f} MHz)")
        values.append(float(row["predicted_tflops"]))
        colors.append("tab:blue")
        if row["measured_tflops"]:
            labels.append(f"{row['arch']}\nmeasured: {row['measured']}")
            values.append(float(row["measured_tflops"]))
            colors.append("tab:gray")
    figure, axis = plt.subplots(figsize=(9, 4.5))
    drawn = axis.bar(labels, values, color=colors)
    axis.bar_label(drawn, [f"{v:.0f}" for v in values])
    axis.set_ylabel("TFLOP/s")
    axis.tick_params(axis="x", labelsize=7)
    bounds = ", ".join(sorted({row["bottleneck"] for row in rows}))
    archs = ", ".join(row["arch"] for row in rows)
    axis.set_title(f"GEMM {rows[0]['shape']} ({archs}): bound by {bounds}")
    figure.tight_layout()
    figure.savefig(png_path, dpi=130)
    plt.close(figure)


if __name__ == "__main__":
    main()

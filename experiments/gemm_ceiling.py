"""The H200 GEMM check of the core issue: predict the 8192^3 bf16 GEMM and compare with the measured ceiling.

Measured: `validation/h200/ceilings.json` (torch matmul, 8192^3 bf16, median; 2026-11-29). The prediction uses
only the h200 arch file (including its power-limited clock), no GEMM-specific factor. Writes one CSV row, then a
bar chart of predicted against measured TFLOP/s from it.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from experiments._common import OUT_DIR, save
from simgpu import GemmProblem, simulate

CEILINGS = Path(__file__).resolve().parents[1] / "validation" / "h200" / "ceilings.json"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="2048^3 instead of 8192^3 (no comparison)")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    size = 2048 if args.quick else 8192
    measured = json.loads(CEILINGS.read_text())["bf16_mm_TFLOPs"]
    result = simulate("h200", "gemm", GemmProblem(size, size, size, "bf16"), mode="exact")
    row = {
        "arch": "h200",
        "shape": f"{size}^3 bf16",
        "predicted_tflops": result.tflops,
        "predicted_clock_mhz": result.clock_hz / 1e6,
        "measured_tflops": measured if size == 8192 else "",
        "relative_error": (result.tflops - measured) / measured if size == 8192 else "",
        "bottleneck": result.bottleneck,
        "tensor_busy": result.busy["tensor"],
        "sim_wall_s": result.sim_wall_s,
    }
    print(", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
    save([row], args.out, "gemm_ceiling_h200", plot)


def plot(csv_path: Path, png_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        (row,) = list(csv.DictReader(handle))
    bars = {f"predicted ({float(row['predicted_clock_mhz']):.0f} MHz)": float(row["predicted_tflops"])}
    if row["measured_tflops"]:
        bars["measured (torch, sustained)"] = float(row["measured_tflops"])
    figure, axis = plt.subplots(figsize=(6, 4))
    drawn = axis.bar(list(bars), list(bars.values()), color=["tab:blue", "tab:gray"][: len(bars)])
    axis.bar_label(drawn, [f"{v:.0f}" for v in bars.values()])
    axis.set_ylabel("TFLOP/s")
    axis.set_title(f"H200 GEMM {row['shape']}: bound by {row['bottleneck']}")
    figure.tight_layout()
    figure.savefig(png_path, dpi=130)
    plt.close(figure)


if __name__ == "__main__":
    main()

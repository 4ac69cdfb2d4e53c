"""FA3's ablation (Shah et al. 2024, Table 2) on the H100 model: the v3 schedule with each mechanism switched off.

Shape of the table: batch 4, 16 heads, seqlen 8448, d = 128, bf16, non-causal, forward. Variants: FA3 as configured
(warp specialization, ping-pong, intra-warpgroup overlap), without the GEMM-softmax pipelining
(`intra_wg_overlap=False`), without warp specialization (`warp_specialization=False`). Published: 661, 582, 570
TFLOP/s. Exact mode; the arch file `h100` as it is (its power model gives the clock). Writes `fa3_ablation.csv`
(predicted and published TFLOP/s, each as a share of the full configuration, the bottleneck unit), then a bar
chart from it. `--quick`: seqlen 1024, batch 1 (no published figure).
"""

from __future__ import annotations

import csv
from pathlib import Path

from experiments._common import parse_args, save
from simgpu import Problem, simulate

SHAPE = {"batch": 4, "heads": 16, "seqlen": 8448, "headdim": 128}
QUICK_SHAPE = {"batch": 1, "heads": 16, "seqlen": 1024, "headdim": 128}
VARIANTS = (
    ("FA3", {}, 661.0),
    ("no GEMM-softmax pipelining", {"intra_wg_overlap": False}, 582.0),
    ("no warp specialization", {"warp_specialization": False}, 570.0),
)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    args = parse_args(__doc__, "seqlen 1024, batch 1, no published figure", argv)
    shape = QUICK_SHAPE if args.quick else SHAPE
    problem = Problem(shape["batch"], shape["heads"], shape["seqlen"], shape["headdim"])
    rows: list[dict[str, object]] = []
    for name, options, published in VARIANTS:
        result = simulate("h100", "v3", problem, options, mode="exact")
        rows.append(
            {
                "variant": name,
                "options": " ".join(f"{k}={v}" for k, v in options.items()),
                **shape,
                "predicted_tflops": result.tflops,
                "published_tflops": "" if args.quick else published,
                "bottleneck": result.bottleneck,
                "clock_mhz": result.clock_hz / 1e6,
                "sim_wall_s": result.sim_wall_s,
            }
        )
    full_predicted = float(rows[0]["predicted_tflops"])  # type: ignore[arg-type]
    for row, (_, _, published) in zip(rows, VARIANTS, strict=True):
        row["predicted_share_of_full"] = float(row["predicted_tflops"]) / full_predicted  # type: ignore[arg-type]
        row["published_share_of_full"] = "" if args.quick else published / VARIANTS[0][2]
    save(rows, args.out, "fa3_ablation", plot)
    return rows


def plot(csv_path: Path, png_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    figure, axes = plt.subplots(figsize=(7.5, 4))
    positions = range(len(rows))
    predicted = [float(r["predicted_tflops"]) for r in rows]
    axes.bar([p - 0.2 for p in positions], predicted, width=0.4, label="simgpu (h100, exact)", color="tab:blue")
    if rows[0]["published_tflops"]:
        published = [float(r["published_tflops"]) for r in rows]
        axes.bar([p + 0.2 for p in positions], published, width=0.4, label="FA3 Table 2", color="tab:gray")
    for p, row in zip(positions, rows, strict=True):
        axes.annotate(
            row["bottleneck"], (p - 0.2, float(row["predicted_tflops"])), ha="center", va="bottom", fontsize=8
        )
    axes.set_xticks(list(positions), [r["variant"] for r in rows], fontsize=8)
    axes.set_ylabel("TFLOP/s")
    first = rows[0]
    axes.set_title(
        f"FA3 ablation, H100, B={first['batch']} H={first['heads']} N={first['seqlen']} d={first['headdim']}"
    )
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(png_path, dpi=120)
    plt.close(figure)


if __name__ == "__main__":
    main()

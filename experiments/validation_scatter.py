"""Predicted against measured, from the committed H200 validation CSVs only (no GPU, no simulation).

Reads every `validation/h200/model_vs_*.csv` and sorts it by its columns: files with `measured_ms` and
`predicted_ms` (today `model_vs_measured_{standard,v1,v2,v3}.csv`: our kernels' CUDA-event medians against
`simgpu validate`) go to the time panel, one series per algorithm and pass; files with `measured_read_bytes`,
`predicted_read_bytes` and their write twins (`model_vs_ncu_bytes.csv`, `model_vs_ncu_bytes_standard.csv`: Nsight
Compute's DRAM bytes of one launch) go to the DRAM-bytes panel, one series per algorithm and direction: read,
write, and read + write (the total the files' own `rel_error` column compares; marked x). Other
files under validation/h200/ hold measurements without a prediction (e.g. `v3_kernels_h200.csv`) and are not used.
MAPE = mean |predicted - measured| / measured over a series' points, in percent. Writes `validation_scatter.csv` (one
row per point, with its series' MAPE), then `validation_scatter.png` (log-log, y = x drawn, MAPE in the legend).
`--quick` is the same run (it is already fast); the flag exists for the experiment convention.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from experiments._common import parse_args, save

VALIDATION_DIR = Path(__file__).resolve().parent.parent / "validation" / "h200"
TIME_COLUMNS = ("measured_ms", "predicted_ms")
BYTE_COLUMNS = ("measured_read_bytes", "measured_write_bytes", "predicted_read_bytes", "predicted_write_bytes")
SHAPE = ("batch", "heads", "seqlen", "headdim", "causal")


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def points(validation_dir: Path = VALIDATION_DIR) -> list[dict[str, object]]:
    """One row per (configuration, quantity) of every model-vs-measured CSV, MAPE of its series attached."""
    rows: list[dict[str, object]] = []
    for path in sorted(validation_dir.glob("model_vs_*.csv")):
        source = path.relative_to(validation_dir.parent.parent).as_posix()
        for r in _read(path):
            shape = {key: r[key] for key in SHAPE}
            if all(column in r for column in TIME_COLUMNS):
                series = f"{r['algo']} {r.get('pass', 'fwd')}"
                rows.append(_point("time_ms", series, source, shape, float(r["measured_ms"]), float(r["predicted_ms"])))
            elif all(column in r for column in BYTE_COLUMNS):
                measured = {d: float(r[f"measured_{d}_bytes"]) for d in ("read", "write")}
                predicted = {d: float(r[f"predicted_{d}_bytes"]) for d in ("read", "write")}
                measured["read+write"] = measured["read"] + measured["write"]
                predicted["read+write"] = predicted["read"] + predicted["write"]
                for d in measured:
                    rows.append(_point("dram_bytes", f"{r['algo']} {d}", source, shape, measured[d], predicted[d]))
    by_series: dict[tuple[object, object], list[float]] = defaultdict(list)
    for row in rows:
        by_series[(row["panel"], row["series"])].append(abs(float(row["rel_error"])))  # type: ignore[arg-type]
    for row in rows:
        errors = by_series[(row["panel"], row["series"])]
        row["series_mape_pct"] = 100 * sum(errors) / len(errors)
        row["series_points"] = len(errors)
    return rows


def _point(panel: str, series: str, source: str, shape: dict[str, str], measured: float, predicted: float) -> dict:
    return {
        "panel": panel,
        "series": series,
        "source": source,
        **shape,
        "measured": measured,
        "predicted": predicted,
        "rel_error": (predicted - measured) / measured,
    }


PANELS = {"time_ms": ("kernel time (ms)", "time"), "dram_bytes": ("DRAM bytes (GB)", "DRAM bytes, Nsight Compute")}
SCALE = {"time_ms": 1.0, "dram_bytes": 1e-9}


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = _read(csv_path)
    panels = [panel for panel in PANELS if any(r["panel"] == panel for r in rows)]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 7.2), squeeze=False, layout="constrained")
    for ax, panel in zip(axes[0], panels, strict=True):
        mine = [r for r in rows if r["panel"] == panel]
        scale = SCALE[panel]
        values = [float(r[k]) * scale for r in mine for k in ("measured", "predicted")]
        lo, hi = min(values) / 1.5, max(values) * 1.5
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8, label="y = x")
        for ratio, style in ((1.1, ":"), (1 / 1.1, ":")):
            ax.plot([lo, hi], [lo * ratio, hi * ratio], "k", ls=style, lw=0.5)
        for i, series in enumerate(dict.fromkeys(r["series"] for r in mine)):
            line = [r for r in mine if r["series"] == series]
            causal = [r["causal"] == "True" for r in line]
            label = f"{series}: MAPE {float(line[0]['series_mape_pct']):.1f}% ({len(line)} points)"
            xs = [float(r["measured"]) * scale for r in line]
            ys = [float(r["predicted"]) * scale for r in line]
            marker = "x" if series.endswith("read+write") else "o"
            ax.scatter(
                [x for x, c in zip(xs, causal, strict=True) if not c],
                [y for y, c in zip(ys, causal, strict=True) if not c],
                color=f"C{i}",
                marker=marker,
                s=26,
                label=label,
            )
            hollow = {"edgecolor": f"C{i}", "facecolor": "none"} if marker == "o" else {"color": f"C{i}"}
            ax.scatter(
                [x for x, c in zip(xs, causal, strict=True) if c],
                [y for y, c in zip(ys, causal, strict=True) if c],
                marker=marker,
                s=26,
                **hollow,
            )
        unit, title = PANELS[panel]
        sources = ", ".join(sorted({r["source"].rsplit("/", 1)[-1] for r in mine}))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_aspect("equal")
        ax.set_xlabel(f"measured {unit}")
        ax.set_ylabel(f"predicted {unit}")
        ax.set_title(f"{title}\n({sources})", fontsize=9)
        ax.grid(True, which="both", alpha=0.2)
        legend_title = "filled: not causal, hollow: causal (x: both); dotted: ±10%"
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), title=legend_title, title_fontsize=8)
    fig.suptitle("simgpu predictions against our kernels measured on an H200 (committed validation CSVs)")
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    args = parse_args(__doc__, "same as the full run (it reads CSVs only)", argv)
    rows = points()
    for panel, series in dict.fromkeys((r["panel"], r["series"]) for r in rows):
        first = next(r for r in rows if (r["panel"], r["series"]) == (panel, series))
        print(f"{panel:10} {series:20} MAPE {first['series_mape_pct']:5.1f}% over {first['series_points']} points")
    save(rows, args.out, "validation_scatter", plot)


if __name__ == "__main__":
    main()

"""Helpers shared by the experiment scripts: the output folder and CSV writing."""

from __future__ import annotations

import argparse
import csv
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

_Item = TypeVar("_Item")
_Row = TypeVar("_Row")

OUT_DIR = Path("out")


def write_csv(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def parse_args(doc: str | None, quick_help: str, argv: list[str] | None, jobs: bool = False) -> argparse.Namespace:
    """The two flags every experiment takes: `--quick` (small shapes, for tests) and `--out`; with `jobs`, also
    `--jobs` (worker processes, default 1)."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    if jobs:
        parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    return parser.parse_args(argv)


def map_rows(work: Callable[[_Item], _Row], items: Iterable[_Item], jobs: int = 1) -> list[_Row]:
    """`work` over `items` in order, in `jobs` worker processes (in this one where `jobs` is 1): an experiment's
    independent predictions, each exact-mode one single-threaded."""
    if jobs <= 1:
        return [work(item) for item in items]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(work, items))


def print_row(row: Mapping[str, object]) -> None:
    """One result row on one line, floats to 4 significant digits (the experiments' console output)."""
    print(", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))


def save(rows: Sequence[Mapping[str, object]], out: Path, name: str, plot: Callable[[Path, Path], object]) -> Path:
    """CSV first, then the PNG drawn from that CSV (never from memory), as every experiment does."""
    csv_path = write_csv(out / f"{name}.csv", rows)
    png_path = out / f"{name}.png"
    plot(csv_path, png_path)
    print(f"wrote {csv_path} and {png_path}")
    return csv_path


def compare_per_tile(
    keys: Sequence[Any], results: Sequence[dict[str, object]], measured: Mapping[Any, float]
) -> list[dict[str, object]]:
    """The ablation experiments' rows: each model row (`model_cycles_per_tile_per_sm`) with the measured cycles of
    its key and the relative error, printed as it goes."""
    out = []
    for key, row in zip(keys, results, strict=True):
        row["measured_cycles_per_tile_per_sm"] = measured[key]
        row["rel_error"] = float(row["model_cycles_per_tile_per_sm"]) / measured[key] - 1  # type: ignore[arg-type]
        out.append(row)
        print_row(row)
    return out


def plot_ablation(
    csv_path: Path, png_path: Path, series: Sequence[tuple[str, str, Callable[[Mapping[str, str]], bool]]],
    bits: str, limit_cycles: float,
) -> None:  # fmt: skip
    """Model against measured cycles per key tile per SM, one panel per head dimension (64, 128), one marker per
    `series` (label, marker, which rows), each point labelled with its ablation mask (`bits` names the mask)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open() as handle:
        data = list(csv.DictReader(handle))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for ax, d in zip(axes, ("64", "128"), strict=True):
        for label, marker, chosen in series:
            sel = [r for r in data if r["headdim"] == d and chosen(r)]
            if not sel:
                continue
            points = [(float(r["measured_cycles_per_tile_per_sm"]), float(r["model_cycles_per_tile_per_sm"]))
                      for r in sel]  # fmt: skip
            ax.scatter(*zip(*points, strict=True), marker=marker, label=label)
            for r, point in zip(sel, points, strict=True):
                ax.annotate(r["ablate"], point, fontsize=7)
        lim = [0, limit_cycles]
        ax.plot(lim, lim, "k--", lw=0.8)
        ax.set(title=f"d = {d} (label: {bits} bits)", xlabel="measured cycles / key tile / SM (H200)")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("model cycles / key tile / SM")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)

"""PNG figures of `experiments.numerics`, each drawn from the CSV its study wrote (Agg backend)."""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

__all__ = ["plot_exp2", "plot_fp8", "plot_rescaling"]

PAPER_FP8_RMSE = {"per_tensor": 2.4e-2, "block_quant+incoherent": 9.1e-3}  # FA3 paper, Table 3
PAPER_DEGREE3_MAX_REL_ERR = 8.8e-5  # FA4 paper


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def plot_fp8(csv_path: Path, png_path: Path) -> None:
    """Bars of RMSE per method (log scale), with the FA3 paper's values as markers."""
    rows = _read(csv_path)
    labels = [f"{r['dtype']}\n{r['method']}" for r in rows]
    values = [float(r["rmse"]) for r in rows]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    colors = ["tab:red" if r["dtype"] == "fp8_e4m3" else "tab:blue" for r in rows]
    ax.bar(range(len(rows)), values, color=colors, label="measured (red: v3 FP8, blue: fp16/bf16)")
    paper = [(i, PAPER_FP8_RMSE[r["method"]]) for i, r in enumerate(rows) if r["method"] in PAPER_FP8_RMSE]
    ax.plot([i for i, _ in paper], [p for _, p in paper], "k*", markersize=12, label="FA3 paper")
    ax.set_xticks(range(len(rows)), labels, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("RMSE of O vs float64 reference (output units)")
    ax.set_xlabel("precision / method")
    ax.set_title(
        f"FA3 FP8 error, N(0,1)+N(0,100)*Bernoulli(0.001) inputs, seqlen {rows[0]['seqlen']}, "
        f"headdim {rows[0]['headdim']}"
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def plot_exp2(curve_csv: Path, summary_csv: Path, png_path: Path) -> None:
    """Left: relative error vs fraction per degree. Right: max relative error per degree and domain."""
    curve = _read(curve_csv)
    summary = _read(summary_csv)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    f = [float(r["f"]) for r in curve]
    for deg in (3, 4, 5):
        left.plot(f, [float(r[f"rel_err_degree_{deg}"]) for r in curve], label=f"degree {deg}")
    left.set_xlabel("fraction f of x (dimensionless)")
    left.set_ylabel("relative error of 2^f (fp32 result)")
    left.set_yscale("symlog", linthresh=1e-8)
    left.set_title("Software exp2: error over the reduced argument")
    left.legend()
    for domain, marker in (("fraction[0,1)", "o"), ("x[-126,0)", "s")):
        rows = [r for r in summary if r["domain"] == domain]
        right.plot([r["method"] for r in rows], [float(r["max_rel_err_fp32"]) for r in rows], marker, label=domain)
    right.axhline(PAPER_DEGREE3_MAX_REL_ERR, color="k", linestyle="--", label="FA4 paper, degree 3")
    right.set_yscale("log")
    right.set_xlabel("exp2 method")
    right.set_ylabel("max relative error (fp32)")
    right.set_title("Max relative error by method")
    right.tick_params(axis="x", labelsize=8)
    right.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def plot_rescaling(csv_path: Path, png_path: Path) -> None:
    """Left: share of rescales skipped vs tau. Right: output error vs tau, next to v2's."""
    rows = _read(csv_path)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for kind, style in (("random", "o-"), ("adversarial", "s-")):
        sel = [r for r in rows if r["inputs"] == kind]
        taus = [float(r["tau_log2"]) for r in sel]
        left.plot(taus, [100 * float(r["share_skipped"]) for r in sel], style, label=f"{kind} inputs")
        right.plot(taus, [float(r["max_err_vs_reference"]) for r in sel], style, label=f"v4, {kind}")
        right.plot(taus, [float(r["v2_max_err_vs_reference"]) for r in sel], "k:", label=f"v2, {kind}")
    left.set_xlabel("rescale threshold tau (log2 units)")
    left.set_ylabel("rescales skipped (% of row-steps)")
    left.set_title("FA4 conditional rescaling: skipped share")
    left.legend()
    right.set_xlabel("rescale threshold tau (log2 units)")
    right.set_ylabel("max |O - O_ref| / max |O_ref| (fp32 inputs)")
    right.set_yscale("log")
    right.set_title("Output error stays at fp32 level")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)

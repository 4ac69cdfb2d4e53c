"""Attention throughput vs sequence length per arch and algorithm, in the layout of the FA2/FA3 figures.

The papers' sweep: 16k tokens in total (batch = 16384 / seqlen), hidden 2048 (heads = 2048 / headdim), bf16,
causal and not, forward and forward+backward. Writes `throughput.csv`, then `throughput.png` (one panel per arch and
pass, TFLOP/s against seqlen, a line per algorithm and causal setting, % of the arch's bf16 peak on a second axis).
`--quick` runs 1k tokens at seqlen 256 and 512, headdim 64 only (a smoke test of the pipeline, not the papers'
shape). Exact mode: the full sweep takes many minutes.
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Sequence
from pathlib import Path

from experiments._common import OUT_DIR, write_csv
from simgpu import Problem, load_arch, simulate
from simgpu.errors import SimgpuError

TOKENS = 16384
QUICK_TOKENS = 1024
HIDDEN = 2048


def points(quick: bool, archs: Sequence[str], algos: Sequence[str], passes: Sequence[str]) -> list[dict[str, object]]:
    seqlens = (256, 512) if quick else (512, 1024, 2048, 4096, 8192, 16384)
    headdims = (64,) if quick else (64, 128)
    tokens = QUICK_TOKENS if quick else TOKENS
    rows = []
    for arch_name in archs:
        arch = load_arch(arch_name)
        for pass_ in passes:
            for headdim in headdims:
                for causal in (False, True):
                    for seqlen in seqlens:
                        problem = Problem(
                            tokens // seqlen, HIDDEN // headdim, seqlen, headdim, causal=causal, pass_=pass_
                        )
                        for algo in algos:
                            rows.append(row(arch_name, arch.peak_flops_per_s("bf16"), algo, problem))
    return rows


def row(arch: str, peak_flops_per_s: float, algo: str, problem: Problem) -> dict[str, object]:
    base: dict[str, object] = {
        "arch": arch,
        "algo": algo,
        "pass": problem.pass_,
        "headdim": problem.headdim,
        "causal": problem.causal,
        "seqlen": problem.seqlen_q,
        "batch": problem.batch,
        "heads": problem.heads,
    }
    try:
        result = simulate(arch, algo, problem)
    except SimgpuError as err:  # out of memory (standard attention) is a result, not a failure
        return {**base, "tflops": "", "pct_peak": "", "time_ms": "", "bottleneck": "", "note": str(err)}
    return {
        **base,
        "tflops": result.tflops,
        "pct_peak": 100 * result.tflops * 1e12 / peak_flops_per_s,
        "time_ms": result.time_s * 1e3,
        "bottleneck": result.bottleneck,
        "note": "",
    }


def plot(csv_path: Path, png_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["tflops"]]
    panels = sorted({(r["arch"], r["pass"], r["headdim"]) for r in rows})
    figure, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), squeeze=False)
    for axis, (arch, pass_, headdim) in zip(axes[0], panels, strict=True):
        mine = [r for r in rows if (r["arch"], r["pass"], r["headdim"]) == (arch, pass_, headdim)]
        for algo, causal in sorted({(r["algo"], r["causal"]) for r in mine}):
            line = [r for r in mine if (r["algo"], r["causal"]) == (algo, causal)]
            axis.plot(
                [int(r["seqlen"]) for r in line],
                [float(r["tflops"]) for r in line],
                marker="o",
                linestyle="--" if causal == "True" else "-",
                label=f"{algo}{' causal' if causal == 'True' else ''}",
            )
        axis.set_xscale("log", base=2)
        axis.set_title(f"{arch} {pass_} d={headdim}")
        axis.set_xlabel("sequence length (tokens)")
        axis.set_ylabel("TFLOP/s (papers' FLOP count)")
        axis.legend(fontsize=7)
    tokens = int(rows[0]["batch"]) * int(rows[0]["seqlen"])
    figure.suptitle(f"Predicted attention throughput, {tokens} tokens per batch, hidden {HIDDEN}, bf16 (exact mode)")
    figure.tight_layout()
    figure.savefig(png_path, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--archs", nargs="+", default=["a100", "h100"])
    parser.add_argument("--algos", nargs="+", default=["standard", "v1", "v2"])
    parser.add_argument("--passes", nargs="+", default=["fwd", "fwd_bwd"])
    args = parser.parse_args(argv)
    csv_path = write_csv(args.out / "throughput.csv", points(args.quick, args.archs, args.algos, args.passes))
    png_path = args.out / "throughput.png"
    plot(csv_path, png_path)
    print(f"wrote {csv_path} and {png_path}")


if __name__ == "__main__":
    main()

"""Roofline per arch: achieved TFLOP/s against arithmetic intensity (FLOPs per simulated HBM byte), forward, bf16.

Shape as the FA2/FA3 sweeps: 16k tokens in total (batch = 16384 / seqlen), hidden 2048 (heads = 2048 / headdim),
d = 128, not causal, at seqlen 512, 1024 and 2048 (`--seqlens` to change). Every attention algorithm the registry
knows runs on every arch; combinations the arch cannot run (v3 needs wgmma, v4 tcgen05 and TMEM, standard attention
may run out of HBM) are rows with a note, caught as the library's OptionError, ProblemError and ResourceError.
Intensity uses the simulated HBM bytes read + written (L2 on), so it is the schedule's, not a closed form's. FLOPs
are the papers' count (4 B H N^2 d), so standard attention's softmax kernel adds none.
Roofs: the tensor-core peak (`flops_per_cycle[bf16] x sms x clock_hz`), mma.sync's where the arch runs it at a lower
legacy rate (Hopper, Blackwell: v1 and v2 are bound by it), and the HBM bandwidth (datasheet, and the sustained
`achievable_fraction` of it that the HBM unit serves). The H200's power-limited clock lowers its real roof further.
Writes `roofline.csv`, then `roofline.png` (one panel per arch). `--quick`: 1k tokens at seqlen 256 and 512.
"""

from __future__ import annotations

import argparse
import csv
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from experiments._common import OUT_DIR, save
from simgpu import Problem, load_arch, simulate
from simgpu.errors import OptionError, ProblemError, ResourceError
from simgpu.registry import algorithm_names, load_algorithm

ARCHS = ("a100", "h100", "h200", "b200")
TOKENS, QUICK_TOKENS = 16384, 1024
HIDDEN = 2048
HEADDIM = 128
SEQLENS, QUICK_SEQLENS = (512, 1024, 2048), (256, 512)
UNSUPPORTED = (OptionError, ProblemError, ResourceError)  # the arch lacks a unit, a dtype, HBM or smem for it


def attention_algorithms() -> tuple[str, ...]:
    return tuple(name for name in algorithm_names() if load_algorithm(name).PROBLEM == "attention")


def roofs(arch_name: str) -> dict[str, object]:
    """The arch's roofs, repeated on each of its rows so the plot needs nothing but the CSV."""
    arch = load_arch(arch_name)
    legacy = arch.tensor_core.mma_sync_flops_per_cycle
    mma_sync = legacy["bf16"] * arch.sms * arch.clock_hz / 1e12 if legacy else ""  # type: ignore[index]
    power = arch.power.tensor_saturated_clock_hz if arch.power else None
    saturated = arch.tensor_core.flops_per_cycle["bf16"] * arch.sms * power / 1e12 if power else ""  # type: ignore[index]
    return {
        "peak_tflops": arch.peak_flops_per_s("bf16") / 1e12,
        "power_limited_peak_tflops": saturated,
        "mma_sync_peak_tflops": mma_sync,
        "hbm_tb_s": arch.hbm.bandwidth_bytes_per_s / 1e12,
        "hbm_sustained_tb_s": arch.hbm.sustained_bytes_per_s / 1e12,
    }


def point(arch_name: str, algo: str, seqlen: int, tokens: int) -> dict[str, object]:
    problem = Problem(tokens // seqlen, HIDDEN // HEADDIM, seqlen, HEADDIM)
    base: dict[str, object] = {
        "arch": arch_name,
        "algo": algo,
        "seqlen": seqlen,
        "batch": problem.batch,
        "heads": problem.heads,
        "headdim": HEADDIM,
        **roofs(arch_name),
    }
    empty = dict.fromkeys(("flops", "hbm_bytes", "intensity_flop_per_byte", "tflops", "clock_mhz", "bottleneck"), "")
    try:
        result = simulate(arch_name, algo, problem, mode="exact")  # fast mode (issue 8) is not relied on here
    except UNSUPPORTED as err:
        return {**base, **empty, "note": f"{type(err).__name__}: {err}"}
    hbm = result.hbm_read_bytes + result.hbm_write_bytes
    return {
        **base,
        "flops": result.flops,
        "hbm_bytes": hbm,
        "intensity_flop_per_byte": result.flops / hbm,
        "tflops": result.tflops,
        "clock_mhz": result.clock_hz / 1e6,
        "bottleneck": result.bottleneck,
        "note": "",
    }


def _point(args: tuple[str, str, int, int]) -> dict[str, object]:
    return point(*args)


def run(quick: bool, archs: Sequence[str] = ARCHS, seqlens: Sequence[int] | None = None, jobs: int = 1) -> list[dict]:
    tokens = QUICK_TOKENS if quick else TOKENS
    seqlens = seqlens or (QUICK_SEQLENS if quick else SEQLENS)
    work = [(arch, algo, seqlen, tokens) for arch in archs for algo in attention_algorithms() for seqlen in seqlens]
    if jobs <= 1:
        return [_point(args) for args in work]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_point, work))


MARKERS = {"tensor": "o", "hbm": "s", "smem": "^", "l2": "v", "mufu": "D", "fma": "P", "alu": "X", "issue": "*"}


def plot(csv_path: Path, png_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    archs = list(dict.fromkeys(r["arch"] for r in rows))
    algos = list(dict.fromkeys(r["algo"] for r in rows))
    colors = {algo: f"C{i}" for i, algo in enumerate(algos)}
    done = [r for r in rows if r["tflops"]]
    ridge = max(float(r["peak_tflops"]) / float(r["hbm_sustained_tb_s"]) for r in rows)
    lo = min(float(r["intensity_flop_per_byte"]) for r in done) / 2
    hi = max(max(float(r["intensity_flop_per_byte"]) for r in done), ridge) * 3
    columns = 2 if len(archs) > 2 else len(archs)
    grid = (len(archs) + columns - 1) // columns
    fig, axes = plt.subplots(grid, columns, figsize=(6.2 * columns, 4.8 * grid), squeeze=False)
    for ax in axes.flat[len(archs) :]:
        ax.set_visible(False)
    for ax, arch in zip(axes.flat, archs, strict=False):
        mine = [r for r in done if r["arch"] == arch]
        r0 = next(r for r in rows if r["arch"] == arch)
        x = np.geomspace(lo, hi, 200)
        peak, hbm, sustained = float(r0["peak_tflops"]), float(r0["hbm_tb_s"]), float(r0["hbm_sustained_tb_s"])
        if r0["power_limited_peak_tflops"]:
            limited = float(r0["power_limited_peak_tflops"])
            ax.axhline(
                limited, color="tab:red", ls=":", lw=1, label=f"tensor at power-limited clock: {limited:.0f} TFLOP/s"
            )
        ax.plot(x, np.minimum(peak, x * hbm), "k-", lw=1.5, label=f"roof: {peak:.0f} TFLOP/s, {hbm:.2f} TB/s")
        ax.plot(x, np.minimum(peak, x * sustained), "k--", lw=0.8, label=f"sustained HBM {sustained:.2f} TB/s")
        if r0["mma_sync_peak_tflops"]:
            legacy = float(r0["mma_sync_peak_tflops"])
            ax.axhline(legacy, color="gray", ls=":", lw=1, label=f"mma.sync roof {legacy:.0f} TFLOP/s")
        for algo in algos:
            line = sorted((r for r in mine if r["algo"] == algo), key=lambda r: int(r["seqlen"]))
            if not line:
                continue
            xs = [float(r["intensity_flop_per_byte"]) for r in line]
            ys = [float(r["tflops"]) for r in line]
            ax.plot(xs, ys, "-", color=colors[algo], lw=0.8, alpha=0.6)
            for r, xv, yv in zip(line, xs, ys, strict=True):
                ax.plot(xv, yv, MARKERS.get(r["bottleneck"], "o"), color=colors[algo], ms=6)
                label = f"{int(r['seqlen']) // 1024}k" if int(r["seqlen"]) >= 1024 else r["seqlen"]
                ax.annotate(label, (xv, yv), textcoords="offset points", xytext=(3, -9), fontsize=6, color=colors[algo])
        skipped = sorted({r["algo"] for r in rows if r["arch"] == arch and not r["tflops"]})
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(min(float(r["tflops"]) for r in mine) / 6, peak * 1.6)
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_formatter(ScalarFormatter())
            axis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("arithmetic intensity (FLOP per HBM byte, read + write)")
        ax.set_ylabel("achieved TFLOP/s (papers' FLOP count)")
        ax.set_title(f"{arch}" + (f" (cannot run: {', '.join(skipped)})" if skipped else ""), fontsize=10)
        ax.grid(True, which="both", alpha=0.2)
        ax.legend(fontsize=7, loc="lower right")
    units = sorted({r["bottleneck"] for r in done})
    handles = [Line2D([], [], color=colors[algo], marker="o", label=algo) for algo in algos]
    handles += [Line2D([], [], marker=MARKERS.get(u, "o"), color="gray", ls="", label=f"bound by {u}") for u in units]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=9, frameon=False)
    r0 = rows[0]
    tokens = int(r0["batch"]) * int(r0["seqlen"])
    fig.suptitle(
        f"Roofline of attention forward, bf16, d={r0['headdim']}, {tokens} tokens per batch, {r0['heads']} heads "
        "(points labelled by seqlen; exact mode)",
        x=0.01,
        ha="left",
    )
    fig.tight_layout(rect=(0, 0.04, 1, 0.96))
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
    return png_path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1k tokens, seqlen 256 and 512")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--archs", nargs="+", default=list(ARCHS))
    parser.add_argument("--seqlens", nargs="+", type=int, default=None)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    args = parser.parse_args(argv)
    rows = run(args.quick, args.archs, args.seqlens, args.jobs)
    for r in rows:
        if r["tflops"]:
            print(
                f"{r['arch']:5} {r['algo']:8} N={r['seqlen']:<5} {r['intensity_flop_per_byte']:8.1f} FLOP/B "
                f"{r['tflops']:7.1f} TFLOP/s  bound by {r['bottleneck']}"
            )
    save(rows, args.out, "roofline", plot)


if __name__ == "__main__":
    main()

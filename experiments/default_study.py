"""The default study (`make run`): every scheduled algorithm on every shipped arch at one standard shape.

Attention: batch 4, 16 heads, seqlen 2048, headdim 128, bf16, forward, not causal (the GEMM: 4096^3 bf16). Prints a
table (cycles, time, TFLOP/s, % of the arch's bf16 peak at the clock the run used, HBM bytes, bottleneck unit),
writes it as `out/default_study.csv` and draws `out/default_study.png` from that CSV (TFLOP/s per arch and algorithm,
each bar labelled with its bottleneck). `--quick` shrinks the shapes for tests.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from experiments._common import OUT_DIR, write_csv
from simgpu import GemmProblem, Problem, load_arch, simulate
from simgpu.errors import SimgpuError
from simgpu.problem import AnyProblem
from simgpu.registry import algorithm_names

SHIPPED = ("a100", "h100", "h200", "b200")


def problems(quick: bool) -> dict[str, AnyProblem]:
    size = 1024 if quick else 4096
    attention = Problem(1, 4, 512, 64) if quick else Problem(4, 16, 2048, 128)
    return {"gemm": GemmProblem(size, size, size), "attention": attention}


def study(quick: bool) -> list[dict[str, object]]:
    shapes = problems(quick)
    rows = []
    for arch_name in SHIPPED:
        arch = load_arch(arch_name)
        for algo in algorithm_names():
            problem = shapes["gemm"] if algo == "gemm" else shapes["attention"]
            shape = " ".join(f"{k}={v}" for k, v in problem.describe().items() if k not in ("dtype", "seqlen_k"))
            try:
                result = simulate(arch, algo, problem)
            except SimgpuError as err:  # an algorithm the arch cannot run is a row of the table too
                rows.append({"arch": arch_name, "algo": algo, "shape": shape, "note": str(err)})
                continue
            peak = arch.tensor_core.flops_per_cycle["bf16"] * arch.sms * result.clock_hz
            rows.append(
                {
                    "arch": arch_name,
                    "algo": algo,
                    "shape": shape,
                    "clock_mhz": round(result.clock_hz / 1e6),
                    "cycles": round(result.cycles),
                    "time_ms": result.time_s * 1e3,
                    "tflops": result.tflops,
                    "pct_peak": 100 * result.flops / result.time_s / peak,
                    "hbm_mb": result.hbm_bytes / 1e6,
                    "bottleneck": result.bottleneck,
                    "note": "",
                }
            )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small shapes, for tests")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    rows = study(args.quick)
    columns = ["arch", "algo", "shape", "clock_mhz", "cycles", "time_ms", "tflops", "pct_peak", "hbm_mb", "bottleneck"]
    path = write_csv(args.out / "default_study.csv", [{c: r.get(c, "") for c in [*columns, "note"]} for r in rows])
    header = ("arch", "algo", "MHz", "cycles", "ms", "TFLOP/s", "%peak", "HBM MB")
    print("{:<5} {:<9} {:>5} {:>11} {:>9} {:>8} {:>6} {:>9}  bottleneck".format(*header))
    for r in rows:
        if r.get("note"):
            print(f"{r['arch']:<5} {r['algo']:<9} {r['note']}")
            continue
        print(
            f"{r['arch']:<5} {r['algo']:<9} {r['clock_mhz']:>5} {r['cycles']:>11} {r['time_ms']:>9.3f} "
            f"{r['tflops']:>8.1f} {r['pct_peak']:>6.1f} {r['hbm_mb']:>9.1f}  {r['bottleneck']}"
        )
    print(
        "shapes: "
        + "; ".join(
            f"{k}: {' '.join(f'{a}={b}' for a, b in p.describe().items())}" for k, p in problems(args.quick).items()
        )
    )
    plot(path, args.out / "default_study.png")
    print(f"wrote {path} and {args.out / 'default_study.png'}")


def plot(csv_path: Path, png_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with csv_path.open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if not r["note"]]
    algos = list(dict.fromkeys(r["algo"] for r in rows))
    figure, axis = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / len(SHIPPED)
    for i, arch in enumerate(SHIPPED):
        mine = {r["algo"]: r for r in rows if r["arch"] == arch}
        xs = [j + (i - (len(SHIPPED) - 1) / 2) * width for j, algo in enumerate(algos) if algo in mine]
        ys = [float(mine[algo]["tflops"]) for algo in algos if algo in mine]
        bars = axis.bar(xs, ys, width, label=arch)
        axis.bar_label(bars, [mine[a]["bottleneck"] for a in algos if a in mine], fontsize=6, rotation=90, padding=2)
    axis.set_xticks(range(len(algos)), algos)
    axis.set_ylabel("predicted TFLOP/s")
    axis.set_title("Default study: every algorithm on every arch (bars labelled with the bottleneck unit)")
    axis.legend()
    figure.tight_layout()
    figure.savefig(png_path, dpi=130)
    plt.close(figure)


if __name__ == "__main__":
    main()

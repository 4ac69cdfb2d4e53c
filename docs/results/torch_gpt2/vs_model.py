"""PyTorch's eager causal attention on the H200 against the `framework="pytorch"` schedule, kernel by kernel.

Measured: `validation/h200/torch_gpt2/` (the probe `validation/probes/torch_gpt2_attention.py`: each kernel's time by
torch.profiler, median of 5; its DRAM bytes by Nsight Compute, caches left alone) at GPT-2 medium's shape (B = 64,
H = 16, N = 1024, d = 64) and, in `more/`, at 16 x 16 heads N = 2048 and 4 x 16 N = 4096 (DRAM bytes with dropout
only). Model: `simulate` on the h200 arch (the arch's clock model) at each shape, fp16, causal, fwd and bwd, dropout
0.1 and none; fast mode, or exact mode with `--exact`. Run from the repository root:
`python docs/results/torch_gpt2/vs_model.py [--exact] > docs/results/torch_gpt2/vs_model[_exact].txt`.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule

MEASURED = Path("validation/h200/torch_gpt2")
VARIANTS = {"dropout": 0.1, "nodropout": 0.0}
SHAPES = {1024: (64, "", MEASURED), 2048: (16, "_n2048", MEASURED / "more"), 4096: (4, "_n4096", MEASURED / "more")}
GEMMS = ("torch_qk", "torch_pv", "torch_dv", "torch_dp", "torch_dq", "torch_dk")


def ncu_bytes(folder: Path, variant: str, suffix: str) -> list[tuple[float, float]] | None:
    """(DRAM read, DRAM write) bytes of the second iteration's kernels, in launch order; None where not measured."""
    path = folder / f"ncu_bytes_{variant}{suffix}.csv"
    if not path.exists():
        return None
    lines = path.read_text().splitlines()
    rows = csv.DictReader(lines[next(n for n, line in enumerate(lines) if line.startswith('"ID"')) :])
    kernels: dict[int, dict[str, float]] = {}
    for row in rows:
        kernels.setdefault(int(row["ID"]), {})[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    count = int((folder / f"torch_gpt2_count_{variant}{suffix}.txt").read_text())
    last = [kernels[k] for k in sorted(kernels)[-count:]]
    return [(k["dram__bytes_read.sum"], k["dram__bytes_write.sum"]) for k in last]


def main() -> None:
    mode = "exact" if "--exact" in sys.argv[1:] else "fast"
    arch = load_arch("h200")
    for seqlen, (batch, suffix, folder) in SHAPES.items():
        with (folder / f"torch_gpt2_kernels{suffix}_h200.csv").open(newline="") as handle:
            profiled = list(csv.DictReader(handle))
        for variant, p in VARIANTS.items():
            rows = [r for r in profiled if r["variant"] == variant]
            dram = ncu_bytes(folder, variant, suffix)
            print(f"## {variant} (p = {p}): B={batch} H=16 N={seqlen} d=64 fp16 causal; {mode} mode")
            first = 0
            sums = {"elementwise": [0.0, 0.0], "gemm": [0.0, 0.0]}
            for pass_ in ("fwd", "bwd"):
                problem = Problem(batch, 16, seqlen, 64, causal=True, dtype="fp16", pass_=pass_)
                options = {"framework": "pytorch", "dropout": p}
                result = simulate(arch, "standard", problem, options=options, mode=mode)
                names = [k.name for k in schedule(arch, "standard", problem, options)]
                measured = [r for r in rows if r["pass"] == pass_]
                print(f"{pass_}: model clock {result.clock_hz / 1e6:.0f} MHz")
                print(f"  {'model kernel':18} {'model us':>9} {'measured us':>11}  measured kernel")
                for name, cycles, row in zip(names, result.kernel_cycles, measured, strict=True):
                    model_us = cycles / result.clock_hz * 1e6
                    print(f"  {name:18} {model_us:9.1f} {float(row['median_us']):11.1f}  {row['kernel'][:60]}")
                    part = sums["gemm" if name in GEMMS else "elementwise"]
                    part[0] += model_us
                    part[1] += float(row["median_us"])
                measured_ms = sum(float(r["median_us"]) for r in measured) / 1e3
                line = f"  total: model {result.time_s * 1e3:.2f} ms, kernels measured {measured_ms:.2f} ms"
                if dram is not None:
                    pass_dram = dram[first : first + len(measured)]
                    read, write = sum(r for r, _ in pass_dram), sum(w for _, w in pass_dram)
                    line += (
                        f"; DRAM read model {result.hbm_read_bytes / 1e9:.2f} GB, measured {read / 1e9:.2f}; "
                        f"write model {result.hbm_write_bytes / 1e9:.2f} GB, measured {write / 1e9:.2f}"
                    )
                first += len(measured)
                print(line)
            for part, (model_us, measured_us) in sums.items():
                print(
                    f"  {part} kernels, fwd + bwd: model {model_us / 1e3:.2f} ms, measured {measured_us / 1e3:.2f} ms "
                    f"({model_us / measured_us - 1:+.1%})"
                )


if __name__ == "__main__":
    main()

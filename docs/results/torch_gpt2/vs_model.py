"""PyTorch's eager GPT-2 attention on the H200 against the `framework="pytorch"` schedule, kernel by kernel.

Measured: `validation/h200/torch_gpt2/` (the probe `validation/probes/torch_gpt2_attention.py`: each kernel's time by
torch.profiler, median of 5; its DRAM bytes by Nsight Compute, caches left alone). Model: `simulate` on the h200 arch
(the arch's clock model) at the probe's shape, fp16, causal, fwd and bwd, dropout 0.1 and none; fast mode, or exact
mode with `--exact`. Run from the repository root: `python docs/results/torch_gpt2/vs_model.py [--exact] >
docs/results/torch_gpt2/vs_model[_exact].txt`.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule

MEASURED = Path("validation/h200/torch_gpt2")
VARIANTS = {"dropout": 0.1, "nodropout": 0.0}


def ncu_bytes(variant: str) -> list[tuple[float, float]]:
    """(DRAM read, DRAM write) bytes of the second iteration's kernels, in launch order."""
    lines = (MEASURED / f"ncu_bytes_{variant}.csv").read_text().splitlines()
    rows = csv.DictReader(lines[next(n for n, line in enumerate(lines) if line.startswith('"ID"')) :])
    kernels: dict[int, dict[str, float]] = {}
    for row in rows:
        kernels.setdefault(int(row["ID"]), {})[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    count = int((MEASURED / f"torch_gpt2_count_{variant}.txt").read_text())
    last = [kernels[k] for k in sorted(kernels)[-count:]]
    return [(k["dram__bytes_read.sum"], k["dram__bytes_write.sum"]) for k in last]


def main() -> None:
    mode = "exact" if "--exact" in sys.argv[1:] else "fast"
    with (MEASURED / "torch_gpt2_kernels_h200.csv").open(newline="") as handle:
        profiled = list(csv.DictReader(handle))
    for variant, p in VARIANTS.items():
        rows = [r for r in profiled if r["variant"] == variant]
        dram = ncu_bytes(variant)
        print(f"## {variant} (p = {p}): B=64 H=16 N=1024 d=64 fp16 causal, GPT-2 medium")
        first = 0
        for pass_ in ("fwd", "bwd"):
            problem = Problem(64, 16, 1024, 64, causal=True, dtype="fp16", pass_=pass_)
            options = {"framework": "pytorch", "dropout": p}
            result = simulate("h200", "standard", problem, options=options, mode=mode)
            names = [k.name for k in schedule(load_arch("h200"), "standard", problem, options)]
            measured = [r for r in rows if r["pass"] == pass_]
            print(f"{pass_}: model clock {result.clock_hz / 1e6:.0f} MHz, {mode} mode")
            print(f"  {'model kernel':18} {'model us':>9} {'measured us':>11}  measured kernel")
            for name, cycles, row in zip(names, result.kernel_cycles, measured, strict=False):
                model_us = cycles / result.clock_hz * 1e6
                print(f"  {name:18} {model_us:9.1f} {float(row['median_us']):11.1f}  {row['kernel'][:60]}")
            extra = measured[len(names) :]
            for row in extra:
                print(f"  {'(none)':18} {'':9} {float(row['median_us']):11.1f}  {row['kernel'][:60]}")
            pass_dram = dram[first : first + len(measured)]
            first += len(measured)
            read, write = sum(r for r, _ in pass_dram), sum(w for _, w in pass_dram)
            measured_ms = sum(float(r["median_us"]) for r in measured) / 1e3
            print(
                f"  total: model {result.time_s * 1e3:.2f} ms, kernels measured {measured_ms:.2f} ms; "
                f"DRAM read model {result.hbm_read_bytes / 1e9:.2f} GB, measured {read / 1e9:.2f}; "
                f"write model {result.hbm_write_bytes / 1e9:.2f} GB, measured {write / 1e9:.2f}"
            )


if __name__ == "__main__":
    main()

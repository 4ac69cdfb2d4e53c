"""Two side checks of the twenty-seventh session's PyTorch kernels (`algorithms.standard.pytorch`).

1. What `Vector.issue` moves: the N = 1024 comparison of `vs_model.py` (fast mode, dropout) with the kernels'
   instructions on no modelled pipe taken out of their issue (`LANE_OPS`' last column set to 0).
2. Fast mode's count of the causal mask that every head reads: a cut H100 (8 SMs), 16 heads, N = 512, causal, fp16,
   forward, in fast and exact mode (the strict xfail `pytorch-shared-mask` of `tests/core/test_properties.py`).
Run from the repository root: `python docs/results/torch_gpt2/side_checks.py > docs/results/torch_gpt2/side_checks.txt`.
"""

from __future__ import annotations

import csv
from pathlib import Path

from algorithms.standard import pytorch
from simgpu import Problem, load_arch, simulate

MEASURED = Path("validation/h200/torch_gpt2/torch_gpt2_kernels_h200.csv")


def without_issue() -> None:
    with MEASURED.open(newline="") as handle:
        measured = [r for r in csv.DictReader(handle) if r["variant"] == "dropout" and r["pass"] == "fwd"]
    problem = Problem(64, 16, 1024, 64, causal=True, dtype="fp16")
    options = {"framework": "pytorch", "dropout": 0.1}
    kept = dict(pytorch.LANE_OPS)
    for label, table in (("with Vector.issue", kept), ("without", {k: (*v[:3], 0.0) for k, v in kept.items()})):
        pytorch.LANE_OPS.clear()
        pytorch.LANE_OPS.update(table)
        result = simulate("h200", "standard", problem, options)
        print(f"## forward kernels, {label} (fast mode)")
        for cycles, row in zip(result.kernel_cycles, measured, strict=True):
            model_us = cycles / result.clock_hz * 1e6
            measured_us = float(row["median_us"])
            error = model_us / measured_us - 1
            print(f"  {model_us:8.1f} us against {measured_us:8.1f} ({error:+.1%})  {row['kernel'][:50]}")
    pytorch.LANE_OPS.clear()
    pytorch.LANE_OPS.update(kept)


def shared_mask() -> None:
    arch = load_arch("h100", {"sms": 8})
    problem = Problem(1, 16, 512, 64, causal=True, dtype="fp16")
    fast, exact = (simulate(arch, "standard", problem, {"framework": "pytorch"}, mode=m) for m in ("fast", "exact"))
    print("## the shared causal mask on a cut H100 (8 SMs), 16 heads, N = 512, forward")
    difference_kib = (fast.hbm_read_bytes - exact.hbm_read_bytes) / 2**10
    print(
        f"  HBM read: fast {fast.hbm_read_bytes:.0f} B, exact {exact.hbm_read_bytes:.0f} B, {difference_kib:+.0f} KiB"
    )
    print(f"  one mask: {512 * 512 / 2**10:.0f} KiB")


if __name__ == "__main__":
    without_issue()
    shared_mask()

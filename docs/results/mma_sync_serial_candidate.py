"""A candidate not kept (seventeenth session): mma.sync products from one warp per scheduler issue their ldmatrix and
mma.sync in order (the product takes its longer part plus a fraction of the shorter, `sm.mma_sync_operand_serial_
fraction`), and mma.sync beside ldmatrix slows as the products' own mix shows (two warps per scheduler: tensor 0.77,
port 0.80 of their rates) instead of as separate warpgroups do (0.651, 0.696). Run with PYTHONPATH at a checkout with
`mma_sync_serial_not_kept.patch` applied: `python docs/results/mma_sync_serial_candidate.py` prints, for the model
before and with the candidate, (1) the replay of `validation/probes/v2_gemm_rate.py`
(`v2_gemm_rate_2026-12-03_h200.csv`: fwd.cu's S and PV alone from one and two warps per scheduler), (2) fast-mode
MAPE of every validated standard, v1 and v2 kernel, (3) the v2 forward's ablation at d = 128 with and without its
K/V loads (`v2_ablate_h200.csv`). Output: `mma_sync_serial_not_kept.txt`."""

from __future__ import annotations

import csv
from pathlib import Path

from algorithms.v2.schedule import config, forward_kernel
from experiments.v2_ablation import ablated
from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import CtaResources, Kernel, Role
from simgpu.ops import Mma, Repeat
from simgpu.problem import Problem
from simgpu.validation import read_cases, what_if_table

CANDIDATE = {
    "sm.mma_sync_operand_serial_fraction": 0.7,
    "contention.mma_sync.tensor_rate_while_smem_busy": 0.77,
    "contention.mma_sync.smem_rate_while_tensor_busy": 0.8,
}
MODELS = {"before": {}, "candidate": CANDIDATE}


def _rows(name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(Path("validation/h200", name).read_text(encoding="utf-8").splitlines()))


def gemm_rates(overrides: dict[str, object]) -> list[tuple[str, float, float]]:
    arch = load_arch("h200", overrides)
    rows = {(r["kernel"], r["warps_per_scheduler"]): float(r["flop_per_sm_per_clk"])
            for r in _rows("v2_gemm_rate_2026-12-03_h200.csv")}  # fmt: skip
    out = []
    for d, keys in ((64, 128), (128, 64)):
        s_op = Mma(128, keys, d, "bf16", a="reg", b="reg", instruction="mma_sync",
                   operand_smem_bytes=(128 + 4 * keys) * d * 2)  # fmt: skip
        pv_op = Mma(128, d, keys, "bf16", a="reg", b="reg", instruction="mma_sync", operand_smem_bytes=4 * keys * d * 2)
        for name, op in ((f"s_gemm<{d}, {keys}, 2>", s_op), (f"pv_gemm<{d}, {keys}, 2>", pv_op)):
            for ctas in (1, 2):
                program = (Repeat(64, lambda _i, op=op: (op,)),)
                kernel = Kernel("gemm", tuple(range(ctas)), CtaResources(128, 168, (120 if ctas == 1 else 64) * 1024),
                                (Role("w", 4, lambda _t, program=program: program),))  # fmt: skip
                stats = Engine(arch, sms=1).run([kernel])
                rate = ctas * op.flops * 64 / (stats.cycles - arch.kernel_launch_s * arch.clock_hz)
                out.append((f"{name} x{ctas}", rate, rows[(name, str(ctas))]))
    return out


def ablation(overrides: dict[str, object]) -> list[tuple[str, float, float]]:
    measured = {(int(r["headdim"]), int(r["ablate"]), int(r["ctas_per_sm"])): float(r["cycles_per_tile_per_sm"])
                for r in _rows("v2_ablate_h200.csv")}  # fmt: skip
    arch = load_arch("h200", overrides)
    out = []
    for mask in (0, 1):
        for ctas in (1, 2):
            problem = Problem(2, 16, 4096, 128, causal=False, dtype="bf16", pass_="fwd")
            cfg = config(problem, {"kv_layout": "ring"})
            kernel = ablated(forward_kernel(problem, cfg), mask)
            stats = Engine(arch, max_ctas_per_sm=ctas).run([kernel])
            cycles = (stats.cycles - arch.kernel_launch_s * arch.clock_hz) * arch.sms / (len(kernel.tiles) * 64)
            out.append((f"d=128 mask {mask} x{ctas}", cycles, measured[(128, mask, ctas)]))
    return out


def main() -> None:
    cases = [c for c in read_cases("validation/h200/kernels_h200.csv", "h200") if c.algo in ("v1", "standard")]
    cases += read_cases("validation/h200/validation_2026-12-03/kernels_h200.csv", "h200", ["v2"])
    for label, overrides in MODELS.items():
        print(f"## {label}")
        for name, model, silicon in gemm_rates(overrides):
            print(f"  {name:22s} FLOP/clk model {model:6.0f} measured {silicon:6.0f} ({model / silicon - 1:+.1%})")
        for name, model, silicon in ablation(overrides):
            print(
                f"  {name:22s} cycles/tile/SM model {model:6.0f} measured {silicon:6.0f} ({model / silicon - 1:+.1%})"
            )
    print(what_if_table(cases, MODELS, workers=2))


if __name__ == "__main__":
    main()

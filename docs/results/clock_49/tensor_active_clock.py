"""The clock kernels run at while they use the tensor cores, from the cycle-counted clocks of every committed timing
on the H200 and the lent H100: the model-independent input of `power.tensor_active_clock_hz` (forty-ninth session).

Per timed run: the chip, the kernel, the SM clock counted on the SM beside the timing (`probe_clock_mhz` of our
kernels' CSVs, `sm_clock_mhz_counted` of the production kernels'), and the measured tensor activity u: the run's
MMA FLOPs per second over the chip's native (wgmma) rate at that clock, 132 SMs x 4096 FLOP/clk (`simgpu.clock`).
The runs that use the tensor cores but whose u is too low for the power law to lower the clock below the card's
1980 MHz (u <= (tensor_saturated / 1980)^3: 0.526 on the H200, 0.561 on the H100) show the clock the chip keeps
while its tensor cores are in use; the estimate is their median. Standard attention's softmax kernel, which uses
none, is the control. The script then compares, on every tensor run, the clock the power law gives for the run's
measured u, without the ceiling and with it, against the counted clock.

`python docs/results/clock_49/tensor_active_clock.py > docs/results/clock_49/tensor_active_clock.txt`
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from simgpu import load_arch
from simgpu.clock import power_limited_clock_hz

ROOT = Path(__file__).resolve().parents[3]
SMS = 132
NATIVE_FLOPS_PER_CYCLE = 4096  # bf16 wgmma per SM per cycle (archs/h100.yaml)
CARD_MAX_MHZ = 1980.0  # both lent cards' nvidia-smi maximum SM clock (gpu.txt beside each CSV)

# Our kernels (time_ms_median, probe_clock_mhz) and production kernels (tflops, sm_clock_mhz_counted).
OURS = {
    "h200": ("validation/h200/kernels_h200.csv", "validation/h200/v3_kernels_h200.csv"),
    "h100": (
        "validation/h200/kernels_on_h100/kernels_h100.csv",
        "validation/h200/kernels_on_h100/v3_kernels_h100.csv",
    ),
}
PRODUCTION = {
    "h200": {
        "PyTorch FA2": ("validation/h200/torch_fa2_h200.csv", "validation/h200/torch_fa2_bwd_h200.csv"),
        "cuDNN": ("validation/h200/torch_cudnn_h200.csv", "validation/h200/torch_cudnn_bwd_h200.csv"),
    },
    "h100": {
        "PyTorch FA2": (
            "validation/h200/production_on_h100/torch_fa2_h100.csv",
            "validation/h200/production_on_h100/torch_fa2_bwd_h100.csv",
        ),
        "cuDNN": (
            "validation/h200/production_on_h100/torch_cudnn_h100.csv",
            "validation/h200/production_on_h100/torch_cudnn_bwd_h100.csv",
        ),
        "FA1 v1.0.9": ("validation/h200/fa1_release/fa1_release_h100.csv",),
    },
}
# Our kernels' MMA FLOPs as a share of the attention forward's 4 B H N^2 d (halved where causal); backward 2.5x.
FORWARD_SHARE = {"standard_qk": 0.5, "standard_pv": 0.5, "standard_softmax": 0.0, "standard": 1.0}


@dataclass(frozen=True)
class Run:
    chip: str
    kernel: str
    mhz: float  # counted SM clock
    u: float  # measured tensor activity


def attention_flops(row: dict[str, str]) -> float:
    b, h, n, d = (int(row[k]) for k in ("batch", "heads", "seqlen", "headdim"))
    flops = 4.0 * b * h * n * n * d / (2 if row["causal"] == "True" else 1)
    return flops * (2.5 if row["pass"] == "bwd" else 1.0)


def runs() -> list[Run]:
    out: list[Run] = []
    for chip, paths in OURS.items():
        for path in paths:
            for row in csv.DictReader((ROOT / path).open(encoding="utf-8")):
                mhz = float(row["probe_clock_mhz"])
                flops = attention_flops(row) * FORWARD_SHARE.get(row["kernel"], 1.0)
                u = flops / (float(row["time_ms_median"]) * 1e-3) / (SMS * NATIVE_FLOPS_PER_CYCLE * mhz * 1e6)
                out.append(Run(chip, f"ours {row['kernel']} {row['pass']}", mhz, u))
    for chip, sources in PRODUCTION.items():
        for name, paths in sources.items():
            for path in paths:
                for row in csv.DictReader((ROOT / path).open(encoding="utf-8")):
                    mhz = float(row["sm_clock_mhz_counted"])
                    u = float(row["tflops"]) * 1e12 / (SMS * NATIVE_FLOPS_PER_CYCLE * mhz * 1e6)
                    out.append(Run(chip, f"{name} {row['pass']}", mhz, u))
    return out


def law_mhz(chip: str, u: float, ceiling: float | None) -> float:
    """`simgpu.clock`'s clock for tensor activity u on the chip's arch file at the card's maximum clock, with the
    tensor-active ceiling `ceiling` (MHz) or without one."""
    arch = load_arch(chip, {"clock_hz": CARD_MAX_MHZ * 1e6, "power.tensor_active_clock_hz": ceiling and ceiling * 1e6})
    return power_limited_clock_hz(arch, u) / 1e6


def spread(values: list[float]) -> str:
    deciles = statistics.quantiles(values, n=10)
    return f"n {len(values):3d}, median {statistics.median(values):6.0f}, p10-p90 {deciles[0]:.0f}-{deciles[-1]:.0f}"


def main() -> None:
    table = runs()
    ceilings: dict[str, float] = {}
    for chip in OURS:
        mine = [r for r in table if r.chip == chip]
        print(f"## {chip}: counted SM clock (MHz) per kernel; u = measured tensor activity")
        by_kernel: dict[str, list[Run]] = defaultdict(list)
        for r in mine:
            by_kernel[r.kernel].append(r)
        for kernel, rows in by_kernel.items():
            us = [r.u for r in rows]
            print(f"  {kernel:28s} {spread([r.mhz for r in rows])}, u {min(us):.2f}-{max(us):.2f}")
        power = load_arch(chip).power
        assert power is not None
        below = (power.tensor_saturated_clock_hz / 1e6 / CARD_MAX_MHZ) ** 3
        chosen = [r.mhz for r in mine if 0 < r.u <= below and not r.kernel.startswith("ours standard ")]
        ceilings[chip] = statistics.median(chosen)
        print(
            f"  tensor runs the law leaves at {CARD_MAX_MHZ:.0f} MHz (0 < u <= {below:.3f}, our standard attention's "
            f"three-kernel runs left out): {spread(chosen)}"
        )
        print(f"  -> tensor-active clock {ceilings[chip]:.0f} MHz")
        print()
    print("## the law's clock for each tensor run's measured u against its counted clock (model - counted, MHz)")
    for chip in OURS:
        tensor = [r for r in table if r.chip == chip and r.u > 0]
        for ceiling in (None, ceilings[chip]):
            errors = [law_mhz(chip, r.u, ceiling) - r.mhz for r in tensor]
            label = "without the ceiling" if ceiling is None else f"under {ceiling:.0f} MHz"
            relative = statistics.mean(abs(e) / r.mhz for e, r in zip(errors, tensor, strict=True))
            print(
                f"  {chip} {label:20s} runs {len(tensor)}: mean {statistics.mean(errors):+6.0f}, mean |error| "
                f"{statistics.mean(abs(e) for e in errors):5.0f} ({100 * relative:.1f}%), largest "
                f"{max(errors, key=abs):+5.0f}"
            )


if __name__ == "__main__":
    main()

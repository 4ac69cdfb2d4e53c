"""Check of the eleventh session: the HBM's loaded latency (`hbm.loaded_latency`, `simgpu.units.hbm`).

1. The fit behind `archs/h200.yaml`'s values: `loaded_latency_h200.csv`'s HBM rows (one SM's 16 KiB TMA boxes while
   16-131 SMs stream from HBM), extra = probe median - idle median, utilization = the streamers' bytes per clock over
   the sustained rate at 1980 MHz; least squares of extra = a x min(1, u / knee) over the rows up to 70% (above it
   the extra rises again, +600..+950 at 67-90%, and from 96% it is the saturated queue the HBM server models).
2. Every validated kernel in fast mode (the committed measurements, each kernel's `simgpu validate` options and
   clocks), as the arch files stand, without the loaded latency, and with half and twice its window.
Run from the repository root: `python docs/results/checks_2026-12-02u.py > docs/results/checks_2026-12-02u.txt`.
With `--chip h100`, part 1 alone on the H100's run of the probe (forty-fifth session,
`validation/h200/memory_on_h100/loaded_latency_h100.csv`), output `docs/results/loaded_latency_fit_h100.txt`."""

from __future__ import annotations

import argparse
import csv
from collections.abc import Mapping

from simgpu import load_arch
from simgpu.validation import KERNEL_OPTIONS, read_cases, what_if_table

PROBE_CLOCK_HZ = 1.98e9  # both chips ran the probe at 1980 MHz
PROBE_RUNS = {
    "h200": "validation/h200/loaded_latency_h200.csv",
    "h100": "validation/h200/memory_on_h100/loaded_latency_h100.csv",
}
FIT_UP_TO = 0.70

WHAT_IFS: dict[str, Mapping[str, object]] = {
    "as the arch files stand": {},
    "without loaded latency": {"hbm.loaded_latency": None},
    "window 1000 cycles": {"hbm.loaded_latency.window_cycles": 1000.0},
    "window 4000 cycles": {"hbm.loaded_latency.window_cycles": 4000.0},
}


def fit(chip: str) -> None:
    hbm = load_arch(chip).hbm
    sustained_per_clk = hbm.sustained_bytes_per_s / PROBE_CLOCK_HZ
    with open(PROBE_RUNS[chip]) as f:
        rows = list(csv.DictReader(f))
    idle = next(float(r["probe_latency_median_cycles"]) for r in rows if r["streamers_source"] == "idle")
    points = sorted(
        (float(r["streamers_bytes_per_clk"]) / sustained_per_clk, float(r["probe_latency_median_cycles"]) - idle)
        for r in rows
        if r["streamers_source"] == "hbm"
    )
    print(f"idle probe median {idle:.0f} cycles; sustained {sustained_per_clk:.0f} B/clk at 1980 MHz")
    for u, extra in points:
        print(f"  utilization {u:5.3f}  extra {extra:+6.0f}")
    used = [(u, e) for u, e in points if u <= FIT_UP_TO]
    best = None
    for step in range(10, 1200):  # knee 0.010 .. 1.199 by 0.001; `a` by least squares for each
        knee = step / 1000
        xs = [min(1.0, u / knee) for u, _ in used]
        a = sum(x * e for x, (_, e) in zip(xs, used, strict=True)) / sum(x * x for x in xs)
        residual = sum((a * x - e) ** 2 for x, (_, e) in zip(xs, used, strict=True))
        if best is None or residual < best[0]:
            best = (residual, knee, a)
    assert best is not None
    residual, knee, a = best
    rms = (residual / len(used)) ** 0.5
    print(f"fit over {len(used)} rows up to {FIT_UP_TO:.0%}: extra {a:.0f} cycles, knee {knee:.3f}, rms {rms:.0f}")
    print(f"arch file: {hbm.loaded_latency}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chip", choices=sorted(PROBE_RUNS), default="h200")
    chip = parser.parse_args().chip
    fit(chip)
    if chip != "h200":
        raise SystemExit(0)
    assert KERNEL_OPTIONS["v1"] == {"variant": "algorithm1"}  # v1 is predicted as our kernel's loop
    cases = read_cases("validation/h200/kernels_h200.csv", "h200")
    cases += read_cases("validation/h200/v3_kernels_h200.csv", "h200", ["v3"])
    print(what_if_table(cases, WHAT_IFS, workers=2))

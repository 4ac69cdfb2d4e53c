"""Side check of the twelfth session: the v3 kernel's period per key tile, measured against the model, per variant.

Measured: the validation sweep (`validation/h200/model_vs_measured_v3.csv`, not causal) holds B x N = 16k tokens and
H = 2048 / d, so every N launches the same CTAs (4096 at d = 64, 2048 at d = 128: 32 and 16 waves of 132 SMs, one
CTA per SM). A wave's cycles (time x the measured clock / waves) are a fixed cost per CTA plus N / 128 key tiles times
the period: a least-squares line over N = 512 .. 16384 gives both, free of the phase probe's stamps (which slow one
traced CTA by 3-15%). Model: the period on one SM of the H200 (exact mode, SM 3 traced, N = 4096, B = 4), the median
interval between a consumer's S GEMMs over its steady key tiles, both consumers.
Run from the repository root: `python docs/results/checks_2026-12-02y.py > docs/results/checks_2026-12-02y.txt`
(with PYTHONPATH at another checkout to check a change of the model)."""

from __future__ import annotations

import csv
import itertools
import statistics
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.trace import Trace

VALIDATION = Path("validation/h200/model_vs_measured_v3.csv")
TILE = 128
Variant = tuple[int, bool, bool]  # headdim, pingpong, intra_wg_overlap


def measured(column: str = "measured_ms") -> dict[Variant, tuple[float, float]]:
    """Per variant, the fitted (period, fixed cost per CTA) in cycles from the validation sweep's times in `column`
    (`predicted_ms`: the same fit of the model's predictions, at the measured clock)."""
    points: dict[Variant, list[tuple[float, float]]] = defaultdict(list)
    with VALIDATION.open(newline="") as handle:
        for row in csv.DictReader(handle):
            if row["causal"] == "True":
                continue
            d, options = int(row["headdim"]), row["options"]
            waves = -(-(16384 // TILE) * (2048 // d) // 132)
            cycles = float(row[column]) * 1e-3 * float(row["clock_mhz"]) * 1e6 / waves
            key = (d, "pingpong=True" in options, "intra_wg_overlap=True" in options)
            points[key].append((int(row["seqlen"]) / TILE, cycles))
    fits = {}
    for key, rows in points.items():
        tiles, cycles = np.array(rows).T
        period, fixed = np.polyfit(tiles, cycles, 1)
        fits[key] = (float(period), float(fixed))
    return fits


def model_period(variant: Variant) -> float:
    d, pingpong, overlap = variant
    arch = load_arch("h200").with_overrides({"power": None})
    problem = Problem(4, 2048 // d, 4096, d, causal=False, dtype="bf16", pass_="fwd")
    options = {"block_m": 128, "block_n": 128, "pingpong": pingpong, "intra_wg_overlap": overlap,
               "persistent": False, "epilogue": "registers"}  # fmt: skip
    trace = Trace(sms=(3,))
    Engine(arch, trace=trace).run(list(schedule(arch, "v3", problem, options)))
    intervals: list[float] = []
    for consumer in ("consumer0", "consumer1"):
        track = min(s.track for s in trace.spans if s.track.endswith(consumer))
        gemms = sorted(s.start_cycles for s in trace.spans if s.track == track and s.name == "Mma")
        per_tile = round(len(gemms) / (4096 // TILE))  # the MMA ops of a key tile (S, P V; S's parts)
        s_starts = gemms[::per_tile]
        intervals += [b - a for a, b in itertools.pairwise(s_starts)][4:-4]
    return statistics.median(intervals)


if __name__ == "__main__":
    fits = measured()
    variants = sorted(fits)
    with ProcessPoolExecutor(2) as pool:
        periods = list(pool.map(model_period, variants))
    errors = []
    for variant, period in zip(variants, periods, strict=True):
        d, pingpong, overlap = variant
        m_period, m_fixed = fits[variant]
        errors.append(abs(period / m_period - 1))
        print(f"d={d:3} pingpong={pingpong!s:5} intra_wg_overlap={overlap!s:5}: measured period {m_period:5.0f} "
              f"(fixed {m_fixed:5.0f} per CTA), model {period:5.0f} ({period / m_period - 1:+.1%})")  # fmt: skip
    print(f"mean |error| {sum(errors) / len(errors):.1%}")

"""Side check of the tenth session: what launching a causal grid's longest Q tiles first buys, measured on our FA3
kernel (`validation/h200/v3_lpt_h200.csv`, probe `validation/probes/v3_lpt.py`) and predicted by the v3 schedule
in our kernel's configuration (not persistent, stores from registers, 128 x 128 tiles, 2 stages) with `lpt` on and
off, on the H200 arch at the clock the probe counted beside the longest-first build (exact mode, two processes).
The gain is the index-order time over the longest-first time, minus one.
Run from the repository root: `python docs/results/checks_2026-12-02n.py > docs/results/checks_2026-12-02n.txt`."""

from __future__ import annotations

import csv
from concurrent.futures import ProcessPoolExecutor

from simgpu import Problem, simulate
from simgpu.arch import load_arch

OPTIONS = {"persistent": False, "epilogue": "registers", "block_m": 128, "block_n": 128, "stages": 2}


def cycles(case: tuple[int, int, float, bool]) -> float:
    headdim, seqlen, clock_mhz, lpt = case
    arch = load_arch("h200").with_overrides({"clock_hz": clock_mhz * 1e6, "power": None})
    problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim, causal=True, dtype="bf16", pass_="fwd")
    return simulate(arch, "v3", problem, mode="exact", options={**OPTIONS, "lpt": lpt}).cycles


if __name__ == "__main__":
    with open("validation/h200/v3_lpt_h200.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    ms = {(int(r["headdim"]), int(r["seqlen"]), r["order"]): float(r["ms"]) for r in rows}
    longest = [r for r in rows if r["order"] == "longest first"]
    clock = {(int(r["headdim"]), int(r["seqlen"])): float(r["clock_mhz"]) for r in longest}
    cases = [(d, n, mhz, lpt) for (d, n), mhz in clock.items() for lpt in (True, False)]
    with ProcessPoolExecutor(2) as pool:
        model = dict(zip(cases, pool.map(cycles, cases), strict=True))
    for (d, n), mhz in clock.items():
        measured = ms[(d, n, "index order")] / ms[(d, n, "longest first")] - 1
        predicted = model[(d, n, mhz, False)] / model[(d, n, mhz, True)] - 1
        print(f"d={d:3d} N={n:5d}: longest first gains {measured:+.1%} measured, {predicted:+.1%} model")

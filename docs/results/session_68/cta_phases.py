"""Our FA3 kernel's CTA phases on the chip against the model's, ping-pong and overlap on (the validation's default
variant): the chip's medians of `validation/h200/v3_cta_timeline_summary_h200.csv` (CTAs after the first wave) and
the model's from an exact-mode trace of SM 0 of the H200 at the chip's counted clock (the power model off, as
`simgpu validate` runs a known clock), CTAs after the first on that SM.

Phases, in SM cycles, of consumer 0 as the chip's stamps: Q ready after its copy was issued; S_0 ready after Q; the
loop from S_0 to the last P V; and the turnaround from the last P V to the next CTA's Q copy on the SM (on the chip,
from the raw stamps `v3_cta_timeline_h200.csv.gz`: to the later consumer's stores issued, then the gap to the next
CTA's entry and that CTA's start to its Q copy).
Run: `python docs/results/session_68/cta_phases.py`.
"""

from __future__ import annotations

import csv
import gzip
import itertools
import statistics
from collections import defaultdict
from pathlib import Path

from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace

ROOT = Path(__file__).resolve().parents[3]
CHIP = ROOT / "validation/h200/v3_cta_timeline_summary_h200.csv"
RAW = ROOT / "validation/h200/v3_cta_timeline_h200.csv.gz"
SHAPES = {"n512": 512, "n2048": 2048, "n8192": 8192}
OPTIONS = {"block_m": 128, "block_n": 128, "stages": 2, "pingpong": True, "intra_wg_overlap": True,
           "persistent": False, "epilogue": "registers"}  # fmt: skip


def model_phases(headdim: int, seqlen: int, clock_mhz: float) -> dict[str, float]:
    """Medians over the CTAs of SM 0 after its first: the phases of the module docstring."""
    arch = load_arch("h200").with_overrides({"power": None, "clock_hz": clock_mhz * 1e6})
    problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim)
    trace = Trace(sms=(0,))
    simulate(arch, "v3", problem, OPTIONS, mode="exact", trace=trace)
    spans: dict[str, dict[str, list[tuple[str, float, float]]]] = defaultdict(lambda: defaultdict(list))
    for span in trace.spans:
        if span.track.startswith("CTA slot "):
            _, _, cta, role = span.track.split(" ")
            spans[cta][role].append((span.name, span.start_cycles, span.end_cycles))
    rows = []
    for roles in spans.values():
        q_issued, q_ready = next((s, e) for name, s, e in roles["producer"] if name == "Load")
        mmas = [e for name, _, e in roles["consumer0"] if name == "Mma"]
        last_pv = mmas[-1]  # consumer 0's, as the chip's stamps
        rows.append({"q_issued": q_issued, "q_ready": q_ready - q_issued, "s0": mmas[0] - q_ready,
                     "loop": last_pv - mmas[0], "last_pv": last_pv})  # fmt: skip
    rows.sort(key=lambda row: row["q_issued"])
    turnarounds = [later["q_issued"] - earlier["last_pv"] for earlier, later in itertools.pairwise(rows)]
    later = rows[1:]
    return {
        "q_ready": statistics.median(r["q_ready"] for r in later),
        "s0": statistics.median(r["s0"] for r in later),
        "loop": statistics.median(r["loop"] for r in later),
        "turnaround": statistics.median(turnarounds),
    }


def chip_turnarounds() -> dict[tuple[str, int], float]:
    """Per shape and head dimension, the median over consecutive CTAs of an SM of the cycles from consumer 0's last
    P V to the next CTA's Q copy: the CTA's later consumer's epilogue end, the gap to the next entry, its Q copy."""
    by_sm: dict[tuple[str, int], dict[str, list[dict[str, str]]]] = defaultdict(lambda: defaultdict(list))
    with gzip.open(RAW, "rt") as handle:
        for row in csv.DictReader(handle):
            by_sm[row["shape"], int(row["headdim"])][row["sm"]].append(row)  # in launch order per SM
    turnarounds = {}
    for key, sms in by_sm.items():
        cycles = [
            max(float(a["epi_c0"]), float(a["epi_c1"])) - float(a["loop_c0"]) + float(b["gap_before"])
            + float(b["q_issued"])
            for ctas in sms.values()
            for a, b in itertools.pairwise(ctas)
        ]  # fmt: skip
        if cycles:  # shapes of one wave have no CTA after another on an SM
            turnarounds[key] = statistics.median(cycles)
    return turnarounds


def main() -> None:
    with CHIP.open() as handle:
        chip = {(row["shape"], int(row["headdim"])): row for row in csv.DictReader(handle)}
    turnaround = chip_turnarounds()
    print("d shape: phase chip / model (model - chip)")
    for headdim in (64, 128):
        for shape, seqlen in SHAPES.items():
            row = chip[shape, headdim]
            measured = {
                "q_ready": float(row["later_q_ready"]) - float(row["later_q_issued"]),
                "s0": float(row["later_s0_after_q"]),
                "loop": float(row["later_loop_after_s0"]),
                "turnaround": turnaround[shape, headdim],
            }
            model = model_phases(headdim, seqlen, float(row["plain_clock_mhz"]))
            cells = [f"{name} {measured[name]:.0f} / {model[name]:.0f} ({model[name] - measured[name]:+.0f})"
                     for name in measured]  # fmt: skip
            print(f"{headdim} {shape}: " + "; ".join(cells), flush=True)


if __name__ == "__main__":
    main()

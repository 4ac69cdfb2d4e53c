"""Whether two CTAs sharing an SM run our FA2 forward in step: measured (`validation/probes/v2_sm_phase.py`:
`validation/h200/v2_sm_phase_h200.csv`, each traced CTA's SM and loop tops in SM cycles) against the v2 schedule in
exact mode (SM 0 traced, the H200 at the measured run's counted clock, the power model off; a modelled tile starts
at its S product). For every two CTAs on one SM whose tiles overlap, each tile start of the later one is placed
within the earlier one's tile that holds it: its phase is (its time - that tile's start) / that tile's length,
folded to [0, 0.5] (0: in step; 0.5: half a tile apart); per pair, the median over the tiles both ran (4 at least).
Shape as the probe: B=4, H=2048/d, N=4096. Measured twice: as launched ("traced") and with the second CTA on each
SM of the first wave held back 3000 cycles ("delayed"): if the phase were set by how CTAs start, not by how they
share the SM, the two would differ. Until the probe has run, the model alone at 1800 MHz. Run: `python
docs/results/v2_sm_phase_vs_model.py` (writes `v2_sm_phase_vs_model.txt`)."""

from __future__ import annotations

import csv
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace

MEASURED = Path("validation/h200/v2_sm_phase_h200.csv")
TIMES = Path("validation/h200/v2_sm_phase_summary_h200.csv")
BATCH, SEQLEN = 4, 4096
UNMEASURED_CLOCK_MHZ = 1800  # the counted clock of the v2 forward's runs on the H200 (1770-1812 MHz this session)


def pair_phase(first: np.ndarray, later: np.ndarray) -> tuple[float, int]:
    """The median folded phase of `later`'s tile starts within `first`'s tiles, and how many tiles it is over."""
    phases = []
    for top in later:
        tile = int(np.searchsorted(first, top, side="right")) - 1
        if 0 <= tile < len(first) - 1:
            phase = (top - first[tile]) / (first[tile + 1] - first[tile])
            phases.append(min(phase, 1.0 - phase))
    return (statistics.median(phases), len(phases)) if phases else (float("nan"), 0)


def phases_of(groups: Sequence[Sequence[np.ndarray]]) -> list[float]:
    """Per SM (a group of its CTAs' tile starts), the phase of every two CTAs that overlap by 4 tiles or more."""
    out = []
    for tops in groups:
        ordered = sorted(tops, key=lambda t: t[0])
        for i, first in enumerate(ordered):
            for later in ordered[i + 1 :]:
                phase, tiles = pair_phase(first, later)
                if tiles >= 4:
                    out.append(phase)
    return out


def measured(headdim: int, build: str) -> list[float]:
    by_sm: dict[str, list[np.ndarray]] = {}
    for row in csv.DictReader(MEASURED.open(encoding="utf-8")):
        if int(row["headdim"]) == headdim and row["build"] == build:
            tops = np.array([float(v) for k, v in row.items() if k.startswith("top_")])
            by_sm.setdefault(row["sm"], []).append(tops[tops > 0])
    return phases_of(list(by_sm.values()))


def modelled(headdim: int, clock_hz: float) -> list[float]:
    arch = load_arch("h200", {"clock_hz": clock_hz, "power": None})
    trace = Trace(sms=(0,))
    simulate(arch, "v2", Problem(BATCH, 2048 // headdim, SEQLEN, headdim), mode="exact", trace=trace)
    starts: dict[str, list[float]] = {}
    for span in trace.spans:
        if span.track.startswith("CTA slot") and span.name == "Mma":
            starts.setdefault(span.track, []).append(span.start_cycles)
    return phases_of([[np.array(s[0::2]) for s in starts.values()]])  # S: every other Mma


def describe(phases: list[float]) -> str:
    low, high = np.percentile(phases, [25, 75])
    return (
        f"{len(phases)} pairs, median phase {statistics.median(phases):.3f} (quartiles {low:.3f}-{high:.3f}; "
        f"in step, < 0.1: {sum(p < 0.1 for p in phases) / len(phases):.2f}; apart, > 0.4: "
        f"{sum(p > 0.4 for p in phases) / len(phases):.2f})"
    )


def main() -> None:
    lines = []
    if not TIMES.exists():  # the probe not run yet: the model alone, at the v2 forward's usual counted clock
        rows = [{"headdim": str(d), "traced_clock_mhz": str(UNMEASURED_CLOCK_MHZ)} for d in (64, 128)]
        lines.append(f"measured: not run yet ({TIMES} is missing); the model at {UNMEASURED_CLOCK_MHZ} MHz")
    else:
        rows = list(csv.DictReader(TIMES.open(encoding="utf-8")))
    for row in rows:
        headdim = int(row["headdim"])
        clock_mhz = float(row["traced_clock_mhz"])
        lines.append(f"d={headdim} ({clock_mhz:.0f} MHz)")
        if "plain_ms" in row:
            lines.append(f"  plain build: {float(row['plain_ms']):.3f} ms at {float(row['plain_clock_mhz']):.0f} MHz")
            for build in ("traced", "delayed"):
                phases = describe(measured(headdim, build))
                lines.append(f"  {build + ':':9s} {phases}; {float(row[build + '_ms']):.3f} ms")
        lines.append(f"  model:    {describe(modelled(headdim, clock_mhz * 1e6))}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    Path("docs/results/v2_sm_phase_vs_model.txt").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

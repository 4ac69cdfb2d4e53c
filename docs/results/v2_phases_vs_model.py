"""Our FA2 forward's phases per key tile, measured (`validation/probes/v2_phases.py`, the sixteenth session's build:
`validation/h200/v2_phases_summary_2026-12-03_h200.csv`) against the v2 schedule's, from an exact-mode trace of SM 0
(one head, N = 4096, two CTAs per SM as measured; the H200 at the traced run's counted clock, the power model off).

A warp's key tile, measured: K/V wait, then "S issued" (from the __syncthreads to S's last mma.sync issued; it holds
the issue of the next tile's cp.async copies), S arrived and the row max, the exps, PV issued. Modelled: the role's
ops, median over the middle half of a CTA's key tiles: the copies' issue and waits from PV's end to S's start, S from
its start to its end, the softmax (S's end to PV's start), PV. Medians of different intervals, so the sums are not
the periods. Run: `python docs/results/v2_phases_vs_model.py` (writes `v2_phases_vs_model.txt`)."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace

MEASURED = Path("validation/h200/v2_phases_summary_2026-12-03_h200.csv")
SEQLEN = 4096


def modelled(headdim: int, clock_hz: float) -> dict[str, float]:
    """The schedule's phases per key tile of the first CTA on SM 0."""
    arch = load_arch("h200", {"clock_hz": clock_hz, "power": None})
    trace = Trace(sms=(0,))
    simulate(arch, "v2", Problem(1, 2048 // headdim, SEQLEN, headdim), mode="exact", trace=trace)
    first = min(span.track for span in trace.spans if span.track.startswith("CTA slot"))
    mmas = [span for span in trace.spans if span.track == first and span.name == "Mma"]
    s, pv = mmas[0::2], mmas[1::2]
    middle = range(len(s) // 4, 3 * len(s) // 4)
    return {
        "copies issued + K/V wait": statistics.median(s[i + 1].start_cycles - pv[i].end_cycles for i in middle),
        "S": statistics.median(s[i].end_cycles - s[i].start_cycles for i in middle),
        "softmax": statistics.median(pv[i].start_cycles - s[i].end_cycles for i in middle),
        "PV": statistics.median(pv[i].end_cycles - pv[i].start_cycles for i in middle),
        "period": statistics.median(s[i + 1].start_cycles - s[i].start_cycles for i in middle),
    }


def main() -> None:
    lines = []
    for row in csv.DictReader(MEASURED.open(encoding="utf-8")):
        if row["ctas_per_sm"] != "2":
            continue
        headdim, clock_mhz = int(row["headdim"]), float(row["traced_clock_mhz"])
        model = modelled(headdim, clock_mhz * 1e6)
        measured = {
            "K/V wait": float(row["wait_kv_cycles"]),
            "S issued (with the copies' issue)": float(row["s_issue_cycles"]),
            "S arrived + row max": float(row["s_arrive_max_cycles"]),
            "exps": float(row["exp_cycles"]),
            "PV issued": float(row["pv_issue_cycles"]),
            "period": float(row["period_cycles"]),
        }
        lines.append(f"d={headdim}, 2 CTAs per SM, {clock_mhz:.0f} MHz, cycles per key tile")
        lines.append("  measured: " + ", ".join(f"{name} {value:.0f}" for name, value in measured.items()))
        lines.append("  model:    " + ", ".join(f"{name} {value:.0f}" for name, value in model.items()))
    text = "\n".join(lines) + "\n"
    print(text, end="")
    Path("docs/results/v2_phases_vs_model.txt").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

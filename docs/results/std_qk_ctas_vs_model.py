"""The CTAs that start an SM together, measured (`validation/probes/std_qk_ctas.py`, the H200) against the model's
exact mode: our standard QK^T kernel alone at d = 128 (128 x 128 tiles, three CTAs per SM), batch 1, N = 1024, 3, 9
and 15 heads. Per SM, the exits of the CTAs whose entries lie within 2,000 cycles of its first, their spread as a
share of the round (0: they end together), and the cycles from the first of them to end to the SM's next CTA's
entry; medians over the SMs (the measurement's over its three runs too). The model's CTA spans come from an
exact-mode trace of every SM. Fast mode ends an SM's first tiles together (`simgpu.fast_schedule`).
`python docs/results/std_qk_ctas_vs_model.py` (prints; the .txt beside it is its output)."""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

from cupy_kernels.common import co_resident_ctas
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.trace import Trace

MEASURED = Path("validation/h200/std_qk_ctas/std_qk_ctas_summary_h200.csv")


def modelled(heads: int) -> dict[str, float]:
    arch = load_arch("h200")
    kernel = schedule(arch, "standard", Problem(1, heads, 1024, 128), {})[0]
    trace = Trace(sms=range(arch.sms))
    Engine(arch, arch.clock_hz, trace).run([kernel])
    spans: dict[tuple[str, str], list[float]] = defaultdict(lambda: [float("inf"), 0.0])
    for span in trace.spans:
        if span.track.startswith("CTA slot"):
            cta = spans[span.process, span.track]
            cta[0], cta[1] = min(cta[0], span.start_cycles), max(cta[1], span.end_cycles)
    return co_resident_ctas({"sm": sm, "entry": entry, "exit": end} for (sm, _), (entry, end) in spans.items())


def main() -> None:
    rows = list(csv.DictReader(MEASURED.open(encoding="utf-8")))
    for heads in sorted({int(row["heads"]) for row in rows}):
        runs = [row for row in rows if int(row["heads"]) == heads]
        spread = statistics.median(float(row["exit_spread_of_round"]) for row in runs)
        gaps = [float(row["next_entry_after_first_exit"]) for row in runs]
        gap = statistics.median(gaps) if all(g == g for g in gaps) else float("nan")
        together = statistics.median(float(row["ctas_started_together"]) for row in runs)
        model = modelled(heads)
        m_together, m_spread = model["ctas_started_together"], model["exit_spread_of_round"]
        m_gap = model["next_entry_after_first_exit"]
        print(
            f"{heads:2d} heads ({runs[0]['ctas']} CTAs): started together {together:.0f} / model {m_together:.0f}; "
            f"exit spread of the round {spread:.2f} / model {m_spread:.2f}; next entry after the first exit "
            f"{gap:.0f} / model {m_gap:.0f} cycles"
        )


if __name__ == "__main__":
    main()

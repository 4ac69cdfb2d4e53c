"""Two warpgroups looping over the v3 softmax of `docs/results/checks_2026-12-02m.py` (whole build) on one SM of the
H200 model, exact mode: each warpgroup's op spans (start, end cycles) of its first iterations, to see whether the two
stay in step, then every span (the units' too) that starts in `WINDOW`. From the repository root, with the patch
applied for the fair variant: `SIMGPU_NATIVE=0 SIMGPU_FAIR_MUFU=0|1 python
docs/results/mufu_fair_not_kept_61/pair_trace.py`."""

from __future__ import annotations

import runpy

from simgpu.arch import load_arch
from simgpu.engine import Engine
from simgpu.kernel import CtaResources, Kernel, Role
from simgpu.ops import Repeat
from simgpu.trace import Trace

ITERATIONS = 12
SPANS = 22
WINDOW = (4550, 4900)  # cycles: wg1's second row-max pass and quad maximum


def main() -> None:
    # The probe script's ops, without running its comparisons (they sit under its reads of the measured CSVs).
    with open("docs/results/checks_2026-12-02m.py", encoding="utf-8") as handle:
        source = handle.read().split("with open(")[0]
    probe = runpy._run_code(compile(source, "checks_2026-12-02m.py", "exec"), {})  # type: ignore[attr-defined]
    body = probe["build"](0)
    roles = tuple(Role(f"wg{g}", 4, lambda tile, body=body: (Repeat(ITERATIONS, lambda i: body),)) for g in range(2))
    trace = Trace()
    kernel = Kernel("groups", (0,), CtaResources(256, 168, 30000), roles, ())
    Engine(load_arch("h200"), sms=1, trace=trace).run([kernel])
    spans = sorted((s for s in trace.spans if "CTA slot" in s.track), key=lambda s: s.start_cycles)
    for span in spans[:SPANS]:
        print(f"{span.track:>16} {span.name:>8} {span.start_cycles:8.0f} {span.end_cycles:8.0f}")
    print(f"every span starting in {WINDOW}:")
    for span in sorted(trace.spans, key=lambda s: s.start_cycles):
        if WINDOW[0] <= span.start_cycles <= WINDOW[1]:
            print(f"{span.track:>16} {span.name:>8} {span.start_cycles:8.0f} {span.end_cycles:8.0f}")


if __name__ == "__main__":
    main()

"""Each CTA's start and end in exact mode (from the engine's trace) for one kernel of a run on a chip cut to SMS SMs.

`python cta_ends.py ARCH SMS ALGO BATCH HEADS SEQLEN HEADDIM OPTIONS KERNEL PASS` (OPTIONS: a Python dict literal).
"""

import ast
import sys

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.trace import Trace


def main() -> None:
    arch_name, sms, algo = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    batch, heads, seqlen, headdim = map(int, sys.argv[4:8])
    options, number, pass_ = ast.literal_eval(sys.argv[8]), int(sys.argv[9]), sys.argv[10]
    arch = load_arch(arch_name, overrides={"sms": sms})
    kernel = schedule(arch, algo, Problem(batch, heads, seqlen, headdim, pass_=pass_), options)[number]
    trace = Trace(sms=range(sms), max_spans=10**7)
    stats = Engine(arch, trace=trace).run([kernel])
    ctas: dict[tuple[str, str], list[float]] = {}
    for span in trace.spans:
        if span.track.startswith("CTA slot"):
            times = ctas.setdefault((span.process, span.track), [float("inf"), 0.0])
            times[0], times[1] = min(times[0], span.start_cycles), max(times[1], span.end_cycles)
    print(kernel.name, len(kernel.tiles), "cycles", round(stats.cycles))
    for where, (start, end) in sorted(ctas.items(), key=lambda item: item[1][0]):
        print(" ", where, round(start), round(end), round(end - start))


if __name__ == "__main__":
    main()

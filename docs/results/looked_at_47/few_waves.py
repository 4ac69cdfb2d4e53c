"""The random problems' worst standard-attention case (`docs/results/fast_random.csv`: the H100 cut to 8 SMs,
3 x 3 heads, N = 256, d = 128, `block_n=128`, fast mode 6.3% slow): each kernel's cycles in both modes, and in exact
mode the score kernel's tiles on one SM (start and end of each CTA). Run from the repository root with
`SIMGPU_NATIVE=0`: `python docs/results/looked_at_47/few_waves.py`."""

from __future__ import annotations

import re
from collections import defaultdict

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast_plan import plan_kernel
from simgpu.trace import Span, Trace

ARCH = load_arch("h100", {"sms": 8})
PROBLEM = Problem(3, 3, 256, 128)
OPTIONS = {"block_n": 128}


def main() -> None:
    exact = simulate(ARCH, "standard", PROBLEM, OPTIONS, mode="exact")
    fast = simulate(ARCH, "standard", PROBLEM, OPTIONS, mode="fast")
    print(f"whole run: exact {exact.cycles:.0f}, fast {fast.cycles:.0f} cycles ({fast.cycles / exact.cycles:.4f})")
    kernels = schedule(ARCH, "standard", PROBLEM, OPTIONS)
    for kernel, e, f in zip(kernels, exact.kernel_cycles, fast.kernel_cycles, strict=True):
        plan = plan_kernel(ARCH, kernel)
        print(f"{kernel.name}: {len(kernel.tiles)} tiles, {plan.fit} an SM; exact {e:.0f}, fast {f:.0f} ({f / e:.4f})")
    trace = Trace(sms=(0,), max_spans=10**6)
    Engine(ARCH, ARCH.clock_hz, trace).run([kernels[0]])
    ctas: dict[int, list[Span]] = defaultdict(list)
    for span in trace.spans:
        if match := re.match(r"CTA slot (\d+) ", span.track):
            ctas[int(match.group(1))].append(span)
    print("score kernel, SM 0, exact mode (CTA: start, end):")
    for cta, spans in sorted(ctas.items(), key=lambda item: min(s.start_cycles for s in item[1])):
        print(f"  {cta}: {min(s.start_cycles for s in spans):.0f}, {max(s.end_cycles for s in spans):.0f}")


if __name__ == "__main__":
    main()

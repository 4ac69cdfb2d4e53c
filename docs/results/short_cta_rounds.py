"""Why fast mode's standard softmax came out ~5% slow on the fast-vs-exact grid's B200 shape (8 SMs, 2 x 2 heads,
N = 1k, d = 64): its representative SM run for 1 to 8 rounds of 16 CTAs on its own (the whole chip's bandwidth),
against the class cost fast mode takes from those runs (a slot's first tile, a further one, a lone first tile's
tail; `simgpu.fast_costs`), and the softmax kernel's cycles in fast and exact mode at 1, 2, 4 and 8 batches.
Run: `python docs/results/short_cta_rounds.py` (writes `short_cta_rounds.txt`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import DEFAULT_EVENT_BUDGET, Engine
from simgpu.fast import plan_fast
from simgpu.fast_costs import TIMES, class_costs, metric_names
from simgpu.kernel import with_programs


def main() -> None:
    arch = load_arch("b200", {"sms": 8})
    planned = plan_fast(arch, schedule(arch, "standard", Problem(2, 2, 1024, 64), {}))
    softmax = planned.plans[1]
    names = metric_names(arch)
    launch = arch.kernel_launch_s * arch.clock_hz
    lines = []
    for rounds in range(1, 9):
        kernel = with_programs(softmax.kernel, softmax.representative(0).marked)
        engine = Engine(
            arch, arch.clock_hz, sms=1, miss_shares=planned.shares[1], max_ctas_per_sm=16, bandwidth_share=1.0
        )
        cycles = engine.run([replace(kernel, tiles=range(16 * rounds))]).cycles - launch
        lines.append(f"{rounds} round(s) of 16 CTAs, one SM alone: {cycles:.0f} cycles")
    costs, _ = class_costs(arch, softmax, arch.clock_hz, DEFAULT_EVENT_BUDGET, planned.shares[1], names, 8)
    cost = costs[0][-1].of(softmax.removed[0])
    first, further, tail = cost[:TIMES]
    exp = 16 * cost[TIMES + names.index("busy:mufu")]
    lines.append(f"class cost, 16 CTAs alone: first {first:.0f}, further {further:.0f}, tail {tail:.0f}")
    lines.append(f"exp (MUFU) busy per round of 16 CTAs: {exp:.0f} cycles")
    for batch in (1, 2, 4, 8):
        problem = Problem(batch, 2, 1024, 64)
        exact, fast = (simulate(arch, "standard", problem, mode=mode).kernel_cycles[1] for mode in ("exact", "fast"))
        lines.append(f"softmax kernel, batch {batch}: exact {exact:.0f}, fast {fast:.0f}, ratio {fast / exact:.4f}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    Path(__file__).with_suffix(".txt").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

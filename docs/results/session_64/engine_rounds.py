"""Each engine run of one fast-mode prediction (16k tokens, 16 heads, d = 128): its kernel, tiles (CTA slots times
rounds), ops, CTA slots and clock, counted as Python
(`SIMGPU_NATIVE=0 python engine_rounds.py arch:algo:pass:seqlen`)."""

from __future__ import annotations

import sys
from typing import Any

from simgpu import Problem, load_arch, simulate
from simgpu.engine import Engine

LOG: list[tuple[str, int, int, int | None, float]] = []
_RUN = Engine.run


def _logged(self: Engine, kernels: Any) -> Any:
    stats = _RUN(self, kernels)
    LOG.append((kernels[0].name, len(kernels[0].tiles), stats.ops, self.max_ctas_per_sm, self.clock_hz))
    return stats


def main(case: str) -> None:
    Engine.run = _logged  # type: ignore[method-assign]
    arch, algo, pass_, seqlen = case.split(":")
    n = int(seqlen)
    chip, problem = load_arch(arch), Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_)
    simulate(chip, algo, problem, mode="fast")
    LOG.clear()
    simulate(chip, algo, problem, mode="fast")
    print(f"{case}: {len(LOG)} runs, {sum(ops for _, _, ops, _, _ in LOG)} ops")
    for name, tiles, ops, slots, clock_hz in LOG:
        print(f"  {name} tiles {tiles} ops {ops} slots {slots} clock {clock_hz / 1e6:.1f} MHz")


if __name__ == "__main__":
    main(sys.argv[1])

"""The speed benchmark's cases that run twice, first at the tensor-active clock and again at the power-limited one
(`simgpu.api.simulate`): per case the two clocks, how much the second run moved the cycles and the tensor activity
of each run. `python docs/results/lines_62/clock_rerun.py > docs/results/lines_62/clock_rerun.txt`."""

from __future__ import annotations

from typing import Any

import simgpu.api as api
from simgpu import Problem, load_arch, simulate
from simgpu.errors import SimgpuError

RUNS: list[tuple[float, float, float]] = []  # (clock, cycles, tensor activity) of each engine run of a prediction
_RUN = api._run


def _recorded(*args: Any) -> Any:
    stats = _RUN(*args)
    RUNS.append((args[2], stats.cycles, stats.tensor_activity))
    return stats


def main() -> None:
    api._run = _recorded  # (api is not compiled: its module attribute is looked up per call)
    for arch in ("a100", "h100", "h200", "b200"):
        for algo in ("standard", "v1", "v2", "v3", "v4"):
            for pass_ in ("fwd", "bwd"):
                for seqlen in (1024, 4096, 16384, 65536, 131072):
                    RUNS.clear()
                    try:
                        simulate(load_arch(arch), algo, Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_))
                    except SimgpuError:
                        continue
                    if len(RUNS) > 1:
                        (f0, c0, u0), (f1, c1, u1) = RUNS
                        print(
                            f"{arch} {algo} {pass_} {seqlen}: f {f0 / 1e6:.0f}->{f1 / 1e6:.0f} MHz ({f1 / f0 - 1:+.2%})"
                            f" cycles {c1 / c0 - 1:+.3%} u {u0:.3f}->{u1:.3f}"
                        )


if __name__ == "__main__":
    main()

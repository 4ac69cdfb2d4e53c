"""Which of the speed benchmark's fast-mode predictions run twice, at the starting clock and again at the
power-limited clock (`simgpu.api.simulate`: where the first run's tensor activity moves the clock by more than
`CLOCK_TOLERANCE`), with each run's clock, wall time and tensor activity
(`python docs/results/session_66/clock_reruns.py`)."""

from __future__ import annotations

import time
from typing import Any

from simgpu import Problem, SimgpuError, api, load_arch, simulate

CALLS: list[tuple[float, float, float]] = []
_RUN = api._run


def _timed(arch: Any, kernels: Any, clock_hz: float, *args: Any) -> Any:
    started = time.perf_counter()
    stats = _RUN(arch, kernels, clock_hz, *args)
    CALLS.append((clock_hz, time.perf_counter() - started, stats.tensor_activity))
    return stats


def main() -> None:
    api._run = _timed  # type: ignore[assignment]
    for arch_name in ("a100", "h100", "h200", "b200"):
        arch = load_arch(arch_name)
        for algo in ("standard", "v1", "v2", "v3", "v4"):
            for pass_ in ("fwd", "bwd"):
                for n in (1024, 4096, 16384, 65536, 131072):
                    CALLS.clear()
                    try:
                        simulate(arch, algo, Problem(max(1, 16384 // n), 16, n, 128, pass_=pass_))
                    except SimgpuError:
                        continue
                    if len(CALLS) > 1:
                        runs = " ".join(f"{c / 1e6:.1f} MHz: {t * 1e3:.1f} ms, activity {a:.3f};" for c, t, a in CALLS)
                        print(f"{arch_name} {algo} {pass_} {n}: {runs}")


if __name__ == "__main__":
    main()

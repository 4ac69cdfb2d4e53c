"""v3's forward on the whole H100 at 2 x 16 heads, N = 1024, d = 128 (256 tiles, two waves on 132 SMs): the
representative's cost vectors (time to a slot's first tile, per further tile, tail; in cycles) per setting, fast mode's
and exact mode's cycles. Wraps `simgpu.fast_costs._representative`: run with SIMGPU_NATIVE=0.

`SIMGPU_NATIVE=0 python docs/results/burst_31/v3_two_waves.py`
"""

from typing import Any

import simgpu.fast_costs as fast_costs
from simgpu import Problem, native, simulate

representative = fast_costs._representative


def shown(*args: Any, **kwargs: Any) -> Any:
    run = representative(*args, **kwargs)
    ctas, burst, share, traffic = args[3]
    times = ", ".join(f"{value:.0f}" for value in run.vector[:3])
    print(f"CTAs {ctas}, burst share {burst:.4f}, share {share:.4f}, traffic {traffic:.4f}: {times}")
    return run


def main() -> None:
    assert not native.compiled(), "run with SIMGPU_NATIVE=0"
    fast_costs._representative = shown
    problem = Problem(2, 16, 1024, 128)
    fast = simulate("h100", "v3", problem, mode="fast")
    exact = simulate("h100", "v3", problem, mode="exact")
    print(f"fast {fast.cycles:.0f} exact {exact.cycles:.0f} cycles, fast / exact {fast.cycles / exact.cycles:.4f}")


if __name__ == "__main__":
    main()

"""`tests/core/test_fast.py`'s loaded-latency what-if, causal: v3's forward (LPT order) on an H200 cut to 16 SMs at
4 x 16 x 512, d = 64, with the HBM's loaded latency raised from none to 2000 cycles; each mode's cycles and slowdown.
Run once per checkout: `PYTHONPATH=CHECKOUT python docs/results/first_touch_57/loaded_latency.py`."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def main() -> None:
    problem = Problem(4, 16, 512, 64, causal=True)
    for mode in ("fast", "exact"):
        cycles = [
            simulate(
                load_arch("h200", {"sms": 16, "hbm.loaded_latency.extra_cycles": extra}), "v3", problem, mode=mode
            ).cycles
            for extra in (0, 2000)
        ]
        print(f"{mode}: {cycles[0]:,.0f} -> {cycles[1]:,.0f} cycles, slowdown {cycles[1] / cycles[0] - 1:.2%}")


if __name__ == "__main__":
    main()

"""v3's FP8 forward on the H100 model at 16k tokens of one sequence, d = 128, fast mode, ping-pong on and off: the
TFLOP/s and the units' busy fractions over 5% (`python docs/results/session_67/fp8_busy.py`; `fp8_busy.txt`: main,
then the change)."""

from __future__ import annotations

from simgpu import Problem, simulate

for pingpong in (True, False):
    fp8 = simulate("h100", "v3", Problem(1, 16, 16384, 128, dtype="fp8"), {"pingpong": pingpong})
    busy = {unit: round(share, 3) for unit, share in fp8.busy.items() if share > 0.05}
    print(f"pingpong={pingpong}: fp8 {fp8.tflops:.0f} TFLOP/s, busy {busy}")

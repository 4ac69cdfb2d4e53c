"""Side checks of the twenty-second session, the figures its note and the README quote about fast mode against exact
mode and about standard attention's kernels.

1. Standard attention's softmax kernel alone (`softmax_passes` 1, and 2 as our CUDA kernel reads S) on the H200,
   fast and exact mode: cycles and passes over S from HBM. The replay's write-backs at the run's end
   (`simgpu.replay._pushed_out_at_end`) moved fast mode's cycles here.
2. v3's forward on the H100 at N = 512 (32 x 16 heads): fast over exact mode for d = 64, 128, 256, causal and not,
   and for the causal d = 128 case with and without the persistent kernel and LPT.
3. The A100's P V alone (`tests/core/test_fast.py`, the HBM idle share story) at 108, 128 and 64 SMs.
4. Standard attention's three forward kernels one by one in fast mode against `validation/h200/kernels_h200.csv`
   (our kernels, at the clock each was timed at; `softmax_passes=2`, the validation's options).
`--fast-only` skips exact mode (to run the fast side at another commit: `PYTHONPATH=<checkout>`).
Run from the repository root: `python docs/results/checks_2026-12-03b.py > docs/results/checks_2026-12-03b.txt`.
`checks_2026-12-03b_at_9f7bcc7_fast.txt` is the fast side at 9f7bcc7, before the replay's end-of-run write-backs
(`PYTHONPATH=<a checkout of it> SIMGPU_NATIVE=0 python docs/results/checks_2026-12-03b.py --fast-only`).
"""

from __future__ import annotations

import csv
import sys

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import DEFAULT_EVENT_BUDGET, Engine
from simgpu.fast import run_fast

FAST_ONLY = "--fast-only" in sys.argv
GEMM_OPTIONS = {"block_m": 128, "block_n": 128, "warps": 4, "stages": 2}


def ratio(fast: float, exact: float | None) -> str:
    return "" if exact is None else f", fast / exact {fast / exact:.3f}"


def softmax_alone() -> None:
    print("1. standard's softmax alone, H200: cycles fast | exact, passes over S from HBM fast | exact")
    arch = load_arch("h200")
    for batch, seqlen, passes in ((16, 1024, 1), (8, 2048, 1), (4, 4096, 1), (8, 2048, 2)):
        problem = Problem(batch, 32, seqlen, 64)
        kernel = schedule(arch, "standard", problem, {"softmax_passes": passes})[1]
        s_bytes = batch * 32 * seqlen * seqlen * 2
        fast = run_fast(arch, [kernel], arch.clock_hz, DEFAULT_EVENT_BUDGET)
        exact = None if FAST_ONLY else Engine(arch).run([kernel])
        cells = f"{fast.cycles:.0f} | {exact.cycles:.0f}" if exact else f"{fast.cycles:.0f}"
        reads = f"{fast.hbm_read_bytes / s_bytes:.3f}" + (f" | {exact.hbm_read_bytes / s_bytes:.3f}" if exact else "")
        print(f"  {batch} x 32 x {seqlen}, {passes} pass(es): {cells}, passes {reads}"
              f"{ratio(fast.cycles, exact.cycles if exact else None)}")  # fmt: skip


def v3_short() -> None:
    print("2. v3 forward, H100, 32 x 16 heads, N = 512: TFLOP/s fast | exact")
    cases: list[tuple[int, bool, dict[str, bool]]] = [(d, c, {}) for d in (64, 128, 256) for c in (False, True)]
    variants: list[dict[str, bool]] = [{"lpt": False}, {"persistent": False}, {"persistent": False, "lpt": False}]
    cases += [(128, True, options) for options in variants]
    for headdim, causal, options in cases:
        problem = Problem(32, 16, 512, headdim, causal=causal)
        fast = simulate("h100", "v3", problem, options=options, mode="fast")
        exact = None if FAST_ONLY else simulate("h100", "v3", problem, options=options, mode="exact")
        cells = f"{fast.tflops:.1f}" + (f" | {exact.tflops:.1f}" if exact else "")
        print(f"  d={headdim} causal={causal} {options or 'defaults'}: {cells}"
              f"{ratio(fast.cycles, exact.cycles if exact else None)}")  # fmt: skip


def a100_pv() -> None:
    print("3. standard's P V alone, A100, 8 x 16 heads, N = 1024: cycles fast | exact, HBM busy fast | exact")
    for sms in (108, 128, 64):
        arch = load_arch("a100", {"sms": sms})
        pv = schedule(arch, "standard", Problem(8, 16, 1024, 64), {})[2]
        fast = run_fast(arch, [pv], arch.clock_hz, DEFAULT_EVENT_BUDGET)
        exact = None if FAST_ONLY else Engine(arch).run([pv])
        busy = f"{fast.units['hbm'].busy_cycles / fast.cycles:.3f}"
        if exact:
            busy += f" | {exact.units['hbm'].busy_cycles / exact.cycles:.3f}"
        cells = f"{fast.cycles:.0f}" + (f" | {exact.cycles:.0f}" if exact else "")
        print(f"  {sms} SMs: {cells}, busy {busy}{ratio(fast.cycles, exact.cycles if exact else None)}")


def standard_kernels() -> None:
    print("4. standard's forward kernels, fast mode against our kernels (ms measured / model, model / measured - 1)")
    with open("validation/h200/kernels_h200.csv", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["kernel"].startswith("standard_")]
    measured = {(r["kernel"], r["batch"], r["seqlen"], r["headdim"], r["causal"]): r for r in rows}
    shapes = ((32, 32, 512, 64), (8, 32, 2048, 64), (2, 32, 8192, 64), (8, 16, 2048, 128), (2, 16, 8192, 128))
    for batch, heads, seqlen, headdim in shapes:
        for causal in (False, True):
            cells = []
            for index, name in enumerate(("standard_qk", "standard_softmax", "standard_pv")):
                row = measured[name, str(batch), str(seqlen), str(headdim), str(causal)]
                clock_hz = float(row["probe_clock_mhz"]) * 1e6
                arch = load_arch("h200", {"clock_hz": clock_hz, "power": None})
                problem = Problem(batch, heads, seqlen, headdim, causal=causal)
                result = simulate(arch, "standard", problem, options={**GEMM_OPTIONS, "softmax_passes": 2})
                model_ms = result.kernel_cycles[index] / clock_hz * 1e3
                ms = float(row["time_ms_median"])
                cells.append(f"{name[9:]} {ms:.3f} / {model_ms:.3f} ({model_ms / ms - 1:+.1%})")
            print(f"  {batch} x {heads} x {seqlen}, d={headdim}, causal={causal}: " + " | ".join(cells))


if __name__ == "__main__":
    softmax_alone()
    v3_short()
    a100_pv()
    if not FAST_ONLY:
        standard_kernels()

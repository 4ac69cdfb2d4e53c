"""Issue 7's done-when figures for the v4 (FA4) schedule on the B200 model, re-measured; output in
`v4_check_2026-12-02.txt`.

`python docs/results/v4_check_2026-12-02.py > docs/results/v4_check_2026-12-02.txt` (9 minutes on 2 shared CPUs;
run at commit 4cf2517):
1. per-tile accounting (`per_tile=True`, every exp on MUFU and no rescaling, as FA4's tables): the unit cycles of one
   more M x N main-loop tile, the first work item with two key blocks (forward) or two Q tiles (backward) minus the
   same with one, and the raw `unit_cycles` of both runs; forward M = 128 and 256 (FA4 Table 1), backward 1-CTA and
   2-CTA (FA4 §3.2.1);
2. the bf16 forward at d = 128 and long sequences (4 x 16 heads, seqlen 8k, exact and fast mode; 2 x 16 x 16k fast);
3. software exp2 (FA4's 25% of each row) against every exp on MUFU, per tile and on the 8k forward;
4. LPT against index order on the causal forward (16 heads, 16k tokens; exact mode);
5. deterministic against non-deterministic backward (exact mode: fast mode does not see semaphore waits), 1-CTA and
   2-CTA, and on one wave (1 x 4 heads, seqlen 512).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.result import unit_busy_cycles

ALL_MUFU = {"exp_emulation_fraction": 0.0, "rescale_fraction": 0.0}
UNITS = ("tensor", "smem", "mufu", "fma", "alu", "tmem", "dsmem")
ARCH = load_arch("b200")


def per_tile(problem: Problem, options: dict[str, Any]) -> dict[str, float]:
    """The first work item's busy cycles, as `per_tile=True` reported them when this ran: the first work item of each
    kernel alone on one SM, exact mode. `per_tile=True` now reports one main-loop tile and refuses loops as short
    as these (`simgpu.per_tile`), so the run is spelled out (the B200 has no power limit: no clock re-run)."""
    one_sm = ARCH.with_overrides({"sms": 1})
    kernels = schedule(one_sm, "v4", problem, {**ALL_MUFU, **options})
    cycles = unit_busy_cycles(Engine(one_sm).run([replace(kernel, tiles=kernel.tiles[:1]) for kernel in kernels]))
    return {unit: cycles.get(unit, 0.0) for unit in UNITS}


def main_loop_tile(label: str, one: Problem, two: Problem, options: dict[str, Any]) -> dict[str, float]:
    first, second = per_tile(one, options), per_tile(two, options)
    print(f"per_tile {label} raw one block: {first}")
    print(f"per_tile {label} raw two blocks: {second}")
    tile = {unit: second[unit] - first[unit] for unit in UNITS}
    print(f"per_tile {label} main-loop tile: " + ", ".join(f"{u} {tile[u]:g}" for u in UNITS))
    return tile


def tables() -> None:
    d = 128
    for m in (128, 256):
        main_loop_tile(f"fwd M={m} N=d=128", Problem(1, 1, m, d, seqlen_k=128), Problem(1, 1, m, d, seqlen_k=256), {})
    print("per_tile FA4 Table 1: M=128 MMA 1024 smem 768 exp 1024; M=256 2048 / 1536 / 2048")
    for label, options in (("1-CTA", {}), ("2-CTA", {"two_cta": True})):
        one, two = (Problem(1, 1, q, d, seqlen_k=128, pass_="bwd") for q in (128, 256))
        main_loop_tile(f"bwd {label} M=N=d=128", one, two, options)
    print("per_tile FA4 §3.2.1 backward: 1-CTA MMA 2560 smem 3328 exp 1024; 2-CTA smem about 2688")


def timed(label: str, problem: Problem, options: dict[str, Any], mode: str = "fast") -> float:
    start = time.process_time()
    result = simulate(ARCH, "v4", problem, options, mode=mode)
    busy = ", ".join(f"{u} {v:.3f}" for u, v in sorted(result.busy.items()) if v >= 0.01)
    print(
        f"{label} [{mode}] {problem.batch}x{problem.heads}x{problem.seqlen_q} causal={problem.causal} "
        f"pass={problem.pass_} options={options}: {result.tflops:.1f} TFLOP/s, "
        f"{result.tflops / (ARCH.peak_flops_per_s('bf16') / 1e12):.3f} of peak, bottleneck {result.bottleneck}; "
        f"busy {busy} (cpu {time.process_time() - start:.1f} s)"
    )
    return result.tflops


def forward() -> None:
    long = Problem(4, 16, 8192, 128)
    timed("forward", long, {}, mode="exact")
    timed("forward", long, {})
    timed("forward", Problem(2, 16, 16384, 128), {})
    print("forward FA4: up to 1613 TFLOP/s (71% of 2.25 PFLOP/s)")


def software_exp() -> None:
    tile = Problem(1, 1, 256, 128, seqlen_k=256)
    for fraction in (0.0, 0.25):
        cycles = per_tile(tile, {"exp_emulation_fraction": fraction})
        print(f"exp per_tile M=256 N=256 emulation {fraction:g}: " + ", ".join(f"{u} {cycles[u]:g}" for u in UNITS))
    long = Problem(4, 16, 8192, 128)
    mufu_only = timed("exp MUFU only", long, {"exp_emulation_fraction": 0.0}, mode="exact")
    split = timed("exp FA4 split (25% software)", long, {}, mode="exact")
    print(f"exp gain of the software split over MUFU only: {100 * (split / mufu_only - 1):+.2f}%")
    print("exp FA4: non-MMA work exceeds MMA cycles by 25-60% on typical tiles")


def lpt() -> None:
    for n in (2048, 8192):
        problem = Problem(16384 // n, 16, n, 128, causal=True)
        with_lpt = timed("lpt", problem, {"lpt": True}, mode="exact")
        index = timed("lpt index order", problem, {"lpt": False}, mode="exact")
        print(f"lpt causal forward seqlen {n}: gain {100 * (with_lpt / index - 1):+.2f}%")
    print("lpt FA4: 4-8% on MHA (causal)")


def deterministic() -> None:
    for problem in (
        Problem(8, 16, 2048, 128, pass_="bwd"),
        Problem(8, 16, 2048, 128, causal=True, pass_="bwd"),
        Problem(1, 4, 512, 128, pass_="bwd"),
    ):
        for pair in ({}, {"two_cta": True}):
            base = timed("det non-deterministic", problem, pair, mode="exact")
            det = timed("det deterministic", problem, {**pair, "deterministic": True}, mode="exact")
            print(
                f"det ratio {problem.batch}x{problem.heads}x{problem.seqlen_q} causal={problem.causal} {pair}: "
                f"{det / base:.3f}"
            )
    print("det FA4: deterministic backward up to 75% of the non-deterministic speed")


if __name__ == "__main__":
    tables()
    forward()
    software_exp()
    lpt()
    deterministic()

"""The Python entry point: `simulate(arch, algo, problem, options, mode)` -> Result.

It resolves the arch and the algorithm, validates the options against the algorithm's declared names, asks the
algorithm for its kernels, runs the engine, applies the power-limited clock when the arch has one (a run that issues
MMAs starts at the tensor-active ceiling, `simgpu.clock.starting_clock_hz`; one re-run where the law's clock differs;
in fast mode only its timing runs again), and checks the model's invariants before returning:
cycles never below the roofline bound, HBM bytes never below the compulsory traffic. A violated invariant is an
InternalError, never a result. A per-tile run (`per_tile`) runs each kernel's first work item alone on one SM and
adds one main-loop tile's busy cycles (`simgpu.per_tile`); the invariants, which bound whole problems, do not apply.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from simgpu.arch import Arch, load_arch
from simgpu.clock import CLOCK_TOLERANCE, power_limited_clock_hz, starting_clock_hz
from simgpu.engine import DEFAULT_EVENT_BUDGET, Engine, RunStats
from simgpu.errors import InternalError, OptionError, ProblemError
from simgpu.fast import FastPlan, plan_fast, run_fast, thaw
from simgpu.kernel import Kernel
from simgpu.per_tile import MainLoop, main_loop_unit_cycles, main_loops
from simgpu.problem import AnyProblem, GemmProblem, Problem
from simgpu.registry import algorithm_names, load_algorithm
from simgpu.result import Result, make_result
from simgpu.trace import Trace

MODES: tuple[str, ...] = ("fast", "exact")


def roofline_cycles(arch: Arch, problem: AnyProblem, clock_hz: float) -> float:
    """A lower bound on any schedule's cycles: the required tensor work at the peak rate (`Problem.required_flops`:
    the score pairs the causal mask leaves) and compulsory HBM reads."""
    compute = problem.required_flops / (arch.tensor_core.flops_per_cycle[problem.dtype] * arch.sms)  # type: ignore[index]
    memory = problem.compulsory_read_bytes / arch.hbm_bytes_per_cycle(clock_hz)
    return float(max(compute, memory))


def schedule(arch: Arch, algo: str, problem: AnyProblem, options: Mapping[str, Any]) -> tuple[Kernel, ...]:
    """The kernels `algo` launches for `problem` on `arch`, after checking the problem kind and option names."""
    module = load_algorithm(algo)
    expected = Problem if module.PROBLEM == "attention" else GemmProblem
    if not isinstance(problem, expected):
        raise ProblemError(f"algorithm {algo} takes a {expected.__name__}, got {type(problem).__name__}")
    unknown = sorted(set(options) - set(module.OPTIONS))
    if unknown:
        valid = ", ".join(sorted(module.OPTIONS)) or "none"
        raise OptionError(f"algorithm {algo} has no option {', '.join(unknown)} (valid: {valid})")
    if isinstance(problem, Problem) and problem.seqlens is not None and not getattr(module, "VARLEN", False):
        takers = ", ".join(name for name in algorithm_names() if getattr(load_algorithm(name), "VARLEN", False))
        raise ProblemError(f"algorithm {algo} does not model varlen batches (seqlens); {takers or 'none'} does")
    problem.check_arch(arch)
    return tuple(module.schedule(arch, problem, **options))


def simulate(
    arch: Arch | str | Path,
    algo: str,
    problem: AnyProblem,
    options: Mapping[str, Any] | None = None,
    mode: str = "fast",
    trace: Trace | None = None,
    event_budget: int = DEFAULT_EVENT_BUDGET,
    per_tile: bool = False,
) -> Result:
    """Predict `algo` on `arch` for `problem`. `mode="fast"` (`simgpu.fast`) extrapolates from representative SMs
    and folded loops; `mode="exact"` simulates every CTA and iteration and is the only mode that records a trace.
    With `per_tile`, one CTA runs the first work item of each kernel alone on one SM, in exact mode: the Result's
    cycles, bytes and busy fractions are that run's, `Result.work_item_unit_cycles` its busy cycles, and
    `Result.unit_cycles` those of one main-loop tile in steady state, as the FA4 per-tile rooflines count
    (`simgpu.per_tile`; an `OptionError` where the first work item's loops are too short to take a tile from)."""
    started = time.perf_counter()
    if not isinstance(arch, Arch):
        arch = load_arch(arch)
    if mode not in MODES:
        raise OptionError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if trace is not None and mode != "exact":
        raise OptionError("a trace records every event of a run: it needs mode='exact'")
    options = dict(options or {})
    kernels = schedule(arch, algo, problem, options)
    loops: tuple[MainLoop, ...] = ()
    if per_tile:
        arch = arch.with_overrides({"sms": 1})
        kernels = tuple(replace(kernel, tiles=kernel.tiles[:1]) for kernel in kernels)
        loops = main_loops(kernels)  # before the run: a loop too short to take a tile from is refused at once
        mode = "exact"
    clock_hz = starting_clock_hz(arch, kernels)
    # Fast mode's folds and L2 replay do not depend on the clock: a re-run at the power-limited clock reuses them.
    planned = plan_fast(arch, kernels, freeze=True) if mode == "fast" else None
    try:
        stats = _run(arch, kernels, clock_hz, planned, trace, event_budget)
        if arch.power is not None:
            lowered = power_limited_clock_hz(arch, stats.tensor_activity)
            if abs(lowered - clock_hz) > CLOCK_TOLERANCE * clock_hz:
                clock_hz = lowered
                if trace is not None:
                    trace.spans.clear()
                stats = _run(arch, kernels, clock_hz, planned, trace, event_budget)
    finally:
        if planned is not None:
            thaw(planned)
    tile_cycles = None
    if per_tile:  # at the clock the work item ran at; one tile of a problem is not the whole problem: no bounds
        tile_cycles = main_loop_unit_cycles(arch, loops, clock_hz, event_budget)
    else:
        _check_invariants(arch, algo, problem, stats, clock_hz)
    return make_result(
        stats,
        arch=arch.name,
        algo=algo,
        problem=problem.describe(),
        options=options,
        mode=f"{mode}, per tile" if per_tile else mode,
        clock_hz=clock_hz,
        flops=problem.flops,
        sim_wall_s=time.perf_counter() - started,
        spans=tuple(trace.spans) if trace is not None else (),
        main_loop_unit_cycles=tile_cycles,
    )


def _run(
    arch: Arch,
    kernels: tuple[Kernel, ...],
    clock_hz: float,
    planned: FastPlan | None,
    trace: Trace | None,
    event_budget: int,
) -> RunStats:
    """Fast mode when `planned` (its clock-independent part) is given, else exact mode."""
    if planned is not None:
        return run_fast(arch, kernels, clock_hz, event_budget, planned)
    return Engine(arch, clock_hz, trace, event_budget).run(kernels)


def _check_invariants(arch: Arch, algo: str, problem: AnyProblem, stats: RunStats, clock_hz: float) -> None:
    # Cycles and bytes are float sums and products (fast mode extrapolates): allow rounding in the last bits only.
    # Written as `not (x >= bound)` so that NaN fails too.
    slack = 1 - 1e-9
    bound = roofline_cycles(arch, problem, clock_hz)
    if not math.isfinite(stats.cycles):
        raise InternalError(f"{algo} on {arch.name}: {stats.cycles} cycles (the roofline is {bound:.0f})")
    if not stats.cycles >= bound * slack:
        raise InternalError(f"{algo} on {arch.name}: {stats.cycles:.0f} cycles is below the roofline {bound:.0f}")
    if not stats.hbm_read_bytes >= problem.compulsory_read_bytes * slack:
        raise InternalError(
            f"{algo} on {arch.name}: HBM reads {stats.hbm_read_bytes:.0f} B below compulsory "
            f"{problem.compulsory_read_bytes} B"
        )
    if not stats.hbm_write_bytes >= problem.compulsory_write_bytes * slack:
        raise InternalError(
            f"{algo} on {arch.name}: HBM writes {stats.hbm_write_bytes:.0f} B below compulsory "
            f"{problem.compulsory_write_bytes} B"
        )

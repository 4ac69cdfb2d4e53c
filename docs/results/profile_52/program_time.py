"""How much of a fast-mode prediction goes to building the kernels' programs (the algorithms' `Role.program`, which
run as Python): every role's program wrapped with a timer, one prediction after a warm-up, at
`benchmarks.simspeed`'s shapes. Loop bodies built lazily by `Repeat` are not counted (v1's steps). Run from the
repository root: `python docs/results/profile_52/program_time.py > docs/results/profile_52/program_time.txt`."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from typing import Any

import simgpu.api as api
from benchmarks.simspeed import problem_for
from simgpu import load_arch
from simgpu.ops import Op

CASES = (("b200", "standard", "bwd", 16384), ("b200", "standard", "fwd", 16384), ("h200", "v3", "bwd", 131072))
_spent = [0.0, 0]
_schedule = api.schedule


def _timed(program: Callable[[Hashable], Sequence[Op]]) -> Callable[[Hashable], Sequence[Op]]:
    def run(tile: Hashable) -> Sequence[Op]:
        started = time.perf_counter()
        ops = program(tile)
        _spent[0] += time.perf_counter() - started
        _spent[1] += 1
        return ops

    return run


def _timed_schedule(*args: Any, **kwargs: Any) -> tuple[Any, ...]:
    kernels = _schedule(*args, **kwargs)
    return tuple(
        replace(kernel, roles=tuple(replace(role, program=_timed(role.program)) for role in kernel.roles))
        for kernel in kernels
    )


def main() -> None:
    api.schedule = _timed_schedule
    for name, algo, pass_, seqlen in CASES:
        arch, problem = load_arch(name), problem_for(seqlen, pass_)
        api.simulate(arch, algo, problem, mode="fast")
        _spent[:] = [0.0, 0]
        started = time.perf_counter()
        api.simulate(arch, algo, problem, mode="fast")
        total = time.perf_counter() - started
        calls, spent_ms = _spent[1], 1000 * _spent[0]
        print(
            f"{name} {algo} {pass_} {seqlen}: {1000 * total:.1f} ms, {calls} program calls, {spent_ms:.1f} ms in them"
        )


if __name__ == "__main__":
    main()

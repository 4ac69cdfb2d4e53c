"""The ops fast mode simulates per case of simspeed's grid (its representatives' engine runs, summed over the clocks a
prediction runs at), under each of a few settings that a script patches into fast mode's modules: shared by
`cap6/ops.py`, `cap6/ops_rule.py` and `ops_bound/moved.py`, which run on the sources (`SIMGPU_NATIVE=0`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TypeVar

import simgpu.api as api
from benchmarks.simspeed import ALGOS, ARCHS, PASSES, SEQLENS, problem_for
from simgpu import simulate
from simgpu.errors import SimgpuError

Setting = TypeVar("Setting")


def counted_ops(settings: Sequence[Setting], apply: Callable[[Setting], None]) -> list[dict[str, object]]:
    """Per case of the grid (those its algorithm runs on its arch), its arch, algorithm, pass and sequence length and,
    per setting, `ops_{setting}`: the ops one prediction simulates after `apply(setting)`."""
    counted: list[int] = []
    run_fast = api.run_fast

    def counting(*args: object, **kwargs: object) -> object:
        stats = run_fast(*args, **kwargs)  # type: ignore[arg-type]
        counted.append(stats.ops)
        return stats

    api.run_fast = counting  # type: ignore[assignment]
    rows: list[dict[str, object]] = []
    try:
        for arch, algo, pass_ in itertools.product(ARCHS, ALGOS, PASSES):
            for seqlen in SEQLENS:
                row: dict[str, object] = {"arch": arch, "algo": algo, "pass": pass_, "seqlen": seqlen}
                try:
                    for setting in settings:
                        apply(setting)
                        counted.clear()
                        simulate(arch, algo, problem_for(seqlen, pass_), mode="fast")
                        row[f"ops_{setting}"] = sum(counted)
                except SimgpuError:
                    break  # the algorithm does not run on this arch
                rows.append(row)
    finally:
        api.run_fast = run_fast  # type: ignore[assignment]
    return rows

"""Whether a speed change kept exact mode's predictions: records every number of exact-mode results over a grid of
small cases, or compares a recording with the code at hand (the sibling of `benchmarks.fast_equality`).

Per case it records the CLI's result (`Result.to_dict` with per-kernel cycles, busy fractions and every byte count;
the power-limited clock's re-run included), the engine's own statistics of one run at the arch clock (`RunStats`:
busy cycles and amounts of every unit, ops run, tensor activity), and, for the cases marked `trace`, every span of
a Chrome trace of SM 0 (which role's op ran when, on which unit): the order of same-time events shows there.

`python -m benchmarks.exact_equality record FILE [--grid G]` writes JSON lines; `... compare FILE` recomputes each
recorded case and reports the largest relative difference (exit status 1 if any). Record with the code before the
change (a `git worktree` of it, run from its folder), compare with the code after. Grids: `small` (every
algorithm x the archs it runs on x forward/backward x causal x two shapes, 8 SMs and a whole chip: seconds each),
`issue4` (v2 forward on the H200, batch 4, 16 heads, N = 4096, d = 64: the CLI case of issue 4), `all`.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.fast_equality import compare, make_case, record
from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.engine import Engine, RunStats
from simgpu.errors import SimgpuError
from simgpu.trace import Trace

ALGOS_BY_ARCH = (
    ("a100", ("standard", "v1", "v2")),
    ("h100", ("standard", "v1", "v2", "v3")),
    ("h200", ("standard", "v1", "v2", "v3")),
    ("b200", ("standard", "v1", "v2", "v4")),
)
# (arch overrides, problem sizes): several waves on 8 SMs; a whole chip's wave of longer rows at d = 128.
SHAPES: tuple[tuple[dict[str, int], dict[str, int]], ...] = (
    ({"sms": 8}, {"batch": 2, "heads": 2, "seqlen_q": 1024, "headdim": 64}),
    ({}, {"batch": 1, "heads": 8, "seqlen_q": 2048, "headdim": 128}),
)
TRACED_ARCHS = ("h100", "b200")  # the traced cases: every algorithm there, forward and backward, not causal
IGNORED = ("sim_wall_s",)  # wall time, not a prediction


def _small() -> Iterator[dict[str, Any]]:
    for arch, algos in ALGOS_BY_ARCH:
        for algo in algos:
            for pass_ in ("fwd", "bwd"):
                for causal in (False, True):
                    for shape, (overrides, sizes) in enumerate(SHAPES):
                        traced = arch in TRACED_ARCHS and not causal and shape == 0
                        yield make_case(arch, overrides, algo, sizes, pass_, causal) | {"trace": traced}


def _issue4() -> Iterator[dict[str, Any]]:
    problem = {"batch": 4, "heads": 16, "seqlen_q": 4096, "headdim": 64, "pass_": "fwd"}
    yield {"arch": "h200", "overrides": {}, "algo": "v2", "problem": problem, "causal": False, "trace": False}


def cases(grid: str) -> list[dict[str, Any]]:
    grids = {"small": _small, "issue4": _issue4}
    if grid == "all":
        return [case for make in grids.values() for case in make()]
    return list(grids[grid]())


def predict(case: dict[str, Any]) -> dict[str, Any]:
    """The case's exact-mode result, engine statistics and (if asked) trace spans, or the error it raised."""
    arch = load_arch(case["arch"], case["overrides"])
    problem = Problem(**case["problem"], causal=case["causal"])
    trace = Trace() if case["trace"] else None
    try:
        result = simulate(arch, case["algo"], problem, mode="exact", trace=trace)
        stats = Engine(arch).run(schedule(arch, case["algo"], problem, {}))
    except SimgpuError as err:
        return {"error": f"{type(err).__name__}: {err}"}
    recorded: dict[str, Any] = {
        "result": {key: value for key, value in result.to_dict(per_tile=True).items() if key not in IGNORED},
        "stats": _stats_record(stats),
    }
    if trace is not None:
        recorded["spans"] = [dataclasses.astuple(span) for span in result.spans]
    return recorded


def _stats_record(stats: RunStats) -> dict[str, Any]:
    """The run's statistics as `dataclasses.asdict` gives a dataclass (a unit's totals as a dictionary of its three
    numbers): recordings made before `UnitTotals` was a plain class compare with those made after."""
    record = {field.name: getattr(stats, field.name) for field in dataclasses.fields(stats)}
    record["units"] = {
        name: {"busy_cycles": totals.busy_cycles, "instances": totals.instances, "amount": totals.amount}
        for name, totals in stats.units.items()
    }
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("file", type=Path)
    parser.add_argument("--grid", default="all", choices=("small", "issue4", "all"))
    args = parser.parse_args(argv)
    if args.action == "record":
        record(args.file, cases(args.grid), predict)
        return 0
    return compare(args.file, predict, 0.0)


if __name__ == "__main__":
    sys.exit(main())

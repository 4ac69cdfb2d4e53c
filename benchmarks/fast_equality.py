"""Whether a speed change kept fast mode's predictions: records every number of fast-mode results (cycles, each byte
count, busy fractions, per-kernel cycles) over a grid of cases, or compares a recording with the code at hand.

`python -m benchmarks.fast_equality record FILE [--grid G]` writes JSON lines; `... compare FILE` recomputes each
recorded case and reports the largest relative difference (exit status 1 past `TOLERANCE`). Record with the code
before the change (a `git worktree` of it, run from its folder), compare with the code after. Grids: `bench`
(every arch x algorithm x pass x causal at 1k, 4k and 16k tokens per sequence, 16k tokens, 16 heads, d = 128),
`long` (64k and 128k, H100 and B200, forward and backward; v1 at 64k only), `small` (the fast-vs-exact grid of
`experiments.fast_vs_exact`), `v1` (v1's split forward, fewer or more keys than queries), `all`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from simgpu import Problem, load_arch, simulate
from simgpu.errors import SimgpuError
from simgpu.result import Result

ARCHS = ("a100", "h100", "h200", "b200")
ALGOS = ("standard", "v1", "v2", "v3", "v4")
PASSES = ("fwd", "bwd", "fwd_bwd")
TOKENS = 16384
TOLERANCE = 1e-9
IGNORED = ("sim_wall_s",)  # wall time, not a prediction
V1_SEQLEN = 65536  # v1 ran longer sequences for minutes each before the speed work: left out


def dump_record(
    arch: str, overrides: dict[str, Any], algo: str, problem: Problem, options: dict[str, Any], mode: str = "fast"
) -> object:
    """One case of the speed sessions' dumps (docs/results/speed_38/dump_more.py and its successors): the result's
    cycles, per-kernel cycles, HBM bytes and busy fractions, each as its repr (equal reprs: equal floats, bit for
    bit), or the refusal's line where the arch or the prediction raises: a refusal is a result too, both checkouts
    must give it."""
    try:
        result = simulate(load_arch(arch, overrides), algo, problem, options, mode=mode)
    except Exception as error:
        return f"error {type(error).__name__}: {error}"
    return list(result_reprs(result).values())


def result_reprs(result: Result) -> dict[str, object]:
    """The numbers the speed sessions' dumps compare, each as its repr (equal reprs: equal floats, bit for bit): cycles,
    per-kernel cycles, HBM read and write bytes, busy fractions (`dump_record` keeps their values, in this order)."""
    return {
        "cycles": repr(result.cycles),
        "kernel_cycles": [repr(cycles) for cycles in result.kernel_cycles],
        "hbm_read_bytes": repr(result.hbm_read_bytes),
        "hbm_write_bytes": repr(result.hbm_write_bytes),
        "busy": repr(result.busy),
    }


def _bench(archs: tuple[str, ...], passes: tuple[str, ...], seqlens: tuple[int, ...]) -> Iterator[dict[str, Any]]:
    for arch in archs:
        for algo in ALGOS:
            for pass_ in passes:
                for causal in (False, True):
                    for seqlen in seqlens:
                        if algo == "v1" and seqlen > V1_SEQLEN:
                            continue
                        problem = {"batch": max(1, TOKENS // seqlen), "heads": 16, "seqlen_q": seqlen, "headdim": 128}
                        yield {"arch": arch, "overrides": {}, "algo": algo, "problem": problem | {"pass_": pass_}} | {
                            "causal": causal
                        }


def make_case(
    arch: str, overrides: dict[str, Any], algo: str, sizes: dict[str, int], pass_: str, causal: bool
) -> dict[str, Any]:
    """A recorded case: chip, its overrides, algorithm, problem sizes with the pass, causality."""
    return {"arch": arch, "overrides": overrides, "algo": algo, "problem": sizes | {"pass_": pass_}, "causal": causal}


def _small() -> Iterator[dict[str, Any]]:
    from experiments.fast_vs_exact import GRID, SHAPES

    for arch, algo, pass_, causal, shape in GRID:
        overrides, sizes = SHAPES[shape]
        yield make_case(arch, overrides, algo, sizes, pass_, causal)


def _v1_shapes() -> Iterator[dict[str, Any]]:
    # v1's split forward (the v0.2-v1.0 releases) and a causal mask with fewer queries than keys (unseen blocks).
    shapes = ((3, 1536, "fwd"), (5, 512, "fwd"), (1, 512, "fwd"), (1, 512, "bwd"), (1, 2048, "bwd"))
    for splits, seqlen_k, pass_ in shapes:
        for causal in (False, True):
            sizes = {"batch": 1, "heads": 3, "seqlen_q": 1024, "seqlen_k": seqlen_k, "headdim": 64, "pass_": pass_}
            options = {"splits": splits} if splits > 1 else {}
            yield {
                "arch": "a100",
                "overrides": {},
                "algo": "v1",
                "problem": sizes,
                "causal": causal,
                "options": options,
            }


def cases(grid: str) -> list[dict[str, Any]]:
    grids = {
        "bench": lambda: list(_bench(ARCHS, PASSES, (1024, 4096, 16384))),
        "long": lambda: list(_bench(("h100", "b200"), ("fwd", "bwd"), (65536, 131072))),
        "small": lambda: list(_small()),
        "v1": lambda: list(_v1_shapes()),
    }
    if grid == "all":
        return [case for make in grids.values() for case in make()]
    return grids[grid]()


def predict(case: dict[str, Any]) -> dict[str, Any]:
    """The case's fast-mode result as a dict (`Result.to_dict`) without wall time, or the error it raised."""
    arch = load_arch(case["arch"], case["overrides"])
    problem = Problem(**case["problem"], causal=case["causal"])
    try:
        result = simulate(arch, case["algo"], problem, case.get("options"), mode="fast").to_dict()
    except SimgpuError as err:
        return {"error": f"{type(err).__name__}: {err}"}
    return {key: value for key, value in result.items() if key not in IGNORED}


def difference(old: Any, new: Any) -> float:
    """The largest relative difference between two JSON values of one structure (inf where they differ in kind)."""
    if isinstance(old, dict) and isinstance(new, dict):
        if old.keys() != new.keys():
            return float("inf")
        return max((difference(old[key], new[key]) for key in old), default=0.0)
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return float("inf")
        return max((difference(a, b) for a, b in zip(old, new, strict=True)), default=0.0)
    if isinstance(old, float | int) and isinstance(new, float | int) and not isinstance(old, bool):
        if old == new:
            return 0.0
        return abs(old - new) / max(abs(old), abs(new))
    return 0.0 if old == new else float("inf")


def record(path: Path, grid: list[dict[str, Any]], predict: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Write `{"case", "result"}` JSON lines, one per case, with each case's CPU seconds on stderr."""
    with path.open("w", encoding="utf-8") as handle:
        for case in grid:
            started = time.process_time()
            handle.write(json.dumps({"case": case, "result": predict(case)}) + "\n")
            handle.flush()
            print(f"{time.process_time() - started:7.2f} s  {case}", file=sys.stderr)


def compare(
    path: Path,
    predict: Callable[[dict[str, Any]], dict[str, Any]],
    tolerance: float,
    keep: Callable[[dict[str, Any]], bool] = lambda case: True,
) -> int:
    """Recompute each recorded case that `keep` accepts; report the largest relative difference; exit status 1
    past `tolerance`."""
    worst, count = 0.0, 0
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            recorded = json.loads(line)
            if not keep(recorded["case"]):
                continue
            now = json.loads(json.dumps(predict(recorded["case"])))
            gap = difference(recorded["result"], now)
            worst, count = max(worst, gap), count + 1
            if gap > tolerance:
                print(f"DIFFERS by {gap:.3g}: {recorded['case']}", file=sys.stderr)
    print(f"{count} cases, largest relative difference {worst:.3g}")
    return 0 if worst <= tolerance else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("file", type=Path)
    parser.add_argument("--grid", default="all", choices=("bench", "long", "small", "v1", "all"))
    parser.add_argument("--algo", help="compare only this algorithm's cases")
    args = parser.parse_args(argv)
    if args.action == "record":
        record(args.file, cases(args.grid), predict)
        return 0
    return compare(args.file, predict, TOLERANCE, lambda case: args.algo is None or case["algo"] == args.algo)


if __name__ == "__main__":
    sys.exit(main())

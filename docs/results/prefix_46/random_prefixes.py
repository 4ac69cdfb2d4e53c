"""The prefix rules (`simgpu.fast_bytes._head_prefixes`) on random problems: where a rule takes prefixes, do their
bytes come out as the whole head's replay? Cases are `benchmarks.fast_random`'s draws (arch, algorithm, options,
dtype, head dimension, causal, pass, chip cut to 4-33 SMs) with longer sequences (4k-16k, one per batch), 1, 2, 4
or 16 heads and an L2 of 1-16 MiB, so that heads are long against it; the prefixes apply from 8 tiles. Per case:
the rule taken (none, where the head replays whole), and the largest relative difference of the five replayed byte
counts (HBM read, written, timed, L2 read, written) between the prefixes and the whole head. Runs on the sources
(`SIMGPU_NATIVE=0`).

    python docs/results/prefix_46/random_prefixes.py CASES SEED > docs/results/prefix_46/random_prefixes_SEED.txt
"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

import random
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import simgpu.fast_bytes as fast_bytes
from benchmarks.fast_random import draw
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.errors import SimgpuError
from simgpu.fast_plan import plan_kernel

RULES = ("_wave_prefixes", "_resident_prefixes", "_overflow_prefixes")
WHOLE = 10**9
taken: list[str] = []


def _wrap() -> None:
    for name in RULES:
        rule = getattr(fast_bytes, name)

        def wrapped(*args: object, _rule: object = rule, _name: str = name) -> object:
            found = _rule(*args)  # type: ignore[operator]
            if found is not None:
                taken.append(_name[1:])
            return found

        setattr(fast_bytes, name, wrapped)


def one(case: dict[str, Any]) -> tuple[str, str, float]:
    """The case's description, the rule taken and the largest relative byte difference."""
    text = (
        f"{case['arch']} {case['overrides']} {case['algo']} {case['options']} b{case['batch']} h{case['heads']} "
        f"N{case['seqlen_q']} d{case['headdim']} {'causal' if case['causal'] else ''} {case['dtype']} {case['pass_']}"
    )
    try:
        arch = load_arch(case["arch"], case["overrides"])
        problem = Problem(
            case["batch"],
            case["heads"],
            case["seqlen_q"],
            case["headdim"],
            causal=case["causal"],
            dtype=case["dtype"],
            pass_=case["pass_"],
        )
        plans = [plan_kernel(arch, kernel) for kernel in schedule(arch, case["algo"], problem, case["options"])]
        taken.clear()
        _, prefix = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=8)
        if not taken:
            return text, "none", 0.0
        _, whole = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=WHOLE)
    except SimgpuError as err:
        return text, f"skipped ({type(err).__name__})", 0.0
    difference = max(abs(a - b) / max(abs(b), 1.0) for a, b in zip(prefix, whole, strict=True))
    return text, taken[0], float(difference)


def cases(count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    drawn = []
    for _ in range(count):
        case = draw(rng)
        case["overrides"]["l2.capacity_bytes"] = rng.choice((1 << 20, 4 << 20, 16 << 20))
        case["seqlen_q"] = case["seqlen_k"] = rng.choice((4096, 8192, 16384))
        case["batch"] = 1
        case["heads"] = rng.choice((1, 2, 4, 16))
        drawn.append(case)
    return drawn


def main() -> None:
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    _wrap()
    with ProcessPoolExecutor(2, initializer=_wrap) as pool:
        rows = list(pool.map(one, cases(count, seed)))
    rules: Counter[str] = Counter(rule for _, rule, _ in rows)
    worst: dict[str, float] = {}
    for text, rule, difference in rows:
        worst[rule] = max(worst.get(rule, 0.0), difference)
        if difference > 1e-9:
            print(f"DIFFERS {difference:.3g} ({rule}): {text}")
    for rule, number in sorted(rules.items()):
        print(f"{rule}: {number} cases, largest relative byte difference from the whole head {worst[rule]:.3g}")


if __name__ == "__main__":
    main()

"""Do a key's accesses ever differ in size among the tiles the prefix checks read? (`simgpu.fast_bytes`'
`_touch_more_than` counts a key at its largest access, where the distinct-bytes sum it replaced counted its last.)
Every call of the check over the speed benchmark's shapes (all chips, algorithms, passes, causal or not, 16k-128k
tokens) and 300 random problems of `benchmarks.fast_random` (seed 3), the module run from its source
(`SIMGPU_NATIVE=0`: the compiled one calls its own functions directly).
`SIMGPU_NATIVE=0 python docs/results/prefix_checks_50/key_sizes.py > docs/results/prefix_checks_50/key_sizes.txt`"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Hashable, Sequence
from typing import Any

import simgpu.fast_bytes as fast_bytes
from benchmarks.fast_random import case_problem, draw
from simgpu import Problem, load_arch, simulate
from simgpu.errors import SimgpuError

calls = {"checks": 0, "varied": 0}
checked = fast_bytes._touch_more_than


def spied(shapes: Sequence[Any], limit: float) -> bool:
    calls["checks"] += 1
    sizes: dict[Hashable, object] = {}
    for tile in shapes:
        for _, _, key, nbytes in tile.records:
            if sizes.setdefault(key, nbytes) != nbytes:
                calls["varied"] += 1
    return checked(shapes, limit)


def main() -> None:
    fast_bytes._touch_more_than = spied  # type: ignore[assignment]
    for arch in ("a100", "h100", "h200", "b200"):
        for algo in ("standard", "v1", "v2", "v3", "v4"):
            for pass_ in ("fwd", "bwd"):
                for seqlen in (16384, 65536, 131072):
                    for causal in (False, True):
                        with contextlib.suppress(SimgpuError):
                            simulate(
                                arch,
                                algo,
                                Problem(max(1, 16384 // seqlen), 16, seqlen, 128, causal=causal, pass_=pass_),
                            )
    print(f"benchmark shapes: {calls['checks']} checks, accesses of differing size: {calls['varied']}")
    rng = random.Random(3)
    for _ in range(300):
        case = draw(rng)
        with contextlib.suppress(SimgpuError):
            problem = case_problem(case)
            simulate(load_arch(case["arch"], case["overrides"]), case["algo"], problem, case["options"])
    print(f"and 300 random problems: {calls['checks']} checks in all, accesses of differing size: {calls['varied']}")


if __name__ == "__main__":
    main()

"""Random causal forward shapes with fewer keys than queries: exact mode, fast mode with every co-resident CTA
counted whole (the code as kept) and with the weights of `coresident_weights.patch` (apply it first; sources, not
the compiled build: `SIMGPU_NATIVE=0`).

`SIMGPU_NATIVE=0 PYTHONPATH=. python docs/results/coresident_weights_not_kept/sample.py SEED CASES`
"""

from __future__ import annotations

import random
import sys

import numpy as np

import simgpu.fast as fast_module
from simgpu import Problem, load_arch, simulate
from simgpu.errors import SimgpuError

WEIGHTED = {"on": True}
_weights = fast_module._co_resident_weights  # type: ignore[attr-defined]  # the patch's function


def _switchable(vectors: np.ndarray, names: list[str]) -> np.ndarray:
    weights = _weights(vectors, names)
    return weights if WEIGHTED["on"] else np.ones_like(weights)


def main(seed: int, cases: int) -> None:
    fast_module._co_resident_weights = _switchable  # type: ignore[attr-defined]
    rng = random.Random(seed)
    rows = []
    while len(rows) < cases:
        arch = load_arch(rng.choice(["a100", "h100"]), {"sms": rng.choice([8, 16, 32])})
        keys = rng.randint(200, 2048 - 200)
        problem = Problem(rng.randint(2, 4), rng.randint(2, 4), 2048, 128, seqlen_k=keys, causal=True)
        options = {"block_n": rng.choice([32, 64])}
        try:
            exact = simulate(arch, "v2", problem, options, mode="exact").cycles
        except SimgpuError:
            continue
        WEIGHTED["on"] = False
        ones = simulate(arch, "v2", problem, options).cycles / exact - 1
        WEIGHTED["on"] = True
        weighted = simulate(arch, "v2", problem, options).cycles / exact - 1
        rows.append((ones, weighted))
        print(arch.name, arch.sms, problem.batch, problem.heads, keys, options, f"ones {ones:+.3f} w {weighted:+.3f}")
    errors = np.abs(np.array(rows))
    print(len(rows), "mean|err|", errors.mean(0), "within1%", (errors < 0.01).sum(0), "max", errors.max(0))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))

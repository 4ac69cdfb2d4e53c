"""Side check of the twelfth session: the forward's prefix replay (`simgpu.fast_bytes._shared_prefixes`) against a
replay of the whole head at 128k tokens, 16 heads, d = 128, with speed13_regime's `line` (relative differences of HBM
read, HBM write, HBM timed, L2 read, L2 write bytes). Run from the repository root:
`python docs/results/speed13_forward_prefix.py > docs/results/speed13_forward_prefix.txt`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from simgpu import Problem, fast_bytes, load_arch

spec = importlib.util.spec_from_file_location("regime", Path(__file__).with_name("speed13_regime.py"))
assert spec is not None and spec.loader is not None
regime = importlib.util.module_from_spec(spec)
spec.loader.exec_module(regime)

PROBLEM = Problem(1, 16, 131072, 128, pass_="fwd")
for name, algo in (("h100", "v2"), ("h100", "v3"), ("h200", "v3"), ("b200", "v4")):
    print(f"{name} {algo} fwd 128k: {regime.line(load_arch(name), algo, PROBLEM, fast_bytes.HEAD_PREFIX_TILES)}")

"""Device probe: one, two and three warpgroups of our FA3 consumer's softmax at once on one SM.

Our FA3 kernel built without its GEMMs (`v3_ablate_h200.csv`, mask 12) takes 1447-1679 cycles per key tile at
d = 64: its two consumer warpgroups get 10.0-11.4 ex2 per clock out of the SM's 16, where one warpgroup's softmax
alone takes 766 cycles (`v3_pieces_h200.csv`) and the model puts two at ~1200. This runs `softmax_group<WGS>` of
`v3_pieces.cu`: WGS warpgroups of one CTA per SM (on every SM), each looping over the kernel's own softmax and
packing of a 64 x 128 tile with no barrier between them, so what two softmaxes cost each other shows without the
kernel's synchronisation. Each warpgroup count runs in four builds of the softmax (FA3_ABLATE): whole (0), without
the MUFU.EX2 (2), without the row-max pass (32), without both (34). Per build: cycles per iteration of the slowest
warp (median over the SMs) and the ex2 rate per SM that gives. Then `pass_pair<MODE>` splits the softmax's two
passes between warpgroups (whole build): the exp pass alone, the row-max pass alone, one warpgroup of each at once,
two of the exp pass, two of the row max; per mode the cycles per iteration of each warpgroup. Writes
v3_softmax_groups_h200.csv and v3_pass_pair_h200.csv. Run on the GPU
machine from the repository root: `PYTHONPATH=. python3 validation/probes/v3_softmax_groups.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "v3_pieces.cu"
ITERS = 2000
GROUPS = (1, 2, 3)
BUILDS = {0: "whole", 2: "no ex2", 32: "no row max", 34: "no ex2, no row max"}
EX2_PER_ITER = 64 * 128  # one exp per score of a warpgroup's 64 x 128 tile (the row maxes' alphas not counted)
PASS_MODES = {0: ("exp",), 1: ("max",), 2: ("exp", "max"), 3: ("exp", "exp"), 4: ("max", "max")}
SMEM_BYTES = 2048 + 8192 + 16384  # as v3_pieces.py: the kernels share its dynamic shared memory size


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    names = [f"softmax_group<{wgs}>" for wgs in GROUPS]
    scores = cp.random.default_rng(0).standard_normal(4096, dtype=cp.float32) * 4
    cycles = cp.zeros(sms * 16, dtype=cp.int64)
    sink = cp.zeros(256, dtype=cp.float32)
    rows = []
    for mask, build in BUILDS.items():
        module = common.module_with_defines(SOURCE, {"FA3_ABLATE": mask}, names, launch.NVRTC_OPTIONS)
        for wgs, name in zip(GROUPS, names, strict=True):
            kernel = module.get_function(name)
            kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
            for _ in range(2):  # the second run is the one kept (the first warms the clocks and caches)
                cycles.fill(0)
                kernel((sms,), (128 * wgs,), (scores, np.int32(ITERS), cycles, sink), shared_mem=SMEM_BYTES)
                cp.cuda.Device().synchronize()
            per_warp = cycles.get().reshape(sms, 16)[:, : 4 * wgs].astype(np.float64) / ITERS
            per_iter = float(np.median(per_warp.max(axis=1)))
            per_group = [float(np.median(per_warp[:, 4 * g : 4 * g + 4].max(axis=1))) for g in range(wgs)]
            by_group = " ".join(f"{c:.1f}" for c in per_group)
            rows.append({"build": build, "ablate": mask, "warpgroups": wgs, "iters": ITERS,
                         "cycles_per_iter": per_iter, "cycles_per_iter_by_group": by_group,
                         "ex2_per_clk_per_sm": wgs * EX2_PER_ITER / per_iter if not mask & 2 else 0.0})  # fmt: skip
            print(rows[-1], flush=True)
    common.write_rows(out_dir / "v3_softmax_groups_h200.csv", rows)
    pass_names = [f"pass_pair<{mode}>" for mode in PASS_MODES]
    module = common.module_with_defines(SOURCE, {"FA3_ABLATE": 0}, pass_names, launch.NVRTC_OPTIONS)
    pairs = []
    for (mode, roles), name in zip(PASS_MODES.items(), pass_names, strict=True):
        kernel = module.get_function(name)
        for _ in range(2):
            cycles.fill(0)
            kernel((sms,), (128 * len(roles),), (scores, np.int32(ITERS), cycles, sink))
            cp.cuda.Device().synchronize()
        per_warp = cycles.get().reshape(sms, 16)[:, : 4 * len(roles)].astype(np.float64) / ITERS
        for g, role in enumerate(roles):
            pairs.append({"mode": mode, "warpgroups": " + ".join(roles), "warpgroup": g, "pass": role,
                          "cycles_per_iter": float(np.median(per_warp[:, 4 * g : 4 * g + 4].max(axis=1)))})  # fmt: skip
            print(pairs[-1], flush=True)
    common.write_rows(out_dir / "v3_pass_pair_h200.csv", pairs)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()

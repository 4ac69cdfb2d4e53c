"""Device probe: how much of our FA1 forward's re-read traffic the H200's L2 keeps, by Nsight Compute's DRAM bytes.

FA1's loop order (`cupy_kernels/v1/fwd.cu`: one CTA per (batch, head), K/V tiles outside, Q steps inside) writes
each Q block's fp32 working O, l and m to HBM after every key tile and reads them back at the next, and reads the
Q block again. Whether those round trips reach DRAM depends on what the L2 keeps between a write and its re-read:
about one CTA's whole working set later (its O, l, m and Q: ~400 KB at N = 1024, d = 64), times the CTAs resident
at once. FA1's GPT-2 medium figure (4.4 GB of HBM traffic on the A100, `experiments/gpt2_medium.py`) is ~1.6 GB
under the model's count, which its L2 (least recently used, whole tiles) does not retain. This launches the v1
forward once per shape (d = 64, bf16, not causal, the kernel's default tiles), from the GPT-2 medium shape (batch
64, 16 heads, N = 1024: every CTA resident at once, ~400 MB of working sets) down to shapes whose working sets fit
the 60 MiB L2, and records `dram__bytes_read.sum`, `dram__bytes_write.sum` and `lts__t_bytes.sum` per launch
(Nsight Compute flushes the caches before each profiled launch; clocks are left as found).
`python3 validation/probes/v1_l2_bytes.py OUT` runs ncu over this script's `--target` mode and writes
OUT/v1_l2_bytes_h200.csv; with `--ladder` it runs the shapes of LADDER instead (OUT/v1_l2_bytes_ladder_h200.csv).
Run on the GPU machine from the repository root with PYTHONPATH=.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cupy_kernels import common

SHAPES = ((64, 16, 1024), (16, 32, 1024), (8, 16, 1024), (4, 16, 1024), (2, 16, 1024), (1, 16, 4096),
          (4, 32, 4096), (1, 8, 8192))  # (batch, heads, seqlen) at d = 64  # fmt: skip
# `--ladder`: the GPT-2 medium rows' 16 heads at N = 1024 with 80 .. 120 CTAs (~31-47 MB of working sets), between
# the 64 CTAs the L2 keeps and the 128 it does not.
LADDER = ((5, 16, 1024), (6, 16, 1024), (7, 16, 1024), (15, 8, 1024))
HEADDIM = 64
METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum")


def target(shapes: tuple[tuple[int, int, int], ...]) -> None:
    """Launch the v1 forward once per shape (ncu profiles each launch)."""
    from cupy_kernels.common import cp
    from cupy_kernels.v1 import launch

    for batch, heads, seqlen in shapes:
        q, k, v = (common.random_tensor((batch, heads, seqlen, HEADDIM), "bf16", seed) for seed in range(3))
        launch.forward(q, k, v)
        cp.cuda.runtime.deviceSynchronize()
        del q, k, v
        cp.get_default_memory_pool().free_all_blocks()


def main(out_dir: Path, ladder: bool) -> None:
    shapes, mode = (LADDER, "--target-ladder") if ladder else (SHAPES, "--target")
    cmd = ["ncu", "--clock-control", "none", "--kernel-name", "regex:fa1_fwd", "--metrics", ",".join(METRICS),
           "--csv", "--print-units", "base", sys.executable, __file__, mode]  # fmt: skip
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    launches = common.ncu_metrics(result.stdout)
    if result.returncode != 0 or launches is None or len(launches) != len(shapes):
        raise SystemExit(f"ncu failed ({result.returncode}): {result.stdout[-3000:]} {result.stderr[-3000:]}")
    rows = [{"batch": b, "heads": h, "seqlen": n, "headdim": HEADDIM, **{m: measured[m] for m in METRICS}}
            for (b, h, n), measured in zip(shapes, launches, strict=True)]  # fmt: skip
    common.write_rows(out_dir / f"v1_l2_bytes{'_ladder' if ladder else ''}_h200.csv", rows)
    for row in rows:
        print(row, flush=True)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    if sys.argv[1] in ("--target", "--target-ladder"):
        target(LADDER if sys.argv[1] == "--target-ladder" else SHAPES)
    else:
        main(Path(sys.argv[1]), "--ladder" in sys.argv[2:])

"""PyTorch's FlashAttention-2 backward's DRAM bytes on the H200 by Nsight Compute, kernel by kernel, against the v2
schedule's default backward (FA2's own main kernel), exact mode: FA2's sweep shapes at d = 64 and 128, N = 1k and
4k, not causal (`validation/probes/torch_fa2_bwd_ncu.sh`, `validation/h200/torch_fa2_bwd_ncu/`; caches and clocks
left alone, so L2 carries over between the kernels as in the run). The model's bytes are the pass's (its L2 writes a
dirty tile back when it is evicted or at the end of the run, so it has no bytes per kernel). Run:
`python docs/results/torch_fa2_bwd_ncu_vs_model.py`.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from pathlib import Path

from simgpu import Problem, load_arch, simulate

MEASURED = Path("validation/h200/torch_fa2_bwd_ncu")
PARTS = {"dot_do_o": "preprocess", "dq_dk_dv": "main", "convert_dq": "convert"}


def measured(headdim: int, seqlen: int) -> dict[str, dict[str, float]]:
    """Per kernel, Nsight Compute's DRAM read and write bytes and its duration (ns)."""
    text = (MEASURED / f"ncu_d{headdim}_n{seqlen}.csv").read_text()
    kernels: dict[str, dict[str, float]] = defaultdict(dict)
    for row in csv.DictReader(io.StringIO(text[text.index('"ID"') :])):
        part = next(name for key, name in PARTS.items() if key in row["Kernel Name"])
        kernels[part][row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return kernels


def main() -> None:
    arch = load_arch("h200")
    for headdim in (64, 128):
        for seqlen in (1024, 4096):
            kernels = measured(headdim, seqlen)
            read = sum(k["dram__bytes_read.sum"] for k in kernels.values())
            write = sum(k["dram__bytes_write.sum"] for k in kernels.values())
            problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim, pass_="bwd")
            result = simulate(arch, "v2", problem, mode="exact")
            per_kernel = "; ".join(
                f"{part} {k['dram__bytes_read.sum'] / 1e6:.0f} / {k['dram__bytes_write.sum'] / 1e6:.0f}"
                for part, k in kernels.items()
            )
            print(
                f"d={headdim} N={seqlen}: measured read / write MB {read / 1e6:.0f} / {write / 1e6:.0f} "
                f"({per_kernel}); "
                f"model {result.hbm_read_bytes / 1e6:.0f} / {result.hbm_write_bytes / 1e6:.0f} "
                f"({result.hbm_read_bytes / read - 1:+.3f} / {result.hbm_write_bytes / write - 1:+.3f})"
            )


if __name__ == "__main__":
    main()

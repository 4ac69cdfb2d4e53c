"""Device probe: what the first TMA copies of a CTA cost, and which part of it is the tensor map, the page, or
the proxy fence.

Our FA3 kernel's CTAs wait ~1960 cycles (d=128, two boxes) for their Q tile where a warm 16 KiB box from HBM
takes ~1000-1300 (`tma_boxes_h200.csv`, serial); `tma_boxes` saw the first box take 2011-2165. `tma_cold.cu`: one
thread per CTA copies five 16 KiB boxes one after the other, each from a chosen tensor map (A, or B: a second map of
the same tensor) and region (its own head, or a head 2 MiB away), and stamps the copy instruction's issue and the
data's arrival. L2 is flushed before each run, so every box comes from HBM: by a fill (`common.L2Flusher`, as
every timing of ours: L2 left full of dirty lines) or by a read (L2 left clean). Launches: one CTA (an idle GPU), and
two CTAs per SM with a shared-memory footprint that fits one at a time (the second CTA on an SM shows what a
later CTA of a kernel pays). With and without `fence.proxy.tensormap` (fwd.cu's producer fences its maps).
Writes tma_cold_h200.csv (every CTA of every run) and tma_cold_summary_h200.csv (medians). Run on the GPU machine
from the repository root: `PYTHONPATH=. python3 validation/probes/tma_cold.py OUT`.
"""

from __future__ import annotations

import itertools
import sys
from collections import defaultdict
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "tma_cold.cu"
COPIES = ("first", "same_map_same_page", "same_map_new_page", "new_map_same_page", "both_used")
STRIDE_HEADS = 64  # 4 MiB between CTAs' heads (64 KiB each): no CTA touches another's pages
FAR_HEADS = 32  # 2 MiB from the CTA's own head
ROWS = 512
RUNS = 5


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    module = cp.RawModule(code=common.load_source(SOURCE), options=launch.NVRTC_OPTIONS)
    kernel = module.get_function("tma_cold")
    # One CTA per SM at a time: more than half of the 227 KiB an SM gives a CTA.
    smem = 160 * 1024
    kernel.max_dynamic_shared_size_bytes = smem
    heads = 2 * sms * STRIDE_HEADS + FAR_HEADS + 1
    shape = (1, heads, ROWS, 64)
    data = common.random_tensor(shape, "bf16", 0)
    one_map = launch.encode_tensor_map(data.data.ptr, shape, 128)
    maps = cp.asarray(np.frombuffer(one_map + one_map, dtype=np.uint8))
    fields = 2 + 3 * len(COPIES)
    flushers = {"write": common.L2Flusher(), "read": common.L2Flusher(clean=True)}
    rows: list[dict[str, object]] = []
    for (flush_name, flush), ctas in itertools.product(flushers.items(), (1, 2 * sms)):
        stamps = cp.zeros(ctas * fields, dtype=cp.int64)
        for fence in (1, 0):
            for run in range(RUNS):
                flush()
                kernel((ctas,), (32,), (maps, np.int32(STRIDE_HEADS), np.int32(FAR_HEADS), np.int32(fence), stamps),
                       shared_mem=smem)  # fmt: skip
                per_cta = stamps.get().reshape(ctas, fields)
                order = np.lexsort((per_cta[:, 1], per_cta[:, 0]))  # by SM, then entry: rank on its SM
                rank: dict[int, int] = {}
                for cta in order:
                    sm = int(per_cta[cta, 0])
                    on_sm = rank.get(sm, 0)
                    rank[sm] = on_sm + 1
                    for i, copy in enumerate(COPIES):
                        before, after, done = per_cta[cta, 2 + 3 * i : 5 + 3 * i]
                        rows.append({
                            "flush": flush_name, "ctas": ctas, "fence": fence, "run": run, "cta": int(cta), "sm": sm,
                            "cta_on_sm": on_sm, "copy": copy, "entry_to_issue_cycles": int(before - per_cta[cta, 1]),
                            "issue_cycles": int(after - before), "latency_cycles": int(done - after),
                        })  # fmt: skip
    common.write_rows(out_dir / "tma_cold_h200.csv", rows)
    groups: dict[tuple[object, ...], list[dict[str, object]]] = defaultdict(list)
    for row in rows:
        groups[(row["flush"], row["ctas"], row["fence"], row["cta_on_sm"], row["copy"])].append(row)
    summary = []
    for (flush_name, ctas, fence, on_sm, copy), members in groups.items():
        summary.append({
            "flush": flush_name, "ctas": ctas, "fence": fence, "cta_on_sm": on_sm, "copy": copy,
            "samples": len(members),
            **{f"{key}_median": float(np.median([float(m[key]) for m in members]))  # type: ignore[arg-type]
               for key in ("entry_to_issue_cycles", "issue_cycles", "latency_cycles")},
            "latency_p90": float(np.percentile([float(m["latency_cycles"]) for m in members], 90)),  # type: ignore[arg-type]
        })  # fmt: skip
        print(summary[-1], flush=True)
    common.write_rows(out_dir / "tma_cold_summary_h200.csv", summary)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()

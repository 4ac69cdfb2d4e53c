"""Device probe: what the prologue of our FA3 forward costs each CTA, step by step, and the gap between CTAs of
its size on one SM.

The per-CTA timeline (`v3_cta_timeline_summary_h200.csv`) shows the producer issuing Q 476-520 cycles after the
CTA's entry and ~500 cycles between one CTA's last store and the next CTA's entry; the model had neither.
`cta_prologue.cu` runs fwd.cu's prologue alone (384 threads, one CTA per SM, three waves) with a clock64() stamp
after each step, with and without `setmaxnreg`: barrier init and fence, `__syncthreads`, `setmaxnreg`, the
tensor-map fences, the Q copy's issue and its data (two 16 KiB boxes from HBM, L2 flushed by a fill as in every
timing of ours). Writes cta_prologue_h200.csv (every CTA of every run) and cta_prologue_summary_h200.csv
(medians by wave). Run on the GPU machine from the repository root:
`PYTHONPATH=. python3 validation/probes/cta_prologue.py OUT`.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "cta_prologue.cu"
FIELDS = ("sm", "entry", "barriers", "sync", "producer_regs", "maps", "q_issued",
          "consumer_entry", "consumer_sync", "consumer_regs", "q_ready", "exit")  # fmt: skip
# Each step: (name, from field, to field).
STEPS = (
    ("barrier_init", "entry", "barriers"),
    ("syncthreads", "barriers", "sync"),
    ("setmaxnreg_dec", "sync", "producer_regs"),
    ("tensormap_fences", "producer_regs", "maps"),
    ("q_copy_issue", "maps", "q_issued"),
    ("entry_to_q_issued", "entry", "q_issued"),
    ("q_latency", "q_issued", "q_ready"),
    ("consumer_entry_after_thread0", "entry", "consumer_entry"),
    ("setmaxnreg_inc", "consumer_sync", "consumer_regs"),
)
WAVES = 3
RUNS = 5
SMEM_BYTES = 160 * 1024  # more than half an SM's 227 KiB: one CTA per SM, as fwd.cu at d=128


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    module = cp.RawModule(code=common.load_source(SOURCE), options=launch.NVRTC_OPTIONS)
    ctas = WAVES * sms
    shape = (1, ctas, 128, 128)
    data = common.random_tensor(shape, "bf16", 0)
    one_map = launch.encode_tensor_map(data.data.ptr, shape, 128)
    maps = cp.asarray(np.frombuffer(one_map * 3, dtype=np.uint8))
    stamps = cp.zeros(ctas * len(FIELDS), dtype=cp.int64)
    flush = common.L2Flusher()
    rows: list[dict[str, object]] = []
    for variant in ("regs", "plain"):
        kernel = module.get_function(f"cta_prologue_{variant}")
        kernel.max_dynamic_shared_size_bytes = SMEM_BYTES
        for run in range(RUNS):
            flush()
            kernel((ctas,), (launch.WARPS * 32,), (maps, stamps), shared_mem=SMEM_BYTES)
            per_cta = stamps.get().reshape(ctas, len(FIELDS))
            last_exit: dict[int, int] = {}
            rank: dict[int, int] = {}
            for cta in np.lexsort((per_cta[:, 1], per_cta[:, 0])):  # by SM, then entry
                stamp = dict(zip(FIELDS, (int(x) for x in per_cta[cta]), strict=True))
                sm = stamp["sm"]
                row: dict[str, object] = {"setmaxnreg": variant == "regs", "run": run, "cta": int(cta), "sm": sm,
                                          "cta_on_sm": rank.get(sm, 0)}  # fmt: skip
                row.update({name: stamp[end] - stamp[start] for name, start, end in STEPS})
                row["gap_from_previous_cta"] = stamp["entry"] - last_exit[sm] if sm in last_exit else ""
                rows.append(row)
                rank[sm] = rank.get(sm, 0) + 1
                last_exit[sm] = stamp["exit"]
    common.write_rows(out_dir / "cta_prologue_h200.csv", rows)
    groups: dict[tuple[object, bool], list[dict[str, object]]] = defaultdict(list)
    for row in rows:
        groups[(row["setmaxnreg"], row["cta_on_sm"] != 0)].append(row)
    summary = []
    for (regs, later), members in groups.items():
        entry: dict[str, object] = {"setmaxnreg": regs, "ctas": "later" if later else "first", "samples": len(members)}
        for name in [step[0] for step in STEPS] + ["gap_from_previous_cta"]:
            values = [float(m[name]) for m in members if m[name] != ""]  # type: ignore[arg-type]
            entry[name] = float(np.median(values)) if values else ""
        summary.append(entry)
        print(entry, flush=True)
    common.write_rows(out_dir / "cta_prologue_summary_h200.csv", summary)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()

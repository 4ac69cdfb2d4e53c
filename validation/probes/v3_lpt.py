"""Device probe: what launching a causal grid's longest Q tiles first buys our FA3 forward kernel on the H200.

FA4's paper reports 4-8% more FLOP/s from longest-processing-time-first order for causal MHA at d = 128, measured
on an H200. Our kernel (`cupy_kernels/v3/fwd.cu`, one CTA per Q tile, not persistent) launches a causal grid's Q
tiles longest first; compiled with FA3_CAUSAL_INDEX_ORDER it launches them in index order (shortest first), the
order a grid without any scheduling has. Both are timed (CUDA events, L2 flushed, the clock counted beside them) on
the validation sweep's shapes: 16k tokens (batch = 16384 / seqlen), H = 2048 / d, seqlen 1k..16k, d = 64 and 128,
bf16, causal, ping-pong and intra-warpgroup overlap on. The order changes which CTA computes a tile, not what it
computes: both builds' O and LSE must be bit-identical (column `identical`). Writes v3_lpt_h200.csv. Run on the GPU
machine from the repository root: `PYTHONPATH=. python3 validation/probes/v3_lpt.py OUT`.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import cupy as cp

from cupy_kernels import common
from cupy_kernels.v3 import launch

SEQLENS = (1024, 2048, 4096, 8192, 16384)
TOKENS = 16384
ORDERS = {"longest first": {}, "index order": {"FA3_CAUSAL_INDEX_ORDER": ""}}


def main() -> None:
    out_dir = Path(sys.argv[1])
    names = [launch.kernel_name(d, launch.fwd_config(d), True, True, True) for d in common.SUPPORTED_HEADDIMS]
    modules = {order: common.module_with_defines(launch.SOURCE, defines, names, launch.NVRTC_OPTIONS)
               for order, defines in ORDERS.items()}  # fmt: skip
    flush, trace = common.L2Flusher(), common.ClockTrace()
    rows = []
    for d, name in zip(common.SUPPORTED_HEADDIMS, names, strict=True):
        for seqlen in SEQLENS:
            shape = (TOKENS // seqlen, 2048 // d, seqlen, d)
            q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in range(3))
            flops = common.attention_flops(*shape, True, "fwd")
            outputs = {}
            for order, module in modules.items():
                launch._functions[name] = module.get_function(name)
                launch._functions[name].max_dynamic_shared_size_bytes = launch.smem_bytes(d, launch.fwd_config(d))
                out = outputs[order] = (cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32))
                common.poison(*out)
                run = functools.partial(launch.forward, q, k, v, True, out=out)
                timing = common.time_gpu(run, flush=flush, clock=trace)
                ms = timing.median_ms
                rows.append({"headdim": d, "seqlen": seqlen, "batch": shape[0], "heads": shape[1], "order": order,
                             "ms": ms, "ms_p10": timing.p10_ms, "ms_p90": timing.p90_ms,
                             "clock_mhz": timing.probe_clock_mhz, "tflops": flops / (ms * 1e9)})  # fmt: skip
            (o1, lse1), (o2, lse2) = outputs.values()
            identical = bool(cp.array_equal(o1, o2)) and bool(cp.array_equal(lse1, lse2))
            for row in rows[-len(ORDERS) :]:
                row["identical"] = identical
                print(row, flush=True)
            launch._functions.pop(name)
    common.write_rows(out_dir / "v3_lpt_h200.csv", rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()

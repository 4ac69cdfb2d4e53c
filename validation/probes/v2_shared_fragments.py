"""Device probe: our FA2 forward at d = 128 in three builds: `per_group_plain` (`FA2_SHARED_FRAGMENTS=0`,
`FA2_PV_AHEAD=0`: each of a warp's two m16 groups re-reads the K/V fragments from shared memory, 144 ldmatrix per
warp per key tile, and each V fragment of O += P V is loaded just before its mmas; the kernel until the sixteenth
session), `shared_plain` (the groups share the fragments: 80 ldmatrix and about 70 bytes per thread spilled, as
PyTorch's FA2 does: `validation/h200/torch_fa2_mix_h200.csv`) and `shared_ahead` (the default: also the V fragments
loaded a step ahead), beside PyTorch's FA2 itself, on FA2's sweep (16k tokens, 16 heads, seqlen 512..16k, causal
and not, bf16). Each timed with CUDA events (median of `REPEATS` after `WARMUP`), the SM clock counted beside the
timed calls (`cupy_kernels.common.ClockTrace`); each build's output compared bit for bit with the first's. Run on
the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/v2_shared_fragments.py OUT_DIR`
(writes `v2_shared_fragments_h200.csv`).
"""

from __future__ import annotations

import functools
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import cupy as cp
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention

from cupy_kernels import common
from cupy_kernels.v2 import launch

TOKENS, HEADS, HEADDIM = 16384, 16, 128
# build: (FA2_SHARED_FRAGMENTS, FA2_PV_AHEAD); the kernel until the sixteenth session, then its two changes
BUILDS = {"per_group_plain": (0, 0), "shared_plain": (1, 0), "shared_ahead": (1, 1)}
WARMUP, REPEATS = 5, 30


def timed(call: Callable[[], object]) -> tuple[float, float]:
    """Median milliseconds of `call` and the SM clock counted inside the timed calls (MHz)."""
    for _ in range(WARMUP):
        call()
    cp.cuda.Device().synchronize()
    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(REPEATS)]
    trace = common.ClockTrace()
    trace.start()
    for begin, end in events:
        trace.mark(end=False)
        begin.record()
        call()
        end.record()
        trace.mark(end=True)
    cp.cuda.Device().synchronize()
    counted = trace.stop()
    return statistics.median(cp.cuda.get_elapsed_time(b, e) for b, e in events), counted


def main() -> None:
    out = Path(sys.argv[1])
    rows = []
    for causal in (False, True):
        config = launch.fwd_config(HEADDIM)
        name = launch.fwd_name(HEADDIM, config, causal, True)
        smem = launch.fwd_smem_bytes(HEADDIM, config)
        kernels = {}
        for build, (shared, ahead) in BUILDS.items():
            defines = {"FA2_SHARED_FRAGMENTS": shared, "FA2_PV_AHEAD": ahead}
            kernels[build] = common.module_with_defines(launch.FWD_SOURCE, defines, [name]).get_function(name)
            kernels[build].max_dynamic_shared_size_bytes = smem
        for seqlen in (512, 1024, 2048, 4096, 8192, 16384):
            batch = TOKENS // seqlen
            shape = (batch, HEADS, seqlen, HEADDIM)
            q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in range(3))
            outputs = {build: (cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32)) for build in BUILDS}
            grid = ((seqlen + config.block_m - 1) // config.block_m, batch * HEADS)
            scale = cp.float32(common.default_scale(HEADDIM, None))

            threads = (config.warps * 32,)
            results = {}
            for build, kernel in kernels.items():
                o, lse = outputs[build]
                args = (q, k, v, o, lse, cp.int32(seqlen), scale)
                results[build] = timed(functools.partial(kernel, grid, threads, args, shared_mem=smem))
            first = outputs["per_group_plain"][0].view(cp.uint16)
            differing = {build: int(cp.count_nonzero(outputs[build][0].view(cp.uint16) != first)) for build in BUILDS}
            tq, tk, tv = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                fa2 = timed(functools.partial(scaled_dot_product_attention, tq, tk, tv, is_causal=causal))
            flops = 4.0 * batch * HEADS * seqlen * seqlen * HEADDIM * (0.5 if causal else 1.0)
            results["torch_fa2"] = fa2
            for build, (ms, mhz) in results.items():
                rows.append({"gpu": torch.cuda.get_device_name(), "build": build, "batch": batch, "heads": HEADS,
                             "seqlen": seqlen, "headdim": HEADDIM, "causal": causal, "median_ms": ms,
                             "tflops": flops / (ms * 1e-3) / 1e12, "sm_clock_mhz_counted": mhz,
                             "outputs_differing": differing.get(build, "")})  # fmt: skip
            times = ", ".join(f"{build} {ms:.3f} ms at {mhz:.0f} MHz" for build, (ms, mhz) in results.items())
            print(f"causal={causal!s:5} N={seqlen:5}: {times}; outputs differing {differing}", flush=True)
    common.write_rows(out / "v2_shared_fragments_h200.csv", rows)


if __name__ == "__main__":
    main()

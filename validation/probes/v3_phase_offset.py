"""Device probe: do our FA3 kernel's two consumers, without ping-pong, keep the phase they start with?

`cupy_kernels/v3/fwd.cu` compiled with FA3_CONSUMER1_DELAY = 0, 256, 512, 1024, 1536, 2048: consumer 1 spins that
many cycles after Q is ready, so each CTA's consumers start out of step by it. Without ping-pong nothing else sets
their relative phase: if the period per key tile follows the delay, the phase they start with persists (and the
simulator's question is only where they start); if it does not, the chip pulls them to one phase. Timed (CUDA events,
L2 flushed, the clock counted beside it) at d = 64 and 128, intra-warpgroup overlap on and off, ping-pong off (and
on, as a control the delay must not change), bf16, not causal, 16k tokens (B = 16384 / N, H = 2048 / d) at N = 2048
and 8192: every N launches the same CTAs, so the difference of a wave's cycles over the difference of key tiles is
the period per key tile, free of the fixed cost per CTA (which the delay itself adds to). Writes
v3_phase_offset_h200.csv (one row per build, variant and N) and prints the periods. Run on the GPU machine from the
repository root: `PYTHONPATH=. python3 validation/probes/v3_phase_offset.py OUT`.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import cupy as cp

from cupy_kernels import common
from cupy_kernels.v3 import launch

DELAYS = (0, 256, 512, 1024, 1536, 2048)
VARIANTS = [(pingpong, overlap) for pingpong in (False, True) for overlap in (True, False)]
SEQLENS = (2048, 8192)
TOKENS, HIDDEN = 16384, 2048


def main() -> None:
    out_dir = Path(sys.argv[1])
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    flush, trace = common.L2Flusher(), common.ClockTrace()
    modules = launch.probe_modules("FA3_CONSUMER1_DELAY", DELAYS)
    rows = []
    for d in common.SUPPORTED_HEADDIMS:
        config = launch.fwd_config(d)
        heads = HIDDEN // d
        ctas = TOKENS // config.block_m * heads
        waves = -(-ctas // sms)
        for n in SEQLENS:
            shape = (TOKENS // n, heads, n, d)
            q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in range(3))
            out = (cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32))
            for pp, ov in VARIANTS:
                name = launch.kernel_name(d, config, False, pp, ov)
                reference = None
                for delay in DELAYS:
                    launch._functions[name] = modules[delay].get_function(name)
                    launch._functions[name].max_dynamic_shared_size_bytes = launch.smem_bytes(d, config)
                    run = functools.partial(launch.forward, q, k, v, False, pingpong=pp, intra_wg_overlap=ov, out=out)
                    timing = common.time_gpu(run, flush=flush, clock=trace)
                    # The delay must not change the result: every CTA computes in the same order.
                    result = out[0].view(cp.uint16).copy()
                    reference = result if reference is None else reference
                    identical = bool(cp.array_equal(result, reference))
                    wave_cycles = timing.median_ms * 1e-3 * timing.probe_clock_mhz * 1e6 / waves
                    rows.append({"headdim": d, "seqlen": n, "pingpong": pp, "intra_wg_overlap": ov, "delay": delay,
                                 "ms": timing.median_ms, "clock_mhz": timing.probe_clock_mhz,
                                 "wave_cycles": wave_cycles, "key_tiles_per_cta": n // config.block_n,
                                 "output_identical_to_delay_0": identical})  # fmt: skip
                    print(rows[-1], flush=True)
                launch._functions.pop(name)
    common.write_rows(out_dir / "v3_phase_offset_h200.csv", rows)
    for d in common.SUPPORTED_HEADDIMS:
        for pp, ov in VARIANTS:
            for delay in DELAYS:
                short, long = (
                    next(r for r in rows if (r["headdim"], r["seqlen"], r["pingpong"], r["intra_wg_overlap"],
                                             r["delay"]) == (d, n, pp, ov, delay))
                    for n in SEQLENS
                )  # fmt: skip
                period = (long["wave_cycles"] - short["wave_cycles"]) / (
                    long["key_tiles_per_cta"] - short["key_tiles_per_cta"]
                )
                print(f"d={d} pingpong={pp} intra_wg_overlap={ov} delay={delay}: period {period:.0f} cycles/key tile")
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()

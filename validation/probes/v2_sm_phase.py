"""Device probe: do the two CTAs that share an SM run our FA2 forward in step, or apart?

`cupy_kernels/v2/fwd.cu` compiled with FA2_SM_PHASE: thread 0 of each of the first `CTAS` CTAs writes its SM's id
and clock64() at the top of each of its first `SLOTS` key tiles. Shape: B=4, H=2048/d, N=4096, bf16, not causal,
d = 64 and 128, two CTAs per SM (the kernel's occupancy); traced as built ("traced") and with the second CTA on
each SM of the first wave held back DELAY_CYCLES before its loop ("delayed", in every run). Times the plain build and
both traced ones (CUDA events, L2 flushed, the clock counted beside them). Writes v2_sm_phase_h200.csv (per traced
CTA of each traced build's last run: its SM and its loop tops in SM cycles) and v2_sm_phase_summary_h200.csv (the
times); `docs/results/v2_sm_phase_vs_model.py` reads them. Why: with two CTAs per SM the model hides one CTA's K/V
copies behind the other's work, where on the H200 they cost the SM as much as with one
(`docs/results/v2_ablation.csv`); CTAs that run in step would do their copies at once; CTAs started apart that stay
apart and run faster would say the phase is set by the start, not by the units.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/v2_sm_phase.py OUT`.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import cupy as cp

from cupy_kernels import common
from cupy_kernels.v2 import launch

CTAS, SLOTS = 1024, 32
DELAY_CYCLES = 3000  # about half a key tile of one CTA at two CTAs per SM (~6000 SM cycles per tile at d = 64, 128)
BATCH, SEQLEN = 4, 4096


def main() -> None:
    out = Path(sys.argv[1])
    flush, trace = common.L2Flusher(), common.ClockTrace()
    rows, summary = [], []
    for d in common.SUPPORTED_HEADDIMS:
        config = launch.fwd_config(d)
        name = launch.fwd_name(d, config, False, True)
        smem = launch.fwd_smem_bytes(d, config)
        grid, args = launch.random_forward_launch(BATCH, 2048 // d, SEQLEN, d, config)
        times = {}
        for build, delay in (("plain", None), ("traced", 0), ("delayed", DELAY_CYCLES)):
            defines = {} if delay is None else {"FA2_SM_PHASE": "", "FA2_SM_PHASE_CTAS": CTAS,
                                                "FA2_SM_PHASE_SLOTS": SLOTS, "FA2_SM_PHASE_DELAY": delay}  # fmt: skip
            module = common.module_with_defines(launch.FWD_SOURCE, defines, [name])
            kernel = module.get_function(name)
            kernel.max_dynamic_shared_size_bytes = smem
            call = functools.partial(kernel, grid, (config.warps * 32,), args, shared_mem=smem)
            if delay is None:
                times[build] = common.time_gpu(call, flush=flush, clock=trace)
                continue
            # Before each run the arrival counts restart at zero, so every run holds back the first wave's second
            # CTAs; the last run's stamps stay.
            stamps = cp.ndarray((CTAS, SLOTS + 1), cp.int64, module.get_global("fa2_sm_phase"))
            arrivals = cp.ndarray((1024,), cp.int32, module.get_global("fa2_sm_arrivals"))
            times[build] = common.time_gpu(call, before=functools.partial(arrivals.fill, 0), flush=flush, clock=trace)
            raw = stamps.get()
            for cta in range(CTAS):
                if raw[cta, 0]:
                    tops = {f"top_{j}": int(raw[cta, j]) for j in range(SLOTS)}
                    rows.append({"headdim": d, "build": build, "delay_cycles": delay, "cta": cta,
                                 "sm": int(raw[cta, SLOTS]), **tops})  # fmt: skip
        summary.append({"headdim": d, **{f"{b}_ms": t.median_ms for b, t in times.items()},
                        **{f"{b}_clock_mhz": t.probe_clock_mhz for b, t in times.items()}})  # fmt: skip
        print(summary[-1], flush=True)
    common.write_rows(out / "v2_sm_phase_h200.csv", rows)
    common.write_rows(out / "v2_sm_phase_summary_h200.csv", summary)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()

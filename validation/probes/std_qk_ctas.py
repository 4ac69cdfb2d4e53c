"""Device probe: do the CTAs that share an SM end together or one after another? Our standard-attention QK^T kernel
(`std_qk` in `cupy_kernels/standard/attention.cu`, d = 128, 128 x 128 tiles, 4 warps: three CTAs per SM on the H200)
compiled with STD_CTA_TRACE writes each CTA's SM id and clock64() at its entry and once its stores are issued.

Why: simgpu's exact mode serves an SM's units first come, first served, so the CTAs that start an SM together end
one after another (the model's QK^T at 48 tiles on 16 SMs: 11,750 and 15,850 cycles after their start), and a later
tile takes the first slot that frees; fast mode ends them together (`docs/results/slot_stagger_not_kept.txt`). This
measures which the chip does. Shapes: batch 1, N = 1024, 3, 9 and 15 heads (192, 576 and 960 tiles: under a wave,
1.45 and 2.42 waves of the 396 slots), bf16, not causal, L2 flushed before each of `REPEATS` runs.

Writes std_qk_ctas_h200.csv.gz (one row per CTA and run: shape, run, CTA in launch order, SM, entry and exit in SM
cycles) and std_qk_ctas_summary_h200.csv: per shape, medians over the SMs of the CTAs that start the SM together
(entries within `common.TOGETHER_CYCLES` of its first), their exits' spread as a share of the round (0: together),
and the cycles from the first of them to end to the SM's next CTA's entry (`common.co_resident_ctas`); and
std_qk_ctas_gpu_h200.csv, the GPU's name, clocks and driver.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/std_qk_ctas.py OUT`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cupy_kernels import common
from cupy_kernels.common import cp
from cupy_kernels.standard import launch

HEADDIM, SEQLEN = 128, 1024
HEADS = (3, 9, 15)
TRACE_CTAS = 4096
REPEATS = 3


def main() -> None:
    out_dir = Path(sys.argv[1])
    config = launch.fwd_config(HEADDIM)
    name = launch.kernel_names(HEADDIM, config, False, True)[0]
    defines = {"STD_CTA_TRACE": "", "STD_TRACE_CTAS": TRACE_CTAS}
    module = common.module_with_defines(launch.SOURCE, defines, [name])
    kernel = module.get_function(name)
    smem = launch.qk_smem_bytes(HEADDIM, config)
    kernel.max_dynamic_shared_size_bytes = smem
    stamps = cp.ndarray((TRACE_CTAS, 3), cp.int64, module.get_global("std_cta_trace"))
    flush = common.L2Flusher()
    raw: list[dict[str, object]] = []
    summary: list[dict[str, object]] = []
    for heads in HEADS:
        shape = (1, heads, SEQLEN, HEADDIM)
        q, k = (common.random_tensor(shape, "bf16", seed) for seed in range(2))
        s = cp.empty((1, heads, SEQLEN, launch.padded_seqlen(SEQLEN)), dtype=q.dtype)
        blocks = (SEQLEN // config.block_n, SEQLEN // config.block_m, heads)
        ctas = blocks[0] * blocks[1] * blocks[2]
        args = (q, k, s, cp.int32(SEQLEN), cp.int32(s.shape[-1]), cp.float32(HEADDIM**-0.5))
        kernel(blocks, (config.warps * 32,), args, shared_mem=smem)  # warm-up
        rows: list[dict[str, int]] = []
        for run in range(REPEATS):
            stamps.fill(0)
            flush()
            kernel(blocks, (config.warps * 32,), args, shared_mem=smem)
            cp.cuda.Stream.null.synchronize()
            got = stamps.get()
            run_rows = [
                {"cta": cta, "sm": int(got[cta, 0]), "entry": int(got[cta, 1]), "exit": int(got[cta, 2])}
                for cta in range(ctas)
            ]
            raw += [{"heads": heads, "run": run, **row} for row in run_rows]
            summary.append({"heads": heads, "ctas": ctas, "run": run, **common.co_resident_ctas(run_rows)})
            print(summary[-1], flush=True)
            rows += run_rows
    common.write_rows(out_dir / "std_qk_ctas_h200.csv.gz", raw)
    common.write_rows(out_dir / "std_qk_ctas_summary_h200.csv", summary)
    print("gpu:", common.write_gpu_facts(out_dir / "std_qk_ctas_gpu_h200.csv"))


if __name__ == "__main__":
    main()

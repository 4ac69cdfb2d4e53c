"""Device probe: each of our standard-attention forward's three kernels timed alone (`std_qk`, `std_softmax`,
`std_pv` in `cupy_kernels/standard/attention.cu`), at the validation's 24 shapes (d = 64 with 32 heads, d = 128 with
16, 16k tokens: batch 16384 / N, N = 512 .. 16384, causal and not, bf16).

Why: `simgpu validate` compares the three kernels' sum, and the model is 3-16% fast on all 24 rows
(`validation/h200/validation_2026-12-03f/`); a kernel's own time says which of its units the model gets wrong (the
QK^T writes S from fragments, the softmax streams S and P, the PV reads P).

Each kernel is timed with CUDA events (`common.time_gpu`: median of runs, L2 flushed before each, the SM clock
counted beside them), on the outputs of the kernels before it. Writes std_kernels_h200.csv (one row per shape and
kernel: ms, p10, p90, runs, counted MHz) and std_kernels_gpu_h200.csv (the GPU's name, clocks, driver); then
Nsight Compute's view of each kernel at `NCU_SHAPES` (DRAM and L2 bytes, the DRAM's and L2's and the SMs' share of
their peak, warps active, global store requests): std_kernels_ncu_h200.csv.
Run on the GPU machine from the repository root: `PYTHONPATH=. python3 validation/probes/std_kernels.py OUT`
(runs ncu on itself).

`... std_kernels.py --mix-target`: the three kernels at `MIX_SHAPES`, causal and not, once each: the target of
`std_kernels_mix.sh` (Nsight Compute's instructions per pipe).

`... std_kernels.py --pv-variants OUT`: the PV kernel alone (not causal) in the launch configurations of
`PV_VARIANTS` (more CTA warps, more ring stages, shorter k steps) at `PV_SHAPES`, each checked against the default
configuration's O: std_pv_variants_h200.csv. Which of them speeds it up tells what bounds it: the ring's loads in
flight (stages), one warp per scheduler (warps).

`... std_kernels.py --pv-ablate OUT`: the PV kernel built with parts of its k loop taken out (`STD_PV_ABLATE` in
attention.cu: 1 no loads after the first stages, 2 no ldmatrix or mma.sync, 3 neither, 4 no ldmatrix, 8 no
mma.sync (the fragments XORed into one word so that ptxas keeps the ldmatrix: ALU work the kernel does not have),
5 and 9 those without the loads) in the launch configurations
of `PV_ABLATE_VARIANTS`, at `PV_ABLATE_SHAPES`: what the loads and the product each cost the kernel,
std_pv_ablate_h200.csv.

`... std_kernels.py --qk-ablate OUT`: the QK^T kernel built with parts taken out (`STD_QK_ABLATE`: 1 the Q/K loads,
2 the product, 4 the epilogue's scale, mask and pack, 8 the stores, and their sums in `QK_ABLATE_MASKS`), causal and
not, at `QK_ABLATE_SHAPES`, every build given `QK_SMEM_BYTES` of shared memory so that three CTAs share an SM as
in the real kernel (an ablated build needs fewer registers): std_qk_ablate_h200.csv.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import Any

from cupy_kernels import common
from cupy_kernels.common import cp
from cupy_kernels.standard import launch

TOKENS = 16384
HEADS = {64: 32, 128: 16}
SEQLENS = (512, 1024, 2048, 4096, 8192, 16384)
NCU_SHAPES = ((64, 1024), (64, 8192), (128, 1024), (128, 8192))  # (headdim, N), not causal
NCU_METRICS = (
    "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
    "dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,"
    "lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,"
    "sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,"
    "sm__cycles_elapsed.avg.per_second"
)
KERNEL_NAMES = ("qk", "softmax", "pv")
PV_SHAPES = ((64, 1024), (64, 8192), (128, 1024), (128, 4096), (128, 16384))  # (headdim, N)
PV_VARIANTS = ((128, 4, 2), (128, 4, 3), (128, 8, 2), (128, 8, 3), (64, 4, 2), (64, 4, 4))  # (block_n, warps, stages)
PV_ABLATE_SHAPES = ((128, 4096), (128, 16384), (64, 8192))
PV_ABLATE_VARIANTS = ((128, 4, 2), (128, 4, 3), (128, 8, 2))
PV_ABLATE_MASKS = (0, 1, 2, 3, 4, 8, 5, 9)
QK_ABLATE_SHAPES = ((64, 4096), (128, 4096))
QK_ABLATE_MASKS = (0, 1, 2, 4, 8, 3, 11, 7, 15)
QK_SMEM_BYTES = 72 * 1024  # three CTAs per SM, as the real kernel's 163 registers allow


def timing_fields(timing: common.Timing) -> dict[str, object]:
    """A timed run's columns: median, p10 and p90 ms, runs, counted clock."""
    return {"ms": timing.median_ms, "p10_ms": timing.p10_ms, "p90_ms": timing.p90_ms, "runs": timing.runs,
            "clock_mhz": timing.probe_clock_mhz}  # fmt: skip


def time_ablated(
    define: str, mask: int, name: str, launch_shape: tuple[Any, ...], smem_bytes: int, timers: tuple[Any, Any]
) -> dict[str, object]:
    """Kernel `name` of attention.cu built with `#define define mask`, launched as `launch_shape` (grid, block,
    args) with `smem_bytes`, timed (`timers`: the L2 flusher and the clock trace)."""
    kernel = common.module_with_defines(launch.SOURCE, {define: mask}, [name]).get_function(name)
    kernel.max_dynamic_shared_size_bytes = smem_bytes
    grid, block, args = launch_shape
    flush, clock = timers
    run = partial(kernel, grid, block, args, shared_mem=smem_bytes)
    return {"ablate": mask, **timing_fields(common.time_gpu(run, flush=flush, clock=clock))}


def buffers(headdim: int, n: int) -> tuple[tuple[int, int, int, int], tuple[Any, ...]]:
    """The shape and the forward's tensors q, k, v, s, p, o, lse for (headdim, N)."""
    shape = (TOKENS // n, HEADS[headdim], n, headdim)
    q, k, v = (common.random_tensor(shape, "bf16", seed) for seed in range(3))
    scratch = (*shape[:3], launch.padded_seqlen(n))
    s, p = cp.empty(scratch, q.dtype), cp.empty(scratch, q.dtype)
    return shape, (q, k, v, s, p, cp.empty_like(q), cp.empty(shape[:3], dtype=cp.float32))


def kernels(headdim: int, causal: bool, tensors: tuple[Any, ...]) -> dict[str, partial[None]]:
    """The three kernels, each a call on the tensors."""
    q, k, v, s, p, o, lse = tensors
    config = launch.fwd_config(headdim)
    return {
        "qk": partial(launch.qk, q, k, s, causal, config, headdim**-0.5),
        "softmax": partial(launch.softmax, s, p, lse),
        "pv": partial(launch.pv, p, v, o, config),
    }


def ncu_target() -> None:
    """The three kernels once per `NCU_SHAPES` entry, in order (what ncu profiles)."""
    for headdim, n in NCU_SHAPES:
        for run in kernels(headdim, False, buffers(headdim, n)[1]).values():
            run()
    cp.cuda.runtime.deviceSynchronize()


MIX_SHAPES = ((64, 4096), (128, 4096))  # (headdim, N) of `mix_target`, each causal and not


def mix_target() -> None:
    """The three kernels at `MIX_SHAPES`, not causal then causal, in order (what `std_kernels_mix.sh` profiles):
    the instructions each executes per pipe, and what the causal mask adds to the QK^T's epilogue."""
    for headdim, n in MIX_SHAPES:
        tensors = buffers(headdim, n)[1]
        for causal in (False, True):
            for run in kernels(headdim, causal, tensors).values():
                run()
    cp.cuda.runtime.deviceSynchronize()


def ncu_rows() -> list[dict[str, object]]:
    metrics = common.ncu_self_metrics(__file__, "std_", NCU_METRICS)
    launches = [(d, n, name) for d, n in NCU_SHAPES for name in KERNEL_NAMES]
    return [
        {"headdim": d, "seqlen": n, "batch": TOKENS // n, "heads": HEADS[d], "kernel": name, **m}
        for (d, n, name), m in zip(launches, metrics, strict=True)
    ]


def main() -> None:
    out_dir = Path(sys.argv[1])
    flush, clock = common.L2Flusher(), common.ClockTrace()
    rows: list[dict[str, object]] = []
    for headdim in HEADS:
        for n in SEQLENS:
            shape, tensors = buffers(headdim, n)
            for causal in (False, True):
                for name, run in kernels(headdim, causal, tensors).items():
                    timing = common.time_gpu(run, flush=flush, clock=clock)
                    batch, heads = shape[:2]
                    rows.append(
                        {"batch": batch, "heads": heads, "seqlen": n, "headdim": headdim, "causal": causal,
                         "kernel": name, **timing_fields(timing)}
                    )  # fmt: skip
                    print(rows[-1], flush=True)
            del tensors
    common.write_rows(out_dir / "std_kernels_h200.csv", rows)
    print("gpu:", common.write_gpu_facts(out_dir / "std_kernels_gpu_h200.csv"), flush=True)
    common.write_rows(out_dir / "std_kernels_ncu_h200.csv", ncu_rows())


def pv_variants(out_dir: Path) -> None:
    flush, clock = common.L2Flusher(), common.ClockTrace()
    rows: list[dict[str, object]] = []
    for headdim, n in PV_SHAPES:
        shape, (_, _, v, _, p, o, _) = buffers(headdim, n)
        p[...] = common.random_tensor(p.shape, "bf16", 7)
        reference = None
        for block_n, warps, stages in PV_VARIANTS:
            config = launch.fwd_config(headdim, block_n=block_n, warps=warps, stages=stages)
            o.fill(0)
            launch.pv(p, v, o, config)
            got = common.to_float32(o)
            if reference is None:
                reference = got
            error = float(cp.linalg.norm(got - reference) / cp.linalg.norm(reference))
            timing = common.time_gpu(partial(launch.pv, p, v, o, config), flush=flush, clock=clock)
            rows.append(
                {"batch": shape[0], "heads": shape[1], "seqlen": n, "headdim": headdim, "block_m": config.block_m,
                 "block_n": block_n, "warps": warps, "stages": stages, **timing_fields(timing),
                 "rel_error_vs_default": error}
            )  # fmt: skip
            print(rows[-1], flush=True)
    common.write_rows(out_dir / "std_pv_variants_h200.csv", rows)


def pv_ablate(out_dir: Path) -> None:
    flush, clock = common.L2Flusher(), common.ClockTrace()
    rows: list[dict[str, object]] = []
    for headdim, n in PV_ABLATE_SHAPES:
        shape, (_, _, v, _, p, o, _) = buffers(headdim, n)
        for block_n, warps, stages in PV_ABLATE_VARIANTS:
            config = launch.fwd_config(headdim, block_n=block_n, warps=warps, stages=stages)
            name = launch.kernel_names(headdim, config, False, True)[2]
            smem = launch.pv_smem_bytes(headdim, config)
            grid = (-(-n // config.block_m), shape[0] * shape[1])
            args = (p, v, o, cp.int32(n), cp.int32(p.shape[-1]))
            for mask in PV_ABLATE_MASKS:
                timed = time_ablated("STD_PV_ABLATE", mask, name, (grid, (warps * 32,), args), smem, (flush, clock))
                rows.append(
                    {"batch": shape[0], "heads": shape[1], "seqlen": n, "headdim": headdim, "block_n": block_n,
                     "warps": warps, "stages": stages, **timed}
                )  # fmt: skip
                print(rows[-1], flush=True)
    common.write_rows(out_dir / "std_pv_ablate_h200.csv", rows)


def qk_ablate(out_dir: Path) -> None:
    flush, clock = common.L2Flusher(), common.ClockTrace()
    rows: list[dict[str, object]] = []
    for headdim, n in QK_ABLATE_SHAPES:
        shape, (q, k, _, s, _, _, _) = buffers(headdim, n)
        config = launch.fwd_config(headdim)
        grid = (-(-n // config.block_n), -(-n // config.block_m), shape[0] * shape[1])
        args = (q, k, s, cp.int32(n), cp.int32(s.shape[-1]), cp.float32(headdim**-0.5))
        for causal in (False, True):
            name = launch.kernel_names(headdim, config, causal, True)[0]
            for mask in QK_ABLATE_MASKS:
                launched = (grid, (config.warps * 32,), args)
                timed = time_ablated("STD_QK_ABLATE", mask, name, launched, QK_SMEM_BYTES, (flush, clock))
                rows.append(
                    {"batch": shape[0], "heads": shape[1], "seqlen": n, "headdim": headdim, "causal": causal, **timed}
                )
                print(rows[-1], flush=True)
    common.write_rows(out_dir / "std_qk_ablate_h200.csv", rows)


if __name__ == "__main__":
    if sys.argv[1] == "--target":
        ncu_target()
    elif sys.argv[1] == "--mix-target":
        mix_target()
    elif sys.argv[1] == "--qk-ablate":
        qk_ablate(Path(sys.argv[2]))
    elif sys.argv[1] == "--pv-ablate":
        pv_ablate(Path(sys.argv[2]))
    elif sys.argv[1] == "--pv-variants":
        pv_variants(Path(sys.argv[2]))
    else:
        main()

"""GEMM ceilings through the vendor libraries: what a framework's ``a @ b`` gets from the tensor cores.

Measured: one square GEMM (8192^3 by default, ``2 n^3`` FLOP per run) in bf16 and fp16 through cuBLAS
(``cublasGemmEx`` called through CuPy, fp32 accumulation, output in the input type), and in fp8 (e4m3 inputs,
per-tensor scales of 1, bf16 output) through cuBLASLt as PyTorch calls it (``torch._scaled_mm``), when torch is
importable. Each is timed as ``runs`` back-to-back runs on one stream with a CUDA event between consecutive runs
(the GPU never idles between them: the host enqueues a GEMM in microseconds, the GPU runs one in ~1-2 ms), after
``WARMUP`` untimed runs; the result is the median run, with the 10th/90th percentiles, the medians of the first
and of the last ``EDGE_RUNS`` runs (the card is power-capped at 700 W and lowers its clock under sustained GEMM
load, so a short burst is faster than a long loop: ``../../shared/reference/hardware.md``) and every nvidia-smi
SM-clock sample taken inside the timed window. The first run of each GEMM, into an output poisoned with NaN, is
checked once against a float64 product of one block of rows and columns, off the diagonal, so a transposed or
otherwise wrong layout cannot pass unnoticed.

Ignored: the SM clock the kernels really ran at (no cycle counter inside cuBLAS; a probe warp beside a
register-full cuBLAS CTA could stop that CTA from launching, so ``common.ClockTrace`` is not used here); cuBLAS's
algorithm choice (its default heuristic, with CuPy's default workspace, not torch's); the L2 state (inputs of
3 x 128 MiB do not fit the L2 anyway). torch is imported only inside ``fp8_torch``: the GPU machine has it, a
machine without it records ``skipped``.
"""

from __future__ import annotations

import importlib
import itertools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cupy_kernels import common
from cupy_kernels.common import cp

WARMUP = 5
EDGE_RUNS = 10
MAX_RUNS = 1000
CHECK_BLOCK = 64  # rows and columns of the checked block
# A block's largest error over the reference's RMS: a bf16 output rounds each value by up to 2^-8 of itself
# (values reach ~4.5 RMS, so ~1.8% of the RMS); a wrong layout gives errors of the order of the RMS (~140%).
CHECK_TOLERANCE = 0.05
# fp8 with fast accumulation keeps partial sums in the tensor core's narrower accumulator over all of K (DeepSeek-V3
# reports ~2% relative error at K = 4096 on Hopper); still far below a layout error's ~140%.
FAST_ACCUM_TOLERANCE = 0.25
# cudaDataType_t (library_types.h); fixed by the CUDA ABI, spelled here so as not to depend on which CuPy module
# re-exports them.
CUDA_R_16F, CUDA_R_16BF = 2, 14


def series(run: Callable[[], object], sampler: common.ClockSampler, target_s: float, min_runs: int) -> dict[str, Any]:
    """Time back-to-back runs of ``run`` on the current stream (see the module docstring); timing fields only."""
    for _ in range(WARMUP):
        run()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    run()
    end.record()
    end.synchronize()
    first_ms = float(cp.cuda.get_elapsed_time(start, end))
    runs = int(min(MAX_RUNS, max(min_runs, round(target_s * 1e3 / max(first_ms, 1e-3)))))
    events = [cp.cuda.Event() for _ in range(runs + 1)]
    t_start = time.monotonic()
    events[0].record()
    for event in events[1:]:
        run()
        event.record()
    events[-1].synchronize()
    t_end = time.monotonic()
    times_ms = [float(cp.cuda.get_elapsed_time(a, b)) for a, b in itertools.pairwise(events)]
    clocks = sampler.between(t_start, t_end)
    p10, p90 = np.percentile(times_ms, [10, 90])
    return {
        "time_ms": float(np.median(times_ms)),
        "p10_ms": float(p10),
        "p90_ms": float(p90),
        "first_runs_ms": float(np.median(times_ms[:EDGE_RUNS])),
        "last_runs_ms": float(np.median(times_ms[-EDGE_RUNS:])),
        "runs": runs,
        "warmup_runs": WARMUP + 1,
        "clock_mhz": float(np.median(clocks)) if clocks else sampler.median_between(t_start, t_end),
        "clock_samples_mhz": clocks,
    }


def check_block(a_rows: Any, b_cols: Any, c_block: Any, tolerance: float = CHECK_TOLERANCE) -> dict[str, Any]:
    """Compare a block of the product with float64 (NumPy-like arrays of one module, already float64): raise
    RuntimeError when the largest error exceeds ``tolerance`` times the reference's RMS."""
    reference = a_rows @ b_cols  # (CHECK_BLOCK, CHECK_BLOCK)
    rms = float((reference**2).mean() ** 0.5)
    error = float(abs(c_block - reference).max()) / rms
    if not error <= tolerance:  # NaN (an unwritten output) fails too
        raise RuntimeError(f"GEMM check failed: largest error {error:.3g} x RMS (tolerance {tolerance})")
    return {"max_error_over_rms": error, "reference_rms": rms, "tolerance": tolerance}


def block_origin(n: int) -> tuple[int, int]:
    """First row and first column of the checked block: off the diagonal, so C and its transpose differ there."""
    return n // 4, n // 2


def rate(description: str, variant: str, flop: float, timing: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    return {
        "description": description,
        "variant": variant,
        "unit": "flop",
        "per_s": flop / (timing["time_ms"] * 1e-3),
        "first_runs_per_s": flop / (timing["first_runs_ms"] * 1e-3),
        "last_runs_per_s": flop / (timing["last_runs_ms"] * 1e-3),
        **timing,
        "work_per_run": flop,
        "config": config,
    }


def cublas_16bit(dtype: str, n: int, sampler: common.ClockSampler, target_s: float, min_runs: int) -> dict[str, Any]:
    """C = A B for row-major A (n, n), B (n, n), C (n, n), all ``dtype`` ("bf16" or "fp16"), fp32 accumulation.

    cuBLAS is column-major: the row-major C = A B is the column-major C^T = B^T A^T, so the call passes B first,
    no transposes, leading dimension n each: exactly how torch calls cuBLAS for ``a @ b`` on contiguous tensors.
    """
    from cupy_backends.cuda.libs import cublas

    a = common.random_tensor((n, n), dtype, seed=20)  # (M, K), standard normal
    b = common.random_tensor((n, n), dtype, seed=21)  # (K, N)
    c = cp.empty((n, n), dtype=a.dtype)  # (M, N)
    data_type = CUDA_R_16BF if dtype == "bf16" else CUDA_R_16F
    one, zero = np.ones((), np.float32), np.zeros((), np.float32)  # alpha, beta: host fp32 for fp32 compute
    handle = cp.cuda.device.get_cublas_handle()
    cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)  # alpha and beta are host pointers

    def run() -> None:
        cublas.gemmEx(
            handle, cublas.CUBLAS_OP_N, cublas.CUBLAS_OP_N, n, n, n,
            one.ctypes.data, b.data.ptr, data_type, n,
            a.data.ptr, data_type, n,
            zero.ctypes.data, c.data.ptr, data_type, n,
            cublas.CUBLAS_COMPUTE_32F, cublas.CUBLAS_GEMM_DEFAULT,
        )  # fmt: skip

    common.poison(c)
    run()
    r0, c0 = block_origin(n)
    rows, cols = slice(r0, r0 + CHECK_BLOCK), slice(c0, c0 + CHECK_BLOCK)
    check = check_block(
        common.to_float32(a[rows]).astype(cp.float64),
        common.to_float32(b[:, cols]).astype(cp.float64),
        common.to_float32(c[rows, cols]).astype(cp.float64),
    )
    timing = series(run, sampler, target_s, min_runs)
    return rate(
        f"{dtype} GEMM {n}^3 through cuBLAS (cublasGemmEx via CuPy, CUBLAS_COMPUTE_32F, default algorithm), "
        f"{dtype} output, back-to-back runs",
        f"cuBLAS gemmEx via CuPy, {dtype}",
        2.0 * n**3,
        timing,
        {"m": n, "n": n, "k": n, "inputs": dtype, "output": dtype, "compute": "CUBLAS_COMPUTE_32F",
         "layout": "row-major A, B, C; cuBLAS NN on the transposes", "check": {"rows": r0, "cols": c0, **check}},
    )  # fmt: skip


def fp8_torch(n: int, sampler: common.ClockSampler, target_s: float, min_runs: int) -> dict[str, Any]:
    """fp8 e4m3 GEMM through ``torch._scaled_mm`` (cuBLASLt; torch >= 2.4, which returns one tensor): A (n, n)
    row-major, B (n, n) column-major (the layout its fp8 kernels require), scales 1, bf16 output. torch's default
    accumulation is the result; ``use_fast_accum=True`` (fp8 accumulation inside the tensor core's k-blocks) is
    recorded as a variant."""
    try:
        torch: Any = importlib.import_module("torch")
    except ImportError as err:
        return {"skipped": f"torch not importable ({err})", "unit": "flop", "description": "fp8 GEMM via torch"}
    variants = _fp8_variants(torch, n, sampler, target_s, min_runs)
    torch.cuda.empty_cache()  # the inputs are garbage now: give their memory back for the benchmarks that follow
    return {**variants[0], "variants": variants}


def _fp8_variants(torch: Any, n: int, sampler: common.ClockSampler, target_s: float, min_runs: int) -> list[Any]:
    generator = torch.Generator(device="cuda").manual_seed(22)
    a = torch.randn(n, n, device="cuda", generator=generator).to(torch.float8_e4m3fn)  # (M, K) row-major
    b = torch.randn(n, n, device="cuda", generator=generator).to(torch.float8_e4m3fn).t()  # (K, N) column-major
    one = torch.ones((), device="cuda", dtype=torch.float32)
    r0, c0 = block_origin(n)
    rows, cols = slice(r0, r0 + CHECK_BLOCK), slice(c0, c0 + CHECK_BLOCK)
    a_rows, b_cols = a[rows].float().double(), b[:, cols].float().double()
    # CuPy's events must be recorded on the stream torch launches on (its current stream; normally the null one).
    torch_stream = int(torch.cuda.current_stream().cuda_stream)
    stream = cp.cuda.ExternalStream(torch_stream) if torch_stream else cp.cuda.Stream.null
    variants = []
    for fast_accum in (False, True):

        def run(fast_accum: bool = fast_accum) -> Any:
            return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast_accum)

        with stream:
            # Checked once into a poisoned output (the functional form's fresh output could hold an earlier product
            # of the same inputs, left in torch's cached memory): the same operator's out= overload.
            c = torch.full((n, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            torch.ops.aten._scaled_mm.out(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=fast_accum, out=c)
            tolerance = FAST_ACCUM_TOLERANCE if fast_accum else CHECK_TOLERANCE
            check = check_block(a_rows, b_cols, c[rows, cols].double(), tolerance)
            del c
            timing = series(run, sampler, target_s, min_runs)
        accumulation = "fast accumulation" if fast_accum else "default accumulation"
        config = {"m": n, "n": n, "k": n, "inputs": "float8_e4m3fn", "output": "bf16", "use_fast_accum": fast_accum,
                  "torch": str(torch.__version__), "torch_stream": torch_stream,
                  "layout": "A row-major, B column-major", "check": {"rows": r0, "cols": c0, **check}}  # fmt: skip
        description = (
            f"fp8 e4m3 GEMM {n}^3 through torch._scaled_mm (cuBLASLt), scales 1, bf16 output, {accumulation}, "
            "back-to-back runs"
        )
        variants.append(rate(description, f"torch._scaled_mm, fp8 e4m3, {accumulation}", 2.0 * n**3, timing, config))
    return variants

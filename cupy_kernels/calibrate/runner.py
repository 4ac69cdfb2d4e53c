"""Run the calibration microbenchmarks on GPU 0: ``python -m cupy_kernels.calibrate.runner --out DIR [--quick]``.

Each benchmark is one persistent-wave kernel (``bench.cuh``) timed with ``common.time_gpu`` (CUDA events,
warm-up, median of many runs) while ``common.ClockSampler`` samples the SM clock with nvidia-smi. A rate
result holds: ``per_s`` (units per second, from the median time); ``per_sm_per_clk_cycles`` (work over the
``clock64`` cycles of the slowest CTA in one more run, timed on its own) and ``kernel_clock_mhz`` (those cycles
over that run's time: the clock the kernel ran at); ``per_sm_per_clk`` at ``clock_mhz`` (the median nvidia-smi
sample inside the timing window); the timing spread, the work per run and the launch configuration. The two
clocks agree for light kernels; under the power cap nvidia-smi reads ~10% high (validation/h200/README.md),
and the cycle counts are the ones to believe. Compute kernels run ~10 ms, HBM ones ~2 ms (2 ms and ~0.3 ms with
``quick``), so launch overhead stays under 1%.

Two ceilings are also measured the way a framework meets them, because the reference figures
(``validation/h200/ceilings.json``) were measured with torch: the L2-resident copy (``bench_l2_copy``: our copy
kernel and ``cupy.copyto``, one copy per launch and back to back) and the 8192^3 GEMM through cuBLAS and cuBLASLt
(``gemm.py``). Those results carry ``variant`` (a short label of what produced them) and, where a cycle counter
is missing (vendor code), no per-clock fields.

Sizes are fixed from datasheet-scale rates (``ASSUMED_*``) only to aim each kernel at its target duration;
the measured rates come from the timings, not from those numbers.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cupy_kernels import common
from cupy_kernels.calibrate import gemm
from cupy_kernels.common import cp

HERE = Path(__file__).resolve().parent
MEMORY_SOURCE = HERE / "memory.cu"
COMPUTE_SOURCE = HERE / "compute.cu"
WGMMA_SOURCE = HERE / "wgmma.cu"

KEY = 0x9E3779B9  # `keep`'s key: a value the folded results practically never equal (see bench.cuh)

# Global-load kernels: 256-thread CTAs, 4 per SM (1024 threads), UNROLL 16-byte loads in flight per thread.
LOAD_THREADS, LOAD_CTAS_PER_SM, LOAD_UNROLL = 256, 4, 8
HBM_LAYOUTS = {0: "grid-strided", 1: "CTA tiles"}  # memory.cu's Layout
L2_BUFFER_MIB = (16, 32)  # both well under the 60 MiB L2, so every sweep after the first hits
# The L2-resident copy of h200_ceilings.json: 16 MiB copied to another 16 MiB (both resident in the 60 MiB L2).
# Back to back: COPIES copies enqueued while a spin kernel holds the stream (as bench_launch does), so they run
# from a full queue; SPIN_NS is far longer than the host needs to enqueue them (~10-20 us each from Python).
L2_COPY_MIB, L2_COPY_COPIES, L2_COPY_SPIN_NS = 16, 200, 20_000_000
L2_COPY_CEILING = (
    "The result is the cupy.copyto back-to-back variant: torch's copy_ of contiguous tensors and cupy.copyto of "
    "contiguous arrays both call cudaMemcpyAsync device-to-device, and a stream of copies is what a framework runs; "
    "the per-call host overhead of Python is no property of the GPU. l2_copy_TBps of ceilings.json is nevertheless "
    "compared with the one-copy-per-call variant (simgpu.ceilings): its 1.80 TB/s is 18.6 us per copy, a single call "
    "timed alone. Our kernel's variants are the same copy without the vendor path; its in-kernel passes are the "
    "L2's copy rate without launch gaps."
)
GEMM_SIZE = 8192
BULK_STAGES, BULK_CHUNK = 4, 32768  # 128 KiB of bulk copies in flight per SM
SMEM_THREADS, SMEM_CTAS_PER_SM, SMEM_UNROLL = 512, 2, 8
# ex2 and FMA: 256-thread CTAs, 8 per SM (2048 threads, the SM's maximum), CHAINS x STEPS instructions per loop.
ALU_THREADS, ALU_CTAS_PER_SM, ALU_CHAINS, ALU_STEPS = 256, 8, 8, 64
# mma.sync: 32 warps per SM; (CHAINS, STEPS) variants with 32 mmas per loop body: 4 or 8 independent accumulators.
MMA_THREADS, MMA_CTAS_PER_SM, MMA_VARIANTS = 256, 4, ((4, 8), (8, 4))
MMA_FLOP = 2 * 16 * 8 * 16
WGMMA_CONFIGS = ((1, True), (2, True), (1, False), (2, False))  # (consumer warpgroups, 128-byte swizzle)
WGMMA_FLOP_PER_ITER = 4 * 2 * 64 * 256 * 16  # K_STEPS m64n256k16 instructions per warpgroup and iteration
# More than half of the SM's 228 KiB: the occupancy calculator then places exactly one CTA on each SM.
WGMMA_DYNAMIC_SMEM = 120 * 1024
# Empty kernels queued behind the spin kernel. Had the launch queue filled, the host would have blocked and the
# device-side figure would equal the host-bound one; on the H200 it is 4x smaller, so the queue held them all.
LAUNCHES = 500

ASSUMED_CLOCK_HZ = 1.98e9
ASSUMED_L2_BYTES_PER_S = 12e12
ASSUMED_PER_SM_PER_CLK = {"smem": 128, "ex2": 16, "fma": 128, "mma": 4096, "wgmma": 4096}


def kernel_names() -> dict[Path, list[str]]:
    """Every kernel instantiation the runner launches, by source (the no-GPU test compiles exactly these)."""
    return {
        MEMORY_SOURCE: [
            *(f"hbm_read<{LOAD_UNROLL}, {layout}>" for layout in HBM_LAYOUTS),
            *(
                f"hbm_copy<{LOAD_UNROLL}, {layout}, {str(streaming).lower()}>"
                for layout in HBM_LAYOUTS
                for streaming in (False, True)
            ),
            f"l2_read<{LOAD_UNROLL}>",
            f"l2_copy<{LOAD_THREADS}, {LOAD_UNROLL}>",
            f"l2_bulk_read<{BULK_STAGES}, {BULK_CHUNK}>",
            f"smem_read<{SMEM_THREADS}, {SMEM_UNROLL}>",
        ],
        COMPUTE_SOURCE: [
            f"ex2_rate<{ALU_CHAINS}, {ALU_STEPS}>",
            f"fma_rate<{ALU_CHAINS}, {ALU_STEPS}>",
            *(f"mma_sync_rate<{chains}, {steps}>" for chains, steps in MMA_VARIANTS),
            "empty",
            "spin",
        ],
        WGMMA_SOURCE: [f"wgmma_rate<{wgs}, {str(swizzle).lower()}>" for wgs, swizzle in WGMMA_CONFIGS],
    }


@functools.cache
def _module(source: Path) -> Any:
    """All of a source's kernels in one NVRTC call. wgmma needs the arch-specific target sm_90a."""
    options = common.NVRTC_OPTIONS + (("-arch=sm_90a",) if source == WGMMA_SOURCE else ())
    names = tuple(kernel_names()[source])
    return cp.RawModule(code=common.load_source(source), options=options, name_expressions=names)


def _kernel(source: Path, name: str, smem_bytes: int = 0) -> Any:
    kernel = _module(source).get_function(name)
    if smem_bytes > 48 * 1024:  # above 48 KiB a kernel must opt in to more dynamic shared memory
        kernel.max_dynamic_shared_size_bytes = smem_bytes
    return kernel


def _random_words(count: int, seed: int) -> Any:
    """``count`` random 32-bit words (the bits of uniform floats in [0.5, 1): never zero)."""
    values = cp.random.default_rng(seed).random(count, dtype=cp.float32) * 0.5 + 0.5
    return values.view(cp.uint32)


def _random_bf16_pairs(count: int, seed: int) -> Any:
    """``count`` 32-bit words, each two finite random bf16 values (standard normal / 8)."""
    halves = common.to_bf16_bits(cp.random.default_rng(seed).standard_normal(2 * count, dtype=cp.float32) / 8)
    return halves.view(cp.uint32)


class Bench:
    """Shared state of one calibration run: device facts, the clock sampler, the sink, the timing budget."""

    def __init__(self, mode: str, sampler: common.ClockSampler) -> None:
        """``mode``: "full"; "quick" (shorter kernels, fewer variants); "smoke" (every kernel at a tiny size,
        for compute-sanitizer: the numbers mean nothing)."""
        self.sampler = sampler
        self.sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
        self.target_kernel_s = {"full": 0.010, "quick": 0.002, "smoke": 1e-6}[mode]
        # Per benchmark: long enough for ~10 nvidia-smi samples at 50 ms (full).
        self.target_loop_s = {"full": 0.6, "quick": 0.15, "smoke": 0.0}[mode]
        self.hbm_vectors = {"full": 2**29, "quick": 2**26, "smoke": 2**22}[mode]  # 16-byte words: 8 GiB full
        self.all_variants = mode != "quick"
        self.smoke = mode == "smoke"
        self.l2_copy_bytes = (1 if self.smoke else L2_COPY_MIB) * 2**20
        self.l2_copy_copies = 2 if self.smoke else L2_COPY_COPIES
        self.queued_repeats = {"full": 9, "quick": 3, "smoke": 1}[mode]  # timed repetitions behind a spin kernel
        self.gemm_size = 256 if self.smoke else GEMM_SIZE
        self.gemm_min_runs = 2 if self.smoke else 20
        self.sink = cp.zeros(1, dtype=cp.uint32)

    def iterations(self, work_per_iter_per_sm: float, per_sm_per_clk: float) -> int:
        """Loop count that makes a kernel last about ``target_kernel_s`` at the assumed rate and clock."""
        seconds_per_iter = work_per_iter_per_sm / (per_sm_per_clk * ASSUMED_CLOCK_HZ)
        return max(1, round(self.target_kernel_s / seconds_per_iter))

    def time(
        self,
        run: Callable[[Any], object],
        ctas: int,
        work_per_run: float,
        unit: str,
        description: str,
        config: dict[str, Any],
        sms_used: int | None = None,
    ) -> dict[str, Any]:
        """Time ``run(cycles)`` (a launch of ``ctas`` CTAs on ``sms_used`` SMs, default all, recording their
        cycles) and derive its rates: per second from the median time; per SM per clock both at the clock
        nvidia-smi sampled in the timing window and from the cycle counter of one more run, timed on its own."""
        sms = self.sms if sms_used is None else sms_used
        cycles = cp.zeros(ctas, dtype=cp.uint64)
        timing = common.time_gpu(lambda: run(cycles), warmup=3, min_runs=10, max_runs=1000, target_s=self.target_loop_s)
        clock_mhz = self.sampler.median_between(timing.t_start, timing.t_end)
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        run(cycles)
        end.record()
        end.synchronize()
        last_s = float(cp.cuda.get_elapsed_time(start, end)) * 1e-3
        # The slowest CTA spans the kernel (one wave, all CTAs start together), so its cycles over the same run's
        # event time is the SM clock the kernel ran at, and work over its cycles is the rate per clock, whatever
        # the clock did: under a power cap the clock changes faster than nvidia-smi samples it.
        kernel_cycles = int(cycles.max())
        per_s = work_per_run / (timing.median_ms * 1e-3)
        return {
            "description": description,
            "unit": unit,
            "per_s": per_s,
            "per_sm_per_clk_cycles": work_per_run / (sms * kernel_cycles),
            "kernel_clock_mhz": kernel_cycles / (last_s * 1e6),
            "kernel_cycles": kernel_cycles,
            "per_sm_per_clk": per_s / (sms * clock_mhz * 1e6),
            "clock_mhz": clock_mhz,
            "time_ms": timing.median_ms,
            "p10_ms": timing.p10_ms,
            "p90_ms": timing.p90_ms,
            "runs": timing.runs,
            "work_per_run": work_per_run,
            "sms": sms,
            "config": config,
        }


def _best(variants: list[dict[str, Any]]) -> dict[str, Any]:
    """The fastest variant, with every variant listed under ``variants``."""
    return {**max(variants, key=lambda v: v["per_s"]), "variants": variants}


# --------------------------------------------------------------------------------------------------------
# Benchmarks
# --------------------------------------------------------------------------------------------------------


def bench_hbm(b: Bench) -> dict[str, dict[str, Any]]:
    """Read once a buffer of 8 GiB (1 GiB quick), 140x (17x) the L2, so every byte comes from HBM; copy its first
    half. Both layouts of memory.cu, plain and evict-first stores; the fastest variant is the result."""
    ctas = b.sms * LOAD_CTAS_PER_SM
    whole = LOAD_UNROLL * ctas * LOAD_THREADS  # 16-byte words per grid-wide pass: no tail loop
    n_vec = (b.hbm_vectors // whole) * whole
    half = ((n_vec // 2) // whole) * whole
    src = _random_words(4 * n_vec, seed=1)
    dst = cp.empty(4 * half, dtype=cp.uint32)
    reads, copies = [], []
    for layout, layout_name in HBM_LAYOUTS.items():
        config = {"ctas": ctas, "threads": LOAD_THREADS, "unroll": LOAD_UNROLL, "layout": layout_name}
        read = _kernel(MEMORY_SOURCE, f"hbm_read<{LOAD_UNROLL}, {layout}>")
        reads.append(
            b.time(
                lambda cycles, read=read: read(
                    (ctas,), (LOAD_THREADS,), (src, np.uint32(n_vec), np.uint32(KEY), b.sink, cycles)
                ),
                ctas,
                16.0 * n_vec,
                "bytes",
                f"HBM read: 16-byte loads ({layout_name}) of a buffer 140x the L2, XOR-reduced",
                {**config, "buffer_bytes": 16 * n_vec},
            )
        )
        for streaming in (False, True):
            copy = _kernel(MEMORY_SOURCE, f"hbm_copy<{LOAD_UNROLL}, {layout}, {str(streaming).lower()}>")
            stores = "evict-first" if streaming else "plain"
            dst.fill(0)  # a stale copy must not pass the check below
            copies.append(
                b.time(
                    lambda cycles, copy=copy: copy((ctas,), (LOAD_THREADS,), (src, dst, np.uint32(half), cycles)),
                    ctas,
                    2 * 16.0 * half,
                    "bytes",
                    f"HBM copy: 16-byte loads and {stores} stores ({layout_name}), bytes read + written",
                    {**config, "buffer_bytes": 16 * half, "stores": stores},
                )
            )
            if not bool((dst[::4097] == src[: 4 * half : 4097]).all()):
                raise RuntimeError(f"hbm_copy ({layout_name}, {stores}): the destination does not match the source")
    return {"hbm_read": _best(reads), "hbm_copy": _best(copies)}


def bench_l2(b: Bench) -> dict[str, dict[str, Any]]:
    """All SMs sweep an L2-resident buffer with 16-byte ld.global.cg loads, for two buffer sizes."""
    ctas = b.sms * LOAD_CTAS_PER_SM
    threads = ctas * LOAD_THREADS
    read = _kernel(MEMORY_SOURCE, f"l2_read<{LOAD_UNROLL}>")
    iters = max(1, round(b.target_kernel_s * ASSUMED_L2_BYTES_PER_S / (threads * LOAD_UNROLL * 16)))
    variants = []
    for mib in L2_BUFFER_MIB if b.all_variants else L2_BUFFER_MIB[:1]:
        n_vec = mib * 2**20 // 16
        buf = _random_words(4 * n_vec, seed=2)
        variants.append(
            b.time(
                lambda cycles, buf=buf, n_vec=n_vec: read(
                    (ctas,),
                    (LOAD_THREADS,),
                    (buf, np.uint32(n_vec - 1), np.int32(iters), np.uint32(KEY), b.sink, cycles),
                ),
                ctas,
                16.0 * threads * LOAD_UNROLL * iters,
                "bytes",
                f"L2 read: all SMs sweep a {mib} MiB buffer with 16-byte ld.global.cg loads",
                {"buffer_bytes": 16 * n_vec, "ctas": ctas, "threads": LOAD_THREADS, "unroll": LOAD_UNROLL},
            )
        )
    return {"l2_read": _best(variants)}


def _queued(b: Bench, run: Callable[[], object], calls: int) -> dict[str, Any]:
    """Seconds per call of ``calls`` calls of ``run`` enqueued while the spin kernel holds the stream, so the GPU
    runs them back to back from a full queue (timing fields of a rate result, plus the host's enqueue time: if it
    ever exceeded the spin, the queue ran dry and the figure is host-bound, which ``queue_ran_dry`` then says)."""
    spin = _kernel(COMPUTE_SOURCE, "spin")
    start, end = cp.cuda.Event(), cp.cuda.Event()
    spin_ns = 1_000_000 if b.smoke else L2_COPY_SPIN_NS

    def once() -> tuple[float, float]:
        spin((1,), (1,), (np.uint64(spin_ns),))
        start.record()
        t0 = time.perf_counter()
        for _ in range(calls):
            run()
        host_s = time.perf_counter() - t0
        end.record()
        end.synchronize()
        return float(cp.cuda.get_elapsed_time(start, end)) * 1e-3 / calls, host_s

    once()  # warm-up
    t_start = time.monotonic()
    per_call, host = zip(*(once() for _ in range(b.queued_repeats)), strict=True)
    t_end = time.monotonic()
    p10, p90 = np.percentile(per_call, [10, 90])
    return {
        "time_ms": float(np.median(per_call)) * 1e3,
        "p10_ms": float(p10) * 1e3,
        "p90_ms": float(p90) * 1e3,
        "runs": b.queued_repeats,
        "calls_per_run": calls,
        "host_enqueue_s": max(host),
        "spin_s": spin_ns * 1e-9,
        "queue_ran_dry": max(host) > spin_ns * 1e-9,
        "clock_mhz": b.sampler.median_between(t_start, t_end),
    }


def _per_call(b: Bench, run: Callable[[], object]) -> dict[str, Any]:
    """Timing fields of ``run`` timed one call at a time (``common.time_gpu``: events around each call, the host
    waiting for each), so each time includes the host's launch of the call."""
    timing = common.time_gpu(run, warmup=3, min_runs=10, max_runs=1000, target_s=b.target_loop_s)
    return {
        "time_ms": timing.median_ms,
        "p10_ms": timing.p10_ms,
        "p90_ms": timing.p90_ms,
        "runs": timing.runs,
        "clock_mhz": b.sampler.median_between(timing.t_start, timing.t_end),
    }


def bench_l2_copy(b: Bench) -> dict[str, dict[str, Any]]:
    """Copy a 16 MiB L2-resident buffer to another (bytes read + written) with our kernel (memory.cu's l2_copy)
    and with ``cupy.copyto`` (cudaMemcpyAsync device-to-device, the vendor path of a framework's copy). Our
    kernel: in-kernel passes (the L2 copy rate, ~10 ms launches), one copy per launch, back-to-back launches; the
    vendor copy: one per call, back to back. The result is the variant ``L2_COPY_CEILING`` names, all five under
    ``variants``; the destination is checked after each."""
    n_vec = b.l2_copy_bytes // 16
    tile = LOAD_UNROLL * LOAD_THREADS
    ctas = n_vec // tile  # 512 for 16 MiB: one wave at 4 CTAs per SM
    assert ctas * tile == n_vec and ctas <= b.sms * LOAD_CTAS_PER_SM, (n_vec, ctas)
    src = _random_words(4 * n_vec, seed=8)
    dst = cp.empty_like(src)
    kernel = _kernel(MEMORY_SOURCE, f"l2_copy<{LOAD_THREADS}, {LOAD_UNROLL}>")
    copy_bytes = 2.0 * 16 * n_vec  # read + written
    config = {"buffer_bytes": 16 * n_vec, "ctas": ctas, "threads": LOAD_THREADS, "unroll": LOAD_UNROLL}
    spare_cycles = cp.zeros(ctas, dtype=cp.uint64)

    def own(passes: int, cycles: Any = spare_cycles) -> None:
        kernel((ctas,), (LOAD_THREADS,), (src, dst, np.int32(passes), cycles))

    def vendor() -> None:
        cp.copyto(dst, src)  # contiguous, same dtype and size: CuPy's memcpy path (cudaMemcpyAsync)

    def checked(result: dict[str, Any]) -> dict[str, Any]:
        if not bool((dst[::4097] == src[::4097]).all()):
            raise RuntimeError(f"l2_copy ({result['variant']}): the destination does not match the source")
        return result

    def plain(variant: str, description: str, timing: dict[str, Any]) -> dict[str, Any]:
        """A rate result without a cycle counter: the time is per copy."""
        per_s = copy_bytes / (timing["time_ms"] * 1e-3)
        return {"description": description, "variant": variant, "unit": "bytes", "per_s": per_s, **timing,
                "work_per_copy": copy_bytes, "sms": b.sms, "config": config}  # fmt: skip

    mib = b.l2_copy_bytes // 2**20
    variants = []
    passes = max(1, round(b.target_kernel_s * ASSUMED_L2_BYTES_PER_S / copy_bytes))
    dst.fill(0)
    in_kernel = b.time(
        lambda cycles: own(passes, cycles),
        ctas,
        passes * copy_bytes,
        "bytes",
        f"L2-resident copy, our kernel: {mib} MiB -> {mib} MiB {passes} times in one launch, bytes read + written",
        {**config, "passes": passes},
    )
    variants.append(checked({**in_kernel, "variant": "own kernel, in-kernel passes"}))
    dst.fill(0)
    one = b.time(
        lambda cycles: own(1, cycles),
        ctas,
        copy_bytes,
        "bytes",
        f"L2-resident copy, our kernel: one {mib} MiB copy per launch, events around each launch (the time includes "
        "the launch; kernel_cycles over the in-kernel variant's clock is the CTAs' share), bytes read + written",
        {**config, "passes": 1},
    )
    variants.append(checked({**one, "variant": "own kernel, one copy per launch"}))
    dst.fill(0)
    variants.append(
        checked(
            plain(
                "own kernel, back-to-back launches",
                f"L2-resident copy, our kernel: {b.l2_copy_copies} launches of one {mib} MiB copy, queued behind a "
                "spin kernel, time per copy, bytes read + written",
                _queued(b, lambda: own(1), b.l2_copy_copies),
            )
        )
    )
    dst.fill(0)
    variants.append(
        checked(
            plain(
                "cupy.copyto, one copy per call",
                f"L2-resident copy, cupy.copyto (cudaMemcpyAsync device-to-device): one {mib} MiB copy per call, "
                "events around each call (the time includes the host's call), bytes read + written",
                _per_call(b, vendor),
            )
        )
    )
    dst.fill(0)
    chosen = checked(
        plain(
            "cupy.copyto, back-to-back calls",
            f"L2-resident copy, cupy.copyto (cudaMemcpyAsync device-to-device): {b.l2_copy_copies} calls of one "
            f"{mib} MiB copy, queued behind a spin kernel, time per copy, bytes read + written",
            _queued(b, vendor, b.l2_copy_copies),
        )
    )
    variants.append(chosen)
    return {"l2_copy": {**chosen, "variants": variants, "ceiling_comparison": L2_COPY_CEILING}}


def bench_gemm(b: Bench) -> dict[str, dict[str, Any]]:
    """The n^3 GEMM ceilings through cuBLAS (bf16, fp16) and cuBLASLt via torch (fp8): ``gemm.py``."""
    args = (b.gemm_size, b.sampler, b.target_loop_s, b.gemm_min_runs)
    out = {f"gemm_{dtype}": gemm.cublas_16bit(dtype, *args) for dtype in ("bf16", "fp16")}
    out["gemm_fp8"] = gemm.fp8_torch(*args)
    return out


def bench_l2_bulk(b: Bench) -> dict[str, dict[str, Any]]:
    """The bulk-copy path on all SMs, and on half of them: if half the SMs draw the same bytes/s, the limit is
    the L2 (or the network to it), not the per-SM port."""
    buffer_bytes = L2_BUFFER_MIB[0] * 2**20
    buf = _random_words(buffer_bytes // 4, seed=3)
    smem = BULK_STAGES * BULK_CHUNK
    kernel = _kernel(MEMORY_SOURCE, f"l2_bulk_read<{BULK_STAGES}, {BULK_CHUNK}>", smem)
    mask = buffer_bytes // BULK_CHUNK - 1
    variants = []
    for sms in (b.sms, b.sms // 2) if b.all_variants else (b.sms,):
        # One CTA per SM: its dynamic shared memory (128 KiB) leaves no room for a second.
        chunks = max(1, round(b.target_kernel_s * ASSUMED_L2_BYTES_PER_S / (b.sms * BULK_CHUNK)))
        variants.append(
            b.time(
                lambda cycles, sms=sms, chunks=chunks: kernel(
                    (sms,), (32,), (buf, np.uint32(mask), np.int32(chunks), cycles), shared_mem=smem
                ),
                sms,
                float(sms * chunks * BULK_CHUNK),
                "bytes",
                f"L2 -> shared memory by cp.async.bulk on {sms} SMs: {BULK_CHUNK} B copies, {BULK_STAGES} stages "
                f"per SM, {L2_BUFFER_MIB[0]} MiB buffer",
                {"buffer_bytes": buffer_bytes, "ctas": sms, "stages": BULK_STAGES, "chunk_bytes": BULK_CHUNK},
                sms_used=sms,
            )
        )
    return {"l2_bulk_read": _best(variants)}


def bench_smem(b: Bench) -> dict[str, dict[str, Any]]:
    ctas = b.sms * SMEM_CTAS_PER_SM
    init = _random_words(4 * (SMEM_THREADS + (SMEM_UNROLL - 1) * 128), seed=4)
    kernel = _kernel(MEMORY_SOURCE, f"smem_read<{SMEM_THREADS}, {SMEM_UNROLL}>")
    bytes_per_iter = SMEM_CTAS_PER_SM * SMEM_THREADS * SMEM_UNROLL * 16  # per SM
    iters = b.iterations(bytes_per_iter, ASSUMED_PER_SM_PER_CLK["smem"])
    return {
        "smem_read": b.time(
            lambda cycles: kernel((ctas,), (SMEM_THREADS,), (init, np.int32(iters), np.uint32(KEY), b.sink, cycles)),
            ctas,
            float(b.sms * bytes_per_iter * iters),
            "bytes",
            "shared-memory read: ld.shared.v4 (16 B per thread), conflict-free, 32 warps per SM",
            {"ctas": ctas, "threads": SMEM_THREADS, "unroll": SMEM_UNROLL, "iters": iters},
        )
    }


def bench_alu(b: Bench) -> dict[str, dict[str, Any]]:
    """FP32 FMA and MUFU ex2: CHAINS independent chains per thread, 64 warps per SM."""
    ctas = b.sms * ALU_CTAS_PER_SM
    seed = _random_words(257, seed=5).view(cp.float32)  # values in [0.5, 1)
    out = {}
    for name, kernel_name, unit, description in (
        ("fp32_fma", "fma_rate", "fma", "FP32 FFMA x = a x + b"),
        ("mufu_ex2", "ex2_rate", "ex2", "MUFU ex2.approx.ftz.f32 x = 2^-x"),
    ):
        kernel = _kernel(COMPUTE_SOURCE, f"{kernel_name}<{ALU_CHAINS}, {ALU_STEPS}>")
        ops_per_iter = ALU_CTAS_PER_SM * ALU_THREADS * ALU_CHAINS * ALU_STEPS  # per SM
        iters = b.iterations(ops_per_iter, ASSUMED_PER_SM_PER_CLK[unit])
        out[name] = b.time(
            lambda cycles, kernel=kernel, iters=iters: kernel(
                (ctas,), (ALU_THREADS,), (seed, np.int32(iters), np.uint32(KEY), b.sink, cycles)
            ),
            ctas,
            float(b.sms * ops_per_iter * iters),
            unit,
            f"{description}: {ALU_CHAINS} independent chains per thread, {ALU_STEPS}-step unrolled body",
            {"ctas": ctas, "threads": ALU_THREADS, "chains": ALU_CHAINS, "steps": ALU_STEPS, "iters": iters},
        )
    return out


def bench_mma_sync(b: Bench) -> dict[str, dict[str, Any]]:
    ctas = b.sms * MMA_CTAS_PER_SM
    seed = _random_bf16_pairs(192, seed=6)
    variants = []
    for chains, steps in MMA_VARIANTS:
        kernel = _kernel(COMPUTE_SOURCE, f"mma_sync_rate<{chains}, {steps}>")
        flop_per_iter = MMA_CTAS_PER_SM * (MMA_THREADS // 32) * chains * steps * MMA_FLOP  # per SM
        iters = b.iterations(flop_per_iter, ASSUMED_PER_SM_PER_CLK["mma"])
        variants.append(
            b.time(
                lambda cycles, kernel=kernel, iters=iters: kernel(
                    (ctas,), (MMA_THREADS,), (seed, np.int32(iters), np.uint32(KEY), b.sink, cycles)
                ),
                ctas,
                float(b.sms * flop_per_iter * iters),
                "flop",
                f"mma.sync.m16n8k16 bf16 -> fp32, registers only, {chains} accumulator chains per warp, "
                f"{MMA_CTAS_PER_SM * MMA_THREADS // 32} warps per SM",
                {"ctas": ctas, "threads": MMA_THREADS, "chains": chains, "steps": steps, "iters": iters},
            )
        )
    return {"mma_sync_bf16": _best(variants)}


def bench_wgmma(b: Bench) -> dict[str, dict[str, Any]]:
    ctas = b.sms  # one CTA per SM (WGMMA_DYNAMIC_SMEM)
    seed = _random_bf16_pairs(4096, seed=7)
    variants = []
    for warpgroups, swizzle in WGMMA_CONFIGS if b.all_variants else WGMMA_CONFIGS[:2]:
        kernel = _kernel(WGMMA_SOURCE, f"wgmma_rate<{warpgroups}, {str(swizzle).lower()}>", WGMMA_DYNAMIC_SMEM)
        flop_per_iter = warpgroups * WGMMA_FLOP_PER_ITER  # per SM
        iters = b.iterations(flop_per_iter, ASSUMED_PER_SM_PER_CLK["wgmma"])
        variants.append(
            b.time(
                lambda cycles, kernel=kernel, warpgroups=warpgroups, iters=iters: kernel(
                    (ctas,),
                    (128 * warpgroups,),
                    (seed, np.int32(iters), np.uint32(KEY), b.sink, cycles),
                    shared_mem=WGMMA_DYNAMIC_SMEM,
                ),
                ctas,
                float(b.sms * flop_per_iter * iters),
                "flop",
                f"wgmma m64n256k16 bf16 -> fp32, A and B in shared memory "
                f"({'128-byte swizzle' if swizzle else 'no swizzle'}), {warpgroups} consumer warpgroup(s), "
                "1 CTA per SM, 4 instructions per commit group, one group in flight behind the running one",
                {"ctas": ctas, "warpgroups": warpgroups, "swizzle128": swizzle, "iters": iters},
            )
        )
    return {"wgmma_bf16": _best(variants)}


def bench_launch(b: Bench) -> dict[str, dict[str, Any]]:
    """Per-launch time of empty kernels, device-side (queued behind a spin kernel) and host-bound."""
    empty = _kernel(COMPUTE_SOURCE, "empty")
    spin = _kernel(COMPUTE_SOURCE, "spin")
    start, end = cp.cuda.Event(), cp.cuda.Event()
    spin_ns = 60_000_000  # 60 ms: far longer than the host needs to enqueue LAUNCHES launches (~10 us each)

    def device_side() -> float:
        spin((1,), (1,), (np.uint64(spin_ns),))
        start.record()
        for _ in range(LAUNCHES):
            empty((1,), (1,), ())
        end.record()
        end.synchronize()
        return float(cp.cuda.get_elapsed_time(start, end)) * 1e-3 / LAUNCHES

    def host_bound() -> float:
        start.record()
        for _ in range(LAUNCHES):
            empty((1,), (1,), ())
        end.record()
        end.synchronize()
        return float(cp.cuda.get_elapsed_time(start, end)) * 1e-3 / LAUNCHES

    device_side()  # warm-up: module load, first-launch costs
    repeats = 9 if b.all_variants else 3
    t_start = time.monotonic()
    device = [device_side() for _ in range(repeats)]
    t_end = time.monotonic()
    host = [host_bound() for _ in range(repeats)]
    return {
        "kernel_launch": {
            "description": f"{LAUNCHES} empty <<<1,1>>> launches on one stream, queued behind a 60 ms spin kernel "
            "(device-side gap per launch); host_bound_s: the same launches from Python with an idle GPU",
            "unit": "s",
            "per_launch_s": statistics.median(device),
            "host_bound_s": statistics.median(host),
            "clock_mhz": b.sampler.median_between(t_start, t_end),
            "runs": repeats,
            "config": {"launches": LAUNCHES, "spin_ns": spin_ns},
        }
    }


BENCHMARKS: tuple[Callable[[Bench], dict[str, dict[str, Any]]], ...] = (
    bench_launch,
    bench_hbm,
    bench_l2,
    bench_l2_copy,
    bench_smem,
    bench_alu,
    bench_mma_sync,
    bench_wgmma,
    bench_gemm,  # ~700 W like wgmma: after the light benchmarks, so that its heat cannot lower their clocks
    bench_l2_bulk,  # last: a copy-engine fault would stop the run after everything else is recorded
)


def measure(
    quick: bool = False, progress: Callable[[str, dict[str, Any]], object] | None = None, smoke: bool = False
) -> dict[str, Any]:
    """Run every benchmark on GPU 0; ``progress(name, result)`` is called as each result arrives. ``smoke``
    launches every kernel at a tiny size instead (a memory-checker run; its rates mean nothing).

    Returns ``{"gpu": facts, "benchmarks": {name: result}}``; a result's keys are described in the module
    docstring and in ``validation/h200/README.md``.
    """
    if cp is None:
        raise RuntimeError("cupy is not installed")
    now = datetime.datetime.now(datetime.timezone.utc)
    (power_limit,) = common.nvidia_smi("power.limit")
    facts = {**common.gpu_facts(), "power_limit_w": power_limit, "date": now.date().isoformat(), "utc": now.isoformat()}
    for source in kernel_names():
        if source != WGMMA_SOURCE or _has_wgmma():
            _module(source)  # compile before any timing
    sampler = common.ClockSampler()
    results: dict[str, dict[str, Any]] = {}
    try:
        bench = Bench("smoke" if smoke else "quick" if quick else "full", sampler)
        for benchmark in BENCHMARKS:
            if benchmark is bench_wgmma and not _has_wgmma():
                continue
            for name, result in benchmark(bench).items():
                results[name] = result
                if progress is not None:
                    progress(name, result)
            cp.get_default_memory_pool().free_all_blocks()  # the benchmark's buffers (GiB for HBM) are garbage now
    finally:
        sampler.close()
    facts["sm_clock_mhz_after"] = common.nvidia_smi("clocks.sm")[0]
    return {"gpu": facts, "benchmarks": results}


def _has_wgmma() -> bool:
    """wgmma exists on compute capability 9.0 only (sm_90a)."""
    return bool(cp.cuda.Device(0).compute_capability == "90")


UNIT_LABELS = {"bytes": "TB/s", "flop": "TFLOP/s", "fma": "T FMA/s", "ex2": "T ex2/s"}


def format_row(name: str, result: dict[str, Any]) -> str:
    """One line of the table ``main`` prints."""
    if name == "kernel_launch":
        device_us, host_us = result["per_launch_s"] * 1e6, result["host_bound_s"] * 1e6
        return f"{name:15s} {device_us:10.3f} us per launch on the device ({host_us:.2f} us host-bound)"
    if "skipped" in result:
        return f"{name:15s} skipped: {result['skipped']}"
    if "per_sm_per_clk_cycles" not in result:  # vendor code: no cycle counter
        return (
            f"{name:15s} {result['per_s'] / 1e12:9.3f} {UNIT_LABELS[result['unit']]:8s} at {result['clock_mhz']:5.0f} "
            f"MHz (nvidia-smi) | {result['time_ms']:.4f} ms x {result['runs']} | {result.get('variant', '')}"
        )
    return (
        f"{name:15s} {result['per_s'] / 1e12:9.3f} {UNIT_LABELS[result['unit']]:8s}"
        f"{result['per_sm_per_clk_cycles']:9.2f} /clk/SM at {result['kernel_clock_mhz']:5.0f} MHz (cycle counter)"
        f"{result['per_sm_per_clk']:9.2f} at {result['clock_mhz']:5.0f} MHz (nvidia-smi) | "
        f"{result['time_ms']:.3f} ms x {result['runs']}"
    )


def main(out_dir: str, quick: bool = False) -> dict[str, Any]:
    """Measure, write ``calibration.json`` (rewritten after every benchmark, so a crash keeps what was measured)
    and the calibrated arch ``calibration.yaml`` into ``out_dir``, and print a table. Returns the measurements."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    partial: dict[str, Any] = {}

    def progress(name: str, result: dict[str, Any]) -> None:
        partial[name] = result
        (out / "calibration.json").write_text(json.dumps({"benchmarks": partial}, indent=1))
        print(format_row(name, result), flush=True)

    measured = measure(quick, progress)
    (out / "calibration.json").write_text(json.dumps(measured, indent=1))
    print("gpu:", json.dumps(measured["gpu"]), flush=True)
    try:  # simgpu (pydantic) is absent on a bare GPU machine: then make the YAML from the JSON elsewhere
        from simgpu.calibration import base_arch_for, write_calibrated_arch
    except ImportError as err:
        print(f"calibration.yaml not written ({err}); run simgpu.calibration.write_calibrated_arch on the JSON")
    else:
        path = write_calibrated_arch(measured, base_arch_for(measured["gpu"]["gpu_name"]), out / "calibration.yaml")
        print(f"wrote {path}")
    return measured


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory for calibration.json (and calibration.yaml)")
    parser.add_argument("--quick", action="store_true", help="shorter kernels and fewer variants")
    parser.add_argument("--smoke", action="store_true", help="every kernel once at a tiny size (compute-sanitizer)")
    args = parser.parse_args()
    if args.smoke:
        for name, result in measure(smoke=True)["benchmarks"].items():
            print(format_row(name, result))
    else:
        main(args.out, args.quick)
    sys.exit(0)

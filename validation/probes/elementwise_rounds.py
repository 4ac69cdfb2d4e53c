"""Device probe: how many dependent memory round trips a thread of an elementwise kernel makes, and what they cost.

PyTorch's non-vectorized `elementwise_kernel<128, 4>` (its `masked_fill_` and strided copies) takes 4 elements a
thread and, its stores going through pointers that may alias its next loads, loads, computes and stores them one
after the other: 4 round trips to memory where a vectorized kernel makes one. `elementwise_rounds.cu` runs the same
in-place masked fill (fp16 scores of GPT-2 medium's attention, 64 x 16 heads of 1024 x 1024, and a 1 MiB boolean mask
that every head shares) in six forms: `serial<VT>` (VT round trips a thread, CTAs of 128 x VT elements) for VT = 1,
4, 32, `hoisted<VT>` (the loads first: one round trip) for VT = 4, 32, and `vec8` (16-byte loads, 8 elements a thread);
and a fill of the same tensor in two-byte stores (`store_narrow`, 4 a thread) and in 16-byte stores (`store_vec8`).

`PYTHONPATH=. python3 validation/probes/elementwise_rounds.py OUT` writes `elementwise_rounds_h200.csv`: per form,
its grid, the median time of the timed runs (CUDA events) and the SM clock counted beside them (`ClockTrace`), and
Nsight Compute's DRAM bytes, executed warp instructions (all, and on the ALU and FMA pipes) and achieved occupancy
of one launch (`--target` runs each form once under ncu); `gpu_elementwise_rounds.csv`: the GPU's facts.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "elementwise_rounds.cu"
ELEMENTS = 64 * 16 * 1024 * 1024  # B x H x N x N at GPT-2 medium's shape
MASK_BYTES = 1024 * 1024  # N x N, one byte each
THREADS = 128
# form -> (kernel name expression, elements a CTA)
FORMS = {
    "serial_1": ("serial<1>", THREADS),
    "serial_4": ("serial<4>", 4 * THREADS),
    "serial_32": ("serial<32>", 32 * THREADS),
    "hoisted_4": ("hoisted<4>", 4 * THREADS),
    "hoisted_32": ("hoisted<32>", 32 * THREADS),
    "vec8": ("vec8", 8 * THREADS),
    "store_narrow": ("store_narrow", 4 * THREADS),
    "store_vec8": ("store_vec8", 8 * THREADS),
}
METRICS = (
    "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,"
    "sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,"
    "sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second"
)


def setup() -> tuple[dict[str, object], object, object]:
    names = [name for name, _ in FORMS.values()]
    module = cp.RawModule(code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS, name_expressions=names)
    kernels = {form: module.get_function(name) for form, (name, _) in FORMS.items()}
    scores = cp.random.standard_normal(ELEMENTS, dtype=cp.float32).astype(cp.float16)
    ones = cp.ones((1024, 1024), dtype=cp.bool_)
    mask = cp.triu(ones, k=1).astype(cp.uint8).ravel()
    return kernels, scores, mask


def launch(kernel: object, per_cta: int, scores: object, mask: object) -> None:
    args = (scores, mask, np.uint32(MASK_BYTES - 1), np.float16(-10000.0))
    kernel((ELEMENTS // per_cta,), (THREADS,), args)  # type: ignore[operator]


def main() -> None:
    kernels, scores, mask = setup()
    if sys.argv[1] == "--target":
        for form, (_, per_cta) in FORMS.items():
            launch(kernels[form], per_cta, scores, mask)
        cp.cuda.runtime.deviceSynchronize()
        return
    out = Path(sys.argv[1])
    profiled = common.ncu_self_metrics(__file__, "^(serial|hoisted|vec8|store_)", METRICS)
    clock = common.ClockTrace()
    rows = []
    for (form, (_, per_cta)), metrics in zip(FORMS.items(), profiled, strict=True):
        run = functools.partial(launch, kernels[form], per_cta, scores, mask)
        timing = common.time_gpu(run, clock=clock)
        row = {"form": form, "ctas": ELEMENTS // per_cta, "elements_per_cta": per_cta, "median_ms": timing.median_ms,
               "p10_ms": timing.p10_ms, "p90_ms": timing.p90_ms, "runs": timing.runs,
               "probe_clock_mhz": timing.probe_clock_mhz, **metrics}  # fmt: skip
        print(row, flush=True)
        rows.append(row)
    common.write_rows(out / "elementwise_rounds_h200.csv", rows)
    common.write_gpu_facts(out / "gpu_elementwise_rounds.csv")


if __name__ == "__main__":
    main()

"""Device probe: do two warpgroups running our FA3 consumer's softmax side by side keep the offset they start with?

Our kernel's consumers, without ping-pong, settle within a few key tiles into fixed offsets (`v3_offset_trace.py`):
at d = 64 with intra-warpgroup overlap into lockstep from most starts. Two warpgroups' whole softmaxes looping at
once take 1345 cycles per iteration (`v3_softmax_groups.py`): about the row-max passes of both (269) plus the exp
passes of both (1066) one after the other, as if the two ran in step. This probe (`softmax_offset.cu`: one CTA on
one SM, the second warpgroup `delay` cycles after the first, no barrier between them, 48 iterations) stamps every
iteration's start, so the rows show the offset between the two iteration by iteration, with nothing but the SM's
pipes and issue slots coupling them. Writes softmax_offset_h200.csv: per delay, warpgroup and iteration, the median
over repeated launches of the stamp's cycles after warpgroup 0's first. Run on the GPU machine from the repository
root: `PYTHONPATH=. python3 validation/probes/softmax_offset.py OUT`.

With `--passes` it runs `softmax_offset_passes` instead: four stamps per iteration (start, end of the row-max pass,
end of the exp pass, end of the packing), and warpgroup 1 looping over the whole softmax (part 0), only the exp pass
and the packing (1), only the row-max pass (2) or nothing (3: warpgroup 0 alone). Writes
softmax_offset_passes_h200.csv: per part, delay, warpgroup, iteration and stamp, the median over the launches of the
stamp's cycles after warpgroup 0's first. The stamps slow the loop (see softmax_offset.cu).
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np

from cupy_kernels import common
from cupy_kernels.v3 import launch

SOURCE = Path(__file__).resolve().parent / "softmax_offset.cu"
ITERS = 48
REPEATS = 21
DELAYS = (0, 64, 128, 256, 384, 512, 768, 1024)
PASS_STAMPS = 4  # softmax_offset.cu's stamps per iteration in softmax_offset_passes
PARTS = (0, 1, 2, 3)  # what warpgroup 1 loops over: the whole softmax, the exp pass, the row-max pass, nothing


def main() -> None:
    out_dir = Path(sys.argv[1])
    module = cp.RawModule(code=common.load_source(SOURCE), options=launch.NVRTC_OPTIONS)
    scores = cp.random.default_rng(0).standard_normal(4096, dtype=cp.float32) * 4  # as v3_softmax_groups.py
    if "--passes" in sys.argv[2:]:
        passes(module.get_function("softmax_offset_passes"), scores, out_dir / "softmax_offset_passes_h200.csv")
        return
    kernel = module.get_function("softmax_offset")
    stamps = cp.zeros(2 * (ITERS + 1), dtype=cp.int64)
    sink = cp.zeros(256, dtype=cp.float32)
    rows: list[dict[str, object]] = []
    for delay in DELAYS:
        median = median_stamps(kernel, (scores, np.int32(delay), stamps, sink), stamps)
        for wg in range(2):
            for it in range(ITERS + 1):
                rows.append({"delay": delay, "warpgroup": wg, "iteration": it, "cycles": float(median[wg, it])})
        offsets = median[1] - median[0]
        print(f"delay {delay}: offsets {' '.join(f'{o:.0f}' for o in offsets[::6])}", flush=True)
    common.write_rows(out_dir / "softmax_offset_h200.csv", rows)
    print("gpu:", common.gpu_facts())


def median_stamps(kernel: cp.RawKernel, args: tuple[object, ...], stamps: cp.ndarray) -> np.ndarray:
    """Each warpgroup's stamps (a row each) in cycles after warpgroup 0's first, the median over `REPEATS` launches
    of one CTA but the first."""
    runs = []
    for _ in range(REPEATS):
        kernel((1,), (256,), args)
        t = stamps.get().reshape(2, -1).astype(np.float64)
        runs.append(t - t[0, 0])
    return np.median(np.array(runs[1:]), axis=0)


def passes(kernel: cp.RawKernel, scores: cp.ndarray, out: Path) -> None:
    """The `--passes` mode: four stamps per iteration, warpgroup 1 running each of `PARTS`; rows to `out`."""
    per_wg = ITERS * PASS_STAMPS + 1
    stamps = cp.zeros(2 * per_wg, dtype=cp.int64)
    sink = cp.zeros(256, dtype=cp.float32)
    rows: list[dict[str, object]] = []
    for part in PARTS:
        for delay in DELAYS:
            median = median_stamps(kernel, (scores, np.int32(delay), np.int32(part), stamps, sink), stamps)
            for wg in range(2):
                for n in range(per_wg):
                    rows.append(
                        {
                            "part": part,
                            "delay": delay,
                            "warpgroup": wg,
                            "iteration": n // PASS_STAMPS,
                            "stamp": n % PASS_STAMPS,
                            "cycles": float(median[wg, n]),
                        }
                    )
            late = median[:, PASS_STAMPS * 8 : PASS_STAMPS * ITERS]  # from iteration 8 on, settled
            gaps = np.diff(late.reshape(2, -1, PASS_STAMPS), axis=2).mean(axis=1)
            period = (median[:, -1] - median[:, PASS_STAMPS * 8]) / (ITERS - 8)
            print(
                f"part {part} delay {delay}: period {period.round(0)} max/exp/pack wg0 {gaps[0].round(0)} "
                f"wg1 {gaps[1].round(0)} offset {median[1, PASS_STAMPS * 24] - median[0, PASS_STAMPS * 24]:.0f}",
                flush=True,
            )
    common.write_rows(out, rows)
    print("gpu:", common.gpu_facts())


if __name__ == "__main__":
    main()

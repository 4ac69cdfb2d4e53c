"""Device probe: when does L2 write a store's bytes to DRAM, and what does a kernel that follows stores pay?
(`l2_writeback.cu`)

The model's L2 (`simgpu.units.l2`) is write-back: a store leaves its tile dirty, and HBM is written when the tile is
evicted or, untimed, when the run ends. FA2's backward row kernels (Delta with the dQ accumulator zeroed; the dQ
conversion) are predicted 23-41% short, and Nsight Compute saw the Delta kernel write nearly all of its stores to DRAM
within the kernel (`validation/h200/README.md`, nineteenth session), but with several metric passes, which save and
restore memory. This probe asks with plain timings and with single-pass DRAM counters.

`time OUT`: CUDA-event timings (median of repeated runs, `common.time_gpu`) per buffer size of: 16-byte stores over
the buffer after L2 was left clean (a read of 4x L2) or dirty (a fill of 4x L2); its sum read cold, right after a sum
of it, right after a fill of it; FA2's Delta pattern (two inputs of half the size read, the buffer zeroed); fp32
reductions (RED) over it, once and four times per element; a fill and a sum in one timed window. Writes
`l2_writeback_time_h200.csv`.
`ncu-target OUT`: runs a labelled sequence once (for `l2_writeback.sh`, which profiles it with DRAM read and write
bytes and the duration per kernel, caches and clocks left alone) and writes the labels, in launch order, to
`ncu_sequence.txt`. `parse OUT`: joins `ncu.csv` (Nsight Compute's output) with the labels into
`l2_writeback_ncu_h200.csv`. `capacity-target OUT` / `parse-capacity OUT`: the same for a second sequence, a buffer
of 24-64 MiB read twice after L2 was left clean and read right after it was stored (how much of a re-read hits as
the buffer nears L2's capacity: `l2_capacity_ncu_h200.csv`). Run on the GPU machine from the repository root:
`bash validation/probes/l2_writeback.sh OUT` (`--capacity`: the second sequence only).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import cupy as cp

from cupy_kernels import common

SOURCE = Path(__file__).resolve().parent / "l2_writeback.cu"
MIB = 1 << 20
TIMED_SIZES_MIB = (8, 16, 32, 48, 64, 96, 128, 256)
NCU_SIZES_MIB = (16, 32, 128)
CAPACITY_SIZES_MIB = (24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64)
THREADS = 256


class Probe:
    """The kernels, the buffers of one size (`bytes_`: the stored buffer; Delta reads two of half its size), and a
    buffer of 4x L2 whose read leaves L2 clean and whose fill leaves it dirty."""

    def __init__(self, max_bytes: int) -> None:
        module = cp.RawModule(code=common.load_source(SOURCE), options=common.NVRTC_OPTIONS)
        self.fill_k, self.sum_k, self.red_k, self.delta_k = (
            module.get_function(f"l2wb_{name}") for name in ("fill", "sum", "red", "delta")
        )
        self.sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
        self.l2_bytes = int(cp.cuda.runtime.getDeviceProperties(0)["l2CacheSize"])
        self.big = cp.ones(4 * self.l2_bytes // 4, dtype=cp.float32)
        self.buf = cp.ones(max_bytes // 4, dtype=cp.float32)
        self.inputs = cp.ones(max_bytes // 4, dtype=cp.float32)  # Delta's two inputs, each half of it
        self.out = cp.zeros(1, dtype=cp.float32)

    def grid(self) -> tuple[int]:
        return (8 * self.sms,)

    def fill(self, nbytes: int, buf: cp.ndarray | None = None) -> None:
        target = self.buf if buf is None else buf
        self.fill_k(self.grid(), (THREADS,), (target, cp.uint64(nbytes // 16), cp.float32(1.0)))

    def sum(self, nbytes: int, buf: cp.ndarray | None = None) -> None:
        target = self.buf if buf is None else buf
        self.sum_k(self.grid(), (THREADS,), (target, cp.uint64(nbytes // 16), self.out))

    def red(self, nbytes: int, reps: int) -> None:
        self.red_k(self.grid(), (THREADS,), (self.buf, cp.uint64(nbytes // 4), cp.int32(reps)))

    def delta(self, nbytes: int) -> None:
        half = nbytes // 2
        a, b = self.inputs[: half // 4], self.inputs[half // 4 : nbytes // 4]
        self.delta_k(self.grid(), (THREADS,), (a, b, self.buf, cp.uint64(half // 16), self.out))

    def clean(self) -> None:
        self.sum(self.big.nbytes, self.big)

    def dirty(self) -> None:
        self.fill(self.big.nbytes, self.big)


def cases(p: Probe, n: int) -> dict[str, tuple[Callable[[], None], Callable[[], None], float]]:
    """Per case: (before, timed run, bytes the run moves at least once)."""

    def seq(*steps: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            for step in steps:
                step()

        return run

    return {
        "fill_after_clean": (p.clean, lambda: p.fill(n), n),
        "fill_after_dirty": (p.dirty, lambda: p.fill(n), n),
        "sum_cold": (p.clean, lambda: p.sum(n), n),
        "sum_after_sum": (seq(p.clean, lambda: p.sum(n)), lambda: p.sum(n), n),
        "sum_after_fill": (seq(p.clean, lambda: p.fill(n)), lambda: p.sum(n), n),
        "delta_after_clean": (p.clean, lambda: p.delta(n), 2 * n),
        "red1_after_clean": (p.clean, lambda: p.red(n, 1), n),
        "red4_after_clean": (p.clean, lambda: p.red(n, 4), n),
        "fill_then_sum": (p.clean, seq(lambda: p.fill(n), lambda: p.sum(n)), 2 * n),
    }


def run_timed(out_dir: Path) -> None:
    p = Probe(max(TIMED_SIZES_MIB) * MIB)
    rows = []
    for mib in TIMED_SIZES_MIB:
        n = mib * MIB
        for name, (before, run, moved) in cases(p, n).items():
            timing = common.time_gpu(run, before=before, warmup=3, min_runs=20, max_runs=200, target_s=0.3)
            rows.append({
                "case": name, "mib": mib, "l2_mib": p.l2_bytes / MIB, "median_us": timing.median_ms * 1e3,
                "p10_us": timing.p10_ms * 1e3, "p90_us": timing.p90_ms * 1e3, "runs": timing.runs,
                "tb_per_s_at_median": moved / (timing.median_ms * 1e-3) / 1e12,
            })  # fmt: skip
            print(rows[-1], flush=True)
    common.write_rows(out_dir / "l2_writeback_time_h200.csv", rows)
    print("gpu:", common.gpu_facts())


class Steps:
    """A labelled sequence of launches for ncu: each launch waited for, its label kept in launch order."""

    def __init__(self) -> None:
        self.labels: list[str] = []

    def __call__(self, label: str, launch: Callable[..., None], *args: int) -> None:
        launch(*args)
        cp.cuda.Device().synchronize()
        self.labels.append(label)

    def write(self, out_dir: Path, name: str) -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"{name}_sequence.txt").write_text("\n".join(self.labels) + "\n")


def run_ncu_target(out_dir: Path) -> None:
    p = Probe(max(NCU_SIZES_MIB) * MIB)
    step = Steps()
    for mib in NCU_SIZES_MIB:
        n = mib * MIB
        step(f"{mib} clean", p.clean)
        step(f"{mib} fill", p.fill, n)
        step(f"{mib} sum after fill", p.sum, n)
        step(f"{mib} sum again", p.sum, n)
        step(f"{mib} clean after sums", p.clean)
        step(f"{mib} fill", p.fill, n)
        time.sleep(0.05)  # the GPU idle 50 ms after the stores
        step(f"{mib} clean 50 ms after fill", p.clean)
        step(f"{mib} red x1", p.red, n, 1)
        step(f"{mib} clean after red x1", p.clean)
        step(f"{mib} red x4", p.red, n, 4)
        step(f"{mib} sum after red x4", p.sum, n)
        step(f"{mib} clean after red x4", p.clean)
        step(f"{mib} delta", p.delta, n)
        step(f"{mib} clean after delta", p.clean)
    step.write(out_dir, "ncu")


def run_capacity_target(out_dir: Path) -> None:
    """For ncu: per size, a buffer read twice after L2 was left clean, and read once right after it was stored:
    how much of a re-read hits as the buffer nears L2's capacity (`capacity_sequence.txt`)."""
    p = Probe(max(CAPACITY_SIZES_MIB) * MIB)
    step = Steps()
    for mib in CAPACITY_SIZES_MIB:
        n = mib * MIB
        step(f"{mib} clean", p.clean)
        step(f"{mib} sum", p.sum, n)
        step(f"{mib} sum again", p.sum, n)
        step(f"{mib} clean", p.clean)
        step(f"{mib} fill", p.fill, n)
        step(f"{mib} sum after fill", p.sum, n)
    step.write(out_dir, "capacity")


def parse(out_dir: Path, name: str = "", csv_name: str = "l2_writeback_ncu_h200.csv") -> None:
    labels = (out_dir / f"{name or 'ncu'}_sequence.txt").read_text().splitlines()
    launches = common.ncu_metrics((out_dir / f"{name or 'ncu'}.csv").read_text())
    if launches is None or len(launches) != len(labels):
        raise SystemExit(f"ncu gave {0 if launches is None else len(launches)} launches for {len(labels)} labels")
    rows = [{"step": label, **metrics} for label, metrics in zip(labels, launches, strict=True)]
    common.write_rows(out_dir / csv_name, rows)
    for row in rows:
        print(row)


def parse_capacity(out_dir: Path) -> None:
    parse(out_dir, "capacity", "l2_capacity_ncu_h200.csv")


def main() -> None:
    mode, out_dir = sys.argv[1], Path(sys.argv[2])
    modes = {"time": run_timed, "ncu-target": run_ncu_target, "parse": parse}
    modes |= {"capacity-target": run_capacity_target, "parse-capacity": parse_capacity}
    modes[mode](out_dir)


if __name__ == "__main__":
    main()

"""The probe's eight forms of an in-place masked fill (`validation/probes/elementwise_rounds.py`) against the model.

Each form runs as a `rowwise_kernel` over GPT-2 medium's scores (64 x 16 heads of 1024 x 1024 fp16, a 1 MiB boolean
mask that every head shares), 4 rows a CTA of 128 threads (a form's smaller CTAs are not launched as such), with the
form's loads per round (`lane_elements`), its registers (ptxas) and its lane ops per element as Nsight Compute counted
them (`validation/h200/elementwise_rounds/elementwise_rounds_h200.csv`), in exact mode on the h200 arch at the SM
clock counted beside the timed runs. Run from the repository root:
`python docs/results/elementwise_rounds/vs_model.py > docs/results/elementwise_rounds/vs_model.txt`.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

from algorithms.standard.kernels import Operand, rowwise_kernel
from algorithms.standard.pytorch import lane_ops
from algorithms.standard.schedule import config
from simgpu import Problem, load_arch
from simgpu.engine import Engine
from simgpu.kernel import Kernel
from simgpu.ops import Load, Vector

MEASURED = Path("validation/h200/elementwise_rounds/elementwise_rounds_h200.csv")
GPU = MEASURED.with_name("gpu_elementwise_rounds.csv")
ELEMENTS = 64 * 16 * 1024 * 1024  # B x H x N x N
Ops = Callable[[int, int], Vector]
# form -> (elements a thread loads before it waits, registers per thread from ptxas.txt, whether it reads S and the
# mask: the stores-only forms fill S)
FORMS = {
    "serial_1": (1, 12, True),
    "serial_4": (1, 24, True),
    "serial_32": (1, 24, True),
    "hoisted_4": (4, 22, True),
    "hoisted_32": (32, 128, True),
    "vec8": (8, 17, True),
    "store_narrow": (None, 16, False),
    "store_vec8": (None, 10, False),
}


PROBLEM = Problem(64, 16, 1024, 64, causal=True, dtype="fp16")


def fill_kernel(reads: bool, registers: int, lane_elements: int | None, ops: Ops) -> Kernel:
    """The form as a row-wise kernel over GPT-2's scores, as `algorithms.standard.pytorch` builds PyTorch's."""
    operands = (Operand("S"), Operand("mask", 1, shared=True)) if reads else ()
    cfg = config(PROBLEM, {"framework": "pytorch"})
    return rowwise_kernel(
        "fill", PROBLEM, cfg, operands, (Operand("Sm"),), ops, registers=registers, lane_elements=lane_elements
    )


def rounds(kernel: Kernel) -> int:
    """The round trips of the loads of the kernel's first CTA (1 without loads)."""
    ops = kernel.roles[0].program(kernel.tiles[0])
    return max((op.rounds for op in ops if isinstance(op, Load)), default=1)


def model_ms(kernel: Kernel, clock_hz: float) -> tuple[float, float]:
    """The kernel's time (ms) and HBM reads (bytes) in exact mode on the h200 arch at `clock_hz`."""
    stats = Engine(load_arch("h200"), clock_hz).run((kernel,))
    return stats.cycles / clock_hz * 1e3, stats.hbm_read_bytes


def main() -> None:
    gpu = next(csv.DictReader(GPU.open()))
    print(f"measured: {gpu['gpu_name']}, max SM clock {gpu['max_sm_clock_mhz']} MHz, driver {gpu['driver']}")
    header = f"{'form':12} {'rounds':>6} {'model ms':>9} {'one round':>9} {'measured':>9} {'error':>7}"
    print(f"{header}  DRAM read model / measured GB")
    for row in csv.DictReader(MEASURED.open()):
        lane_elements, registers, reads = FORMS[row["form"]]
        moved_bytes = 5 if reads else 2  # per element: S read and written (2 + 2) and the mask read (1), or S written
        alu_pipe, fma_pipe, issued = (
            float(row[name])
            for name in ("sm__inst_executed_pipe_alu.sum", "sm__inst_executed_pipe_fma.sum", "smsp__inst_executed.sum")
        )
        alu, fma, _, other = lane_ops(alu_pipe, fma_pipe, 0.0, issued, ELEMENTS, moved_bytes)

        def ops(rows: int, cols: int, alu: float = alu, fma: float = fma, other: float = other) -> Vector:
            return Vector(fma=fma * rows * cols, alu=alu * rows * cols, issue=other * rows * cols)

        clock_hz = float(row["probe_clock_mhz"]) * 1e6
        kernel = fill_kernel(reads, registers, lane_elements, ops)
        ms, read_bytes = model_ms(kernel, clock_hz)
        # The same form loaded in one round (the model before `Load.rounds`), where it makes more.
        one_round = (
            f"{model_ms(fill_kernel(reads, registers, None, ops), clock_hz)[0]:9.3f}"
            if rounds(kernel) > 1
            else f"{'':9}"
        )
        measured_ms = float(row["median_ms"])
        print(
            f"{row['form']:12} {rounds(kernel):6} {ms:9.3f} {one_round} {measured_ms:9.3f} "
            f"{ms / measured_ms - 1:+7.1%}  {read_bytes / 1e9:.2f} / {float(row['dram__bytes_read.sum']) / 1e9:.2f}"
        )


if __name__ == "__main__":
    main()

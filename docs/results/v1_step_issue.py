"""The warp instructions the v1 schedule's release forward issues per warp in a middle key block's middle query step,
by op, as the SM model counts them (`simgpu.sm`: an elementwise op's and an MMA's plans, smem and copies at 16 bytes
per lane), at d = 64 (N = 1k) and d = 128 (N = 4k), the two shapes Nsight Compute profiled of FA1's released kernel
(`docs/results/fa1_sass_counts.txt`: 553.6 and 657.4 executed per warp and middle step). The H100 file.

Run: `python docs/results/v1_step_issue.py` (output: `docs/results/v1_step_issue.txt`).
"""

from __future__ import annotations

from algorithms.v1.schedule import config, forward_kernel
from simgpu import Problem, load_arch
from simgpu.engine import Engine
from simgpu.ops import Load, Mma, Repeat, Smem, Store, Vector
from simgpu.sm import VECTOR_BYTES_PER_LANE, WARP_LANES


def main() -> None:
    sm = Engine(load_arch("h100"), sms=1).sms[0]
    for headdim, seqlen in ((64, 1024), (128, 4096)):
        problem = Problem(1, 1, seqlen, headdim)
        kernel = forward_kernel(problem, config(problem, {}))
        warps = kernel.roles[0].warps
        key_blocks = [op for op in kernel.roles[0].program(kernel.tiles[0]) if isinstance(op, Repeat)][-1]
        steps = next(op for op in key_blocks.body(1) if isinstance(op, Repeat))
        total = 0.0
        for op in steps.body(steps.count // 2):
            if isinstance(op, Vector):
                slots = sm._elementwise_plan_of(op, warps)[0]
            elif isinstance(op, Mma):
                slots = sm._mma_plan_of(op, warps).instructions
            elif isinstance(op, Smem):
                slots = (op.read_bytes + op.write_bytes) / VECTOR_BYTES_PER_LANE / WARP_LANES
            elif isinstance(op, Load | Store):
                slots = op.nbytes / VECTOR_BYTES_PER_LANE / WARP_LANES
            else:
                continue
            total += slots / warps
            print(f"  d={headdim} {type(op).__name__:6} {slots / warps:6.1f}")
        print(f"d={headdim}: {total:.1f} warp instructions per warp and step")


if __name__ == "__main__":
    main()

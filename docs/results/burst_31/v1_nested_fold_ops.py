"""v1 on an H100 cut to 8 SMs, 2 x 2 heads, d = 64: fast mode with its nested query loops folded against with them
whole (`tests/core/test_fast_speed.py`): the ops each simulates, the cycle ratio and whether the HBM bytes agree.

`python docs/results/burst_31/v1_nested_fold_ops.py`
"""

import functools

import simgpu.fast_plan
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import DEFAULT_EVENT_BUDGET
from simgpu.fast import run_fast
from simgpu.fold import FoldSpec


def main() -> None:
    folding = simgpu.fast_plan.FoldSpec
    arch = load_arch("h100", {"sms": 8})
    print("seqlen pass causal folded_ops whole_ops cycles_folded_over_whole hbm_read_equal hbm_write_equal")
    for seqlen in (2048, 3072):
        for pass_ in ("fwd", "bwd"):
            for causal in (False, True):
                kernels = schedule(arch, "v1", Problem(2, 2, seqlen, 64, causal=causal, pass_=pass_), {})
                simgpu.fast_plan.FoldSpec = folding  # type: ignore[misc]
                folded = run_fast(arch, kernels, arch.clock_hz, DEFAULT_EVENT_BUDGET)
                simgpu.fast_plan.FoldSpec = functools.partial(FoldSpec, nested=False)  # type: ignore[misc]
                whole = run_fast(arch, kernels, arch.clock_hz, DEFAULT_EVENT_BUDGET)
                simgpu.fast_plan.FoldSpec = folding  # type: ignore[misc]
                print(
                    seqlen,
                    pass_,
                    causal,
                    folded.ops,
                    whole.ops,
                    f"{folded.cycles / whole.cycles:.5f}",
                    folded.hbm_read_bytes == whole.hbm_read_bytes,
                    folded.hbm_write_bytes == whole.hbm_write_bytes,
                )


if __name__ == "__main__":
    main()

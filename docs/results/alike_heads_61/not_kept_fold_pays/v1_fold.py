"""The fold of v1's forward at the speed benchmark's 1k-token shape on the A100 (16 x 16 heads, d = 128): the loop
iterations its folded tile keeps (`executed`: top-level, then nested per kind) and holds (`full`), and the fit's
sides. `python docs/results/alike_heads_61/not_kept_fold_pays/v1_fold.py`."""

from __future__ import annotations

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel


def main() -> None:
    arch = load_arch("a100")
    for kernel in schedule(arch, "v1", Problem(16, 16, 1024, 128, pass_="fwd"), {}):
        plan = plan_kernel(arch, kernel)
        for n, shape in plan.folded.items():
            print(f"{kernel.name} shape {n}: executed {shape.executed} (sum {sum(shape.executed)}), full {shape.full}"
                  f" (sum {sum(shape.full)}), sides {plan.sides}")  # fmt: skip


if __name__ == "__main__":
    main()

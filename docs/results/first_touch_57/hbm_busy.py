"""The LPT case's HBM in both modes: v3's persistent causal forward on the whole H100 at 32 x 16 x 512, d = 128. Exact
and fast mode's HBM busy fraction over the run, and fast mode's miss shares of K's and V's first loads per tensor as
the replay counted them (labelled per kind where it labels). Run once per checkout:
`PYTHONPATH=CHECKOUT python docs/results/first_touch_57/hbm_busy.py` (before: a worktree of c53a245)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.fast import plan_fast


def main() -> None:
    arch = load_arch("h100")
    problem = Problem(32, 16, 512, 128, causal=True)
    for mode in ("exact", "fast"):
        result = simulate(arch, "v3", problem, mode=mode)
        print(f"{mode}: {result.cycles:,.0f} cycles, HBM busy {result.busy['hbm']:.3f}")
    planned = plan_fast(arch, schedule(arch, "v3", problem, {}))
    for name, share in sorted(planned.shares[0].items()):
        if name.partition("#")[0] in ("K", "V"):
            print(f"  {name}: first loads missed {share.load:.3f}")


if __name__ == "__main__":
    main()

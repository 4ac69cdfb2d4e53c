"""The A100's standard backward at 2 x 16 x 1024, d = 128, its dV kernel: the representative's first and further tile
(one CTA) at several bandwidth settings (burst share for the requests before its first data, share for the rest, as
fractions of the chip's), and its demand alone with the busy shares it gives: `python representative_probe.py`."""

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast import plan_fast
from simgpu.fast_costs import _busy_shares, _representative, metric_names

SETTINGS = (
    (1.0, 1.0),
    (1 / 108, 0.0162),
    (0.0162, 0.0162),
    (1 / 108, 1 / 108),
    (1 / 108, 1.0),
    (0.02, 0.02),
    (0.03, 0.03),
)


def main() -> None:
    arch = load_arch("a100")
    planned = plan_fast(arch, schedule(arch, "standard", Problem(2, 16, 1024, 128, pass_="bwd"), {}))
    plan, shares = planned.plans[0], planned.shares[0]
    base = plan.representative(plan.kinds[0])
    names = metric_names(arch)
    print("equal", 1 / 108)
    for burst, share in SETTINGS:
        setting = (1, burst, share, 1 / 108)
        run = _representative(arch, plan, base, setting, arch.clock_hz, 10**9, shares, names, False, False)
        print(f"burst {burst:.4f} share {share:.4f}: first {run.vector[0]:.0f} further {run.vector[1]:.0f}")
    setting = (1, 1.0, 1.0, 1.0)
    alone = _representative(arch, plan, base, setting, arch.clock_hz, 10**9, shares, names, False, False)
    print("alone demand", alone.demand, "busy shares", _busy_shares(108, alone.demand))


if __name__ == "__main__":
    main()

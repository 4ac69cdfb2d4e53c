"""The H200 cut to `sms` SMs with its HBM's and L2's bandwidth and its L2's capacity cut in proportion: each SM
keeps the share of them it has on the whole chip (the scripts of this folder)."""

from simgpu import load_arch
from simgpu.arch import Arch


def scaled_h200(sms: int, **overrides: object) -> Arch:
    base = load_arch("h200")
    frac = sms / base.sms
    return load_arch(
        "h200",
        {
            "sms": sms,
            "hbm.bandwidth_bytes_per_s": base.hbm.bandwidth_bytes_per_s * frac,
            "l2.bandwidth_bytes_per_s": base.l2.bandwidth_bytes_per_s * frac,
            "l2.capacity_bytes": int(base.l2.capacity_bytes * frac),
            **overrides,
        },
    )

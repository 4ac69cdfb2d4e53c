"""Per kernel and tensor, the share of the bytes loaded that missed L2 in exact mode, beside the L2 replay's load
miss share (what fast mode times with), for standard attention's forward on a chip cut to SMS SMs.

`python miss_by_tensor.py ARCH BATCH HEADS SEQLEN HEADDIM SMS`; runs with SIMGPU_NATIVE=0 (it wraps the L2 model's
load, which compiled code calls directly).
"""

import sys
from collections import defaultdict
from collections.abc import Hashable

import simgpu.units.l2 as l2_model
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast


def main() -> None:
    arch_name = sys.argv[1]
    batch, heads, seqlen, headdim, sms = map(int, sys.argv[2:7])
    arch = load_arch(arch_name, overrides={"sms": sms})
    kernels = schedule(arch, "standard", Problem(batch, heads, seqlen, headdim), {})
    accessed: defaultdict[tuple[int, str], float] = defaultdict(float)
    missed: defaultdict[tuple[int, str], float] = defaultdict(float)
    running = [0]
    load = l2_model.L2.load

    def counted(self: l2_model.L2, now: float, key: Hashable, nbytes: float) -> l2_model.Access:
        access = load(self, now, key, nbytes)
        tensor = str(key[0] if isinstance(key, tuple) else key)
        accessed[running[0], tensor] += nbytes
        if not access.hit:
            missed[running[0], tensor] += nbytes
        return access

    l2_model.L2.load = counted  # type: ignore[method-assign]
    engine = Engine(arch)
    run_kernel = engine._run_kernel
    names = [kernel.name for kernel in kernels]

    def numbered(kernel, fit, start):  # type: ignore[no-untyped-def]
        running[0] = names.index(kernel.name)
        return run_kernel(kernel, fit, start)

    engine._run_kernel = numbered  # type: ignore[method-assign]
    engine.run(kernels)
    l2_model.L2.load = load  # type: ignore[method-assign]
    shares = plan_fast(arch, kernels).shares
    for (number, tensor), nbytes in sorted(accessed.items()):
        replayed = shares[number].get(tensor)
        print(
            f"  kernel {names[number]:14s} {tensor:6s} accessed {nbytes / 1e6:8.3f} MB exact miss share "
            f"{missed[number, tensor] / nbytes:.3f}  fast {replayed.load if replayed else None}"
        )


if __name__ == "__main__":
    main()

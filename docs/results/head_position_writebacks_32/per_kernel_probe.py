"""Exact mode per kernel beside the L2 replay's shares (runs with SIMGPU_NATIVE=0: it wraps the HBM and L2 models,
which compiled code calls directly).

`python per_kernel_probe.py hbm ARCH ALGO PASS B H N D [SMS]`: exact mode's HBM bytes read, written during the run
(timed) and written after it, per kernel; the replay's (load miss, written back) shares per kernel and tensor and its
bytes. `... miss ...`: per kernel and tensor, the share of the bytes loaded that missed L2 in exact mode beside the
replay's load miss shares (first access in a tile, and again).
"""

import sys
from collections import defaultdict
from collections.abc import Callable

import simgpu.units.hbm as hbm_model
import simgpu.units.l2 as l2_model
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.fast import plan_fast


def run_numbered(arch, kernels, patch: Callable[[list[int]], Callable[[], None]]) -> None:  # type: ignore[no-untyped-def]
    """Run `kernels` in exact mode with `patch(running)` applied (it returns its undo), `running[0]` holding the
    number of the kernel that runs."""
    running = [0]
    undo = patch(running)
    engine = Engine(arch)
    run_kernel = engine._run_kernel

    def numbered(kernel, fit, start):  # type: ignore[no-untyped-def]
        running[0] = kernels.index(kernel)
        return run_kernel(kernel, fit, start)

    engine._run_kernel = numbered  # type: ignore[method-assign]
    engine.run(kernels)
    undo()


def hbm(arch, kernels) -> None:  # type: ignore[no-untyped-def]
    moved: defaultdict[tuple[int, str], float] = defaultdict(float)
    read, write, untimed = hbm_model.Hbm.read, hbm_model.Hbm.write, hbm_model.Hbm.write_untimed

    def patch(running: list[int]) -> Callable[[], None]:
        def counted_read(self, now, nbytes):  # type: ignore[no-untyped-def]
            moved[running[0], "read"] += nbytes
            return read(self, now, nbytes)

        def counted_write(self, now, nbytes):  # type: ignore[no-untyped-def]
            moved[running[0], "write"] += nbytes
            return write(self, now, nbytes)

        def counted_untimed(self, nbytes):  # type: ignore[no-untyped-def]
            moved[running[0], "untimed"] += nbytes
            return untimed(self, nbytes)

        hbm_model.Hbm.read, hbm_model.Hbm.write = counted_read, counted_write  # type: ignore[method-assign]
        hbm_model.Hbm.write_untimed = counted_untimed  # type: ignore[method-assign]

        def undo() -> None:
            hbm_model.Hbm.read, hbm_model.Hbm.write, hbm_model.Hbm.write_untimed = read, write, untimed

        return undo

    run_numbered(arch, kernels, patch)
    for k, kernel in enumerate(kernels):
        print(
            "exact kernel",
            k,
            kernel.name,
            {key: f"{moved[k, key] / 1e6:.1f} MB" for key in ("read", "write", "untimed")},
        )
    print("exact untimed after", moved[len(kernels) - 1, "untimed"] / 1e6)
    planned = plan_fast(arch, kernels)
    for k, shares in enumerate(planned.shares):
        print("fast kernel", k, {t: (round(s.load, 3), round(s.written, 3)) for t, s in shares.items()})
    print("fast bytes_full (hbm read, write, timed, l2 r, l2 w) MB", [round(x / 1e6, 1) for x in planned.bytes_full])


def miss(arch, kernels) -> None:  # type: ignore[no-untyped-def]
    loaded: defaultdict[tuple[int, str], float] = defaultdict(float)
    missed: defaultdict[tuple[int, str], float] = defaultdict(float)
    load = l2_model.L2.load

    def patch(running: list[int]) -> Callable[[], None]:
        def counted(self, now, key, nbytes):  # type: ignore[no-untyped-def]
            access = load(self, now, key, nbytes)
            tensor = str(key[0] if isinstance(key, tuple) else key)
            loaded[running[0], tensor] += nbytes
            if not access.hit:
                missed[running[0], tensor] += nbytes
            return access

        l2_model.L2.load = counted  # type: ignore[method-assign]

        def undo() -> None:
            l2_model.L2.load = load  # type: ignore[method-assign]

        return undo

    run_numbered(arch, kernels, patch)
    shares = plan_fast(arch, kernels).shares
    for (k, t), nbytes in sorted(loaded.items()):
        s = shares[k].get(t)
        replayed = f"fast {s.load:.3f} again {s.load_again:.3f}" if s else "fast None"
        exact = f"exact miss {missed[k, t] / nbytes:.3f}"
        print(f"  kernel {k} {kernels[k].name:16s} {t:6s} loaded {nbytes / 1e6:8.3f} MB {exact}  {replayed}")


def main() -> None:
    mode, arch_name, algo, pass_ = sys.argv[1:5]
    batch, heads, seqlen, headdim = map(int, sys.argv[5:9])
    arch = load_arch(arch_name, {"sms": int(sys.argv[9])} if len(sys.argv) > 9 else {})
    kernels = schedule(arch, algo, Problem(batch, heads, seqlen, headdim, pass_=pass_), {})
    {"hbm": hbm, "miss": miss}[mode](arch, kernels)


if __name__ == "__main__":
    main()

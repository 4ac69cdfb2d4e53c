"""Counts the session's docstrings quote, from the code at hand (run as Python, `SIMGPU_NATIVE=0`, so that the replay's
functions can be wrapped): v2's forward at 128k tokens on the H100, its replayed tiles (tile copies and folds), their
records, distinct totals objects and keys per tile; standard attention's backward at 16k on the B200, its kernels'
shapes; v1's backward at 128k on the H100, the key blocks each fold of its tile removes.
`SIMGPU_NATIVE=0 python docs/results/copies_63/counts.py > docs/results/copies_63/counts.txt`."""

from __future__ import annotations

import collections
import sys

from simgpu import Problem, load_arch, simulate
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel

replay = sys.modules["simgpu.replay"]
fast_bytes = sys.modules["simgpu.fast_bytes"]
fold = sys.modules["simgpu.fold"]


def v2_forward() -> None:
    add_l2_bytes, accesses = replay._add_l2_bytes, fast_bytes._accesses

    def counted_accesses(arch, plan, tiles, keys):  # type: ignore[no-untyped-def]
        print("v2 fwd 128k H100, replayed tiles by type:", dict(collections.Counter(type(t).__name__ for t in tiles)))
        return accesses(arch, plan, tiles, keys)

    def counted_sums(l2_bytes, number, kernel):  # type: ignore[no-untyped-def]
        totals = kernel.totals
        print(
            f"  tiles {len(kernel.accesses)}, records {sum(len(a) for a in kernel.accesses)}, distinct totals objects"
            f" {len({id(t) for t in totals})}, keys per tile {sorted({len(t.bytes) for t in totals})}"
        )
        return add_l2_bytes(l2_bytes, number, kernel)

    replay._add_l2_bytes, fast_bytes._accesses = counted_sums, counted_accesses
    simulate(load_arch("h100"), "v2", Problem(1, 16, 131072, 128, pass_="fwd"))
    replay._add_l2_bytes, fast_bytes._accesses = add_l2_bytes, accesses


def standard_backward_shapes() -> None:
    chip = load_arch("b200")
    plans = [plan_kernel(chip, k) for k in schedule(chip, "standard", Problem(1, 16, 16384, 128, pass_="bwd"), {})]
    shapes = {plan.kernel.name: len(plan.sources) for plan in plans}
    print("standard bwd 16k B200, shapes per kernel:", shapes, "total", sum(shapes.values()))


def v1_removed_key_blocks() -> None:
    fold_tile = fold.fold_tile
    removed = []

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        made = fold_tile(*args, **kwargs)
        removed.append(made.cut[1])
        return made

    fold.fold_tile = counted
    fast_bytes.fold_tile = counted
    sys.modules["simgpu.fast_plan"].fold_tile = counted
    simulate(load_arch("h100"), "v1", Problem(1, 16, 131072, 128, pass_="bwd"))
    print("v1 bwd 128k H100, key blocks removed per fold of its tile:", removed)


if __name__ == "__main__":
    v2_forward()
    standard_backward_shapes()
    v1_removed_key_blocks()

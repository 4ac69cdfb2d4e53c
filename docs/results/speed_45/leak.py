"""Memory across repeated fast-mode predictions in one process (the forty-fifth session's leak): the H200's v1
backward at 128k tokens (1 x 16 heads, d = 128), 31 predictions; after each, its wall time, the process's peak
resident memory and the objects the cycle collector tracks; then what one full collection frees, and the objects
that only it could free after one more prediction (`gc.DEBUG_SAVEALL`), by type. Run from the root of a checkout
with its compiled modules: `python docs/results/speed_45/leak.py` (`leak_before.txt`: the code before the fix,
3b875cc, in a worktree of its own; `leak_after.txt`: the fix)."""

from __future__ import annotations

import gc
import resource
import time
from collections import Counter

from simgpu import Problem, load_arch, native, simulate

PREDICTIONS = 31


def main() -> None:
    arch, problem = load_arch("h200"), Problem(1, 16, 131072, 128, pass_="bwd")
    print(f"compiled: {native.compiled()}")
    for number in range(1, PREDICTIONS + 1):
        started = time.perf_counter()
        simulate(arch, "v1", problem)
        seconds = time.perf_counter() - started
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(f"{number:2} {1e3 * seconds:6.1f} ms  peak {peak_mib:4} MiB  tracked objects {len(gc.get_objects()):,}")
    print(f"a full collection frees {gc.collect():,} objects")
    gc.set_debug(gc.DEBUG_SAVEALL)
    simulate(arch, "v1", problem)
    gc.collect()
    kinds = Counter(type(each).__name__ for each in gc.garbage)
    gc.set_debug(0)
    print(f"one more prediction leaves {len(gc.garbage):,} objects in cycles: {kinds.most_common(6)}")
    gc.garbage.clear()


if __name__ == "__main__":
    main()

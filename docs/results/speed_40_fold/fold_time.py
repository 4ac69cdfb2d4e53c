"""CPU time of the L2 replay's folds of FlashAttention's backward main kernel at one sequence length, by part: plan
the kernels, fold the first 364 tiles of the first head as the replay does (`simgpu.fast_bytes._head_copies`), take
their memory accesses and make their records; least of five, cycle collector off (as `simgpu.fast.plan_fast` runs).
`python docs/results/speed_40_fold/fold_time.py h100:v2:bwd:131072` from a checkout, its folder on PYTHONPATH."""

import gc
import sys
import time

from benchmarks.simspeed import problem_for
from simgpu import fast_bytes, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel
from simgpu.fold import memory_accesses
from simgpu.replay import records

TILES = 364  # the sampled tiles of v2's backward at 128k (`docs/results/speed_40_replay/README.txt`)

arch_name, algo, pass_, seqlen = sys.argv[1].split(":")
arch, problem = load_arch(arch_name), problem_for(int(seqlen), pass_)
gc.disable()
least: dict[str, float] = {}
for _ in range(5):
    started = time.process_time()
    plans = tuple(plan_kernel(arch, kernel) for kernel in schedule(arch, algo, problem, {}))
    planned = time.process_time()
    known = [fast_bytes._replay_folded(plan) for plan in plans]
    heads = fast_bytes._first_heads(arch, plans, known)
    assert heads is not None
    tiles = heads[3]
    folded = [
        fast_bytes._head_copies(plan, ts[:TILES] if plan.looped else ts[:0], k)
        for plan, ts, k in zip(plans, tiles, known, strict=True)
    ]
    made = time.process_time()
    accesses = [[memory_accesses(tile.programs) for tile in kernel] for kernel in folded]  # type: ignore[union-attr]
    listed = time.process_time()
    for kernel in accesses:
        for tile in kernel:
            records(tile)
    done = time.process_time()
    for part, seconds in (("plan", planned - started), ("fold", made - planned), ("accesses", listed - made)):
        least[part] = min(least.get(part, seconds), seconds)
    least["records"] = min(least.get("records", done - listed), done - listed)
print(sys.argv[1], " ".join(f"{part} {seconds * 1000:.1f} ms" for part, seconds in least.items()))

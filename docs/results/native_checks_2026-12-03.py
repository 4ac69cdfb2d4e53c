"""Three figures the fourteenth session's note quotes about the compiled engine (`simgpu.native`), measured here:
the time `build_native.py --force` takes from scratch, the digest's cost at each import, and `replayed_bytes` alone
(fast mode's L2 replay) compiled and as Python on the B200's v4 backward at 128k, alternated in fresh processes.

`python docs/results/native_checks_2026-12-03.py > docs/results/native_checks_2026-12-03.txt`, from the repository root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

REPLAY = """
import statistics, time
from simgpu import Problem, load_arch, native
from simgpu.api import schedule
from simgpu.fast_bytes import replayed_bytes
from simgpu.fast_plan import plan_kernel
arch = load_arch("b200")
kernels = schedule(arch, "v4", Problem(1, 16, 131072, 128, pass_="bwd"), {})
seconds = []
for _ in range(4):
    plans = [plan_kernel(arch, kernel) for kernel in kernels]
    started = time.process_time()
    replayed_bytes(arch, plans)
    seconds.append(time.process_time() - started)
print(native.compiled(), round(statistics.median(seconds[1:]), 3))
"""

shutil.rmtree("build/native", ignore_errors=True)  # from scratch: setuptools reuses object files left there
started = time.perf_counter()
subprocess.run([sys.executable, "build_native.py", "--force"], check=True, capture_output=True)
print(f"build_native.py --force, build/native removed first: {time.perf_counter() - started:.1f} s wall")
digest = "import timeit, simgpu.native as n; print(min(timeit.repeat(n.digest, number=20, repeat=5)) / 20 * 1e3)"
ms = float(subprocess.run([sys.executable, "-c", digest], check=True, capture_output=True, text=True).stdout)
print(f"native.digest(): {ms:.2f} ms per call (best of 5 x 20)")
for _ in range(3):
    for switch in ("1", "0"):
        environment = {**os.environ, "SIMGPU_NATIVE": switch}
        run = subprocess.run(
            [sys.executable, "-c", REPLAY], check=True, capture_output=True, text=True, env=environment
        )
        compiled, seconds = run.stdout.split()
        print(f"replayed_bytes, b200 v4 bwd 128k, compiled={compiled}: median {seconds} CPU s (3 runs after one)")

"""The L2 replay's sampled nested loops (`simgpu.fold.FoldSpec.sampled`) against building them whole and against
exact mode: v1 on cut chips where exact mode is affordable (bytes and cycles), and fast mode's CPU time for v1 at
1k-128k tokens (the simspeed shapes) with and without sampling. Run: `python docs/results/v1_sampled_replay.py`."""

from __future__ import annotations

import statistics
import time
from unittest import mock

import simgpu.fast_plan
from simgpu import Problem, load_arch, native, simulate

FIELDS = ("cycles", "hbm_read_bytes", "hbm_write_bytes", "l2_read_bytes")


def whole_replay():  # type: ignore[no-untyped-def]
    return mock.patch.object(simgpu.fast_plan, "REPLAY_NESTED_PERIODS", 0)


def main() -> None:
    print(f"engine compiled: {native.compiled()}")
    print("## v1 on cut chips, fast / exact - 1 (sampled | whole)")
    for arch_name in ("h100", "b200"):
        for seqlen, heads, sms in ((4096, 2, 8), (8192, 2, 8), (4096, 4, 16)):
            arch = load_arch(arch_name, {"sms": sms})
            for causal in (False, True):
                for pass_ in ("fwd", "bwd"):
                    problem = Problem(1, heads, seqlen, 128, causal=causal, pass_=pass_)
                    exact = simulate(arch, "v1", problem, mode="exact")
                    sampled = simulate(arch, "v1", problem)
                    with whole_replay():
                        whole = simulate(arch, "v1", problem)
                    cells = " ".join(
                        f"{name.split('_bytes')[0]} {getattr(sampled, name) / getattr(exact, name) - 1:+.4f} | "
                        f"{getattr(whole, name) / getattr(exact, name) - 1:+.4f}"
                        for name in FIELDS
                    )
                    print(f"{arch_name} sms={sms} {heads}x{seqlen} causal={causal!s:5} {pass_}: {cells}")
    print("## fast mode CPU s per prediction, v1, 16k tokens, 16 heads, d=128 (median of 3; sampled | whole)")
    for arch_name in ("h100", "b200"):
        arch = load_arch(arch_name)
        for pass_ in ("fwd", "bwd"):
            for seqlen in (1024, 4096, 16384, 65536, 131072):
                problem = Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)
                times = []
                for sample in (True, False):
                    runs = []
                    for _ in range(3):
                        started = time.process_time()
                        if sample:
                            result = simulate(arch, "v1", problem)
                        else:
                            with whole_replay():
                                reference = simulate(arch, "v1", problem)
                        runs.append(time.process_time() - started)
                    times.append(statistics.median(runs))
                gaps = " ".join(
                    f"{name.split('_bytes')[0]} {getattr(result, name) / getattr(reference, name) - 1:+.2e}"
                    for name in FIELDS
                )
                print(
                    f"{arch_name} {pass_} {seqlen:6}: {times[0]:.3f} | {times[1]:.3f} s ({times[1] / times[0]:.1f}x); "
                    f"sampled / whole - 1: {gaps}"
                )


if __name__ == "__main__":
    main()

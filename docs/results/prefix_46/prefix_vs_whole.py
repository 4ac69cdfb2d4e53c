"""Fast mode's prefix replays of one head (`simgpu.fast_bytes._head_prefixes`) against the same prediction with
every head replayed whole (`HEAD_PREFIX_TILES` raised past any head), at the simspeed benchmark's shapes (16k
tokens, 16 heads, d = 128) where a head has too many tiles to replay whole.

Prints per case: the prefixes taken (the shares of the head they cover; "whole" where none applies), HBM read and
written MB with prefixes and whole, and cycles with prefixes over cycles whole. Runs on the sources
(`SIMGPU_NATIVE=0`: the constant is replaced at run time), so it also runs on a checkout before the forty-sixth
session's change, whose output is `before.txt` (`after.txt`: after it).

    python docs/results/prefix_46/prefix_vs_whole.py > docs/results/prefix_46/after.txt
"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

import simgpu.fast_bytes as fast_bytes
from simgpu import Problem, load_arch, simulate

CASES = [
    *((arch, "standard", pass_, 16384) for arch in ("a100", "h100", "h200", "b200") for pass_ in ("fwd", "bwd")),
    *(
        (arch, algo, pass_, seqlen)
        for arch, algos in (("a100", ("v2",)), ("h100", ("v2", "v3")), ("h200", ("v2", "v3")), ("b200", ("v2", "v4")))
        for algo in algos
        for pass_ in ("fwd", "bwd")
        for seqlen in (65536, 131072)
    ),
]


def main() -> None:
    taken: list[object] = []
    prefix_bytes = fast_bytes._head_prefix_bytes

    def counted(*args: object) -> object:
        taken.append(args[3])
        return prefix_bytes(*args)  # type: ignore[arg-type]

    fast_bytes._head_prefix_bytes = counted  # type: ignore[assignment]
    least = fast_bytes.HEAD_PREFIX_TILES
    print("arch algo pass seqlen prefixes | HBM read MB prefix whole | written MB prefix whole | cycles prefix/whole")
    for arch_name, algo, pass_, seqlen in CASES:
        arch, problem = load_arch(arch_name), Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_)
        taken.clear()
        fast_bytes.HEAD_PREFIX_TILES = least
        prefix = simulate(arch, algo, problem, mode="fast")
        covered = "whole" if not taken else "{:.4f},{:.4f}".format(*taken[0].covered)  # type: ignore[attr-defined]
        fast_bytes.HEAD_PREFIX_TILES = 10**9
        whole = simulate(arch, algo, problem, mode="fast")
        print(
            f"{arch_name} {algo} {pass_} {seqlen} {covered} | {prefix.hbm_read_bytes / 1e6:.1f} "
            f"{whole.hbm_read_bytes / 1e6:.1f} | {prefix.hbm_write_bytes / 1e6:.1f} "
            f"{whole.hbm_write_bytes / 1e6:.1f} | {prefix.cycles / whole.cycles:.6f}",
            flush=True,
        )


if __name__ == "__main__":
    main()

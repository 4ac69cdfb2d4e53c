"""For the speed benchmark's v1 cases at 64k and 128k tokens per sequence: how many of the first head's largest
replayed accesses its share of L2 holds (`simgpu.fast_bytes._heads_alike` asks for `ALIKE_LINES`), and what the
rule answers. Runs the source module (`SIMGPU_NATIVE=0`) so that the rule can be watched. From the repository root:
`SIMGPU_NATIVE=0 python docs/results/alike_heads_61/lines_per_share.py`."""

from __future__ import annotations

from typing import Any

import simgpu.fast_bytes as fast_bytes
from simgpu import Problem, load_arch, simulate

seen: list[tuple[bool, float]] = []
rule = fast_bytes._heads_alike


def watched(arch: Any, accesses: Any, alone: Any, concurrent: Any, total: int) -> bool:
    largest = max(record[3] for kernel in accesses for tile in kernel.accesses for record in tile)
    answer = rule(arch, accesses, alone, concurrent, total)
    seen.append((answer, arch.l2.capacity_bytes / total / largest))
    return answer


def main() -> None:
    fast_bytes._heads_alike = watched
    for arch in ("a100", "h100", "h200", "b200"):
        for pass_ in ("fwd", "bwd"):
            for seqlen in (65536, 131072):
                seen.clear()
                simulate(load_arch(arch), "v1", Problem(1, 16, seqlen, 128, pass_=pass_), mode="fast")
                shown = ", ".join(f"{answer} at {lines:.1f} lines" for answer, lines in seen) or "not asked"
                print(f"{arch} v1 {pass_} {seqlen}: {shown}")


if __name__ == "__main__":
    main()

"""Not kept: a test that would let the first head's replay stand for heads alike below `ALIKE_LINES` (v1 at 64k and
128k tokens, where a head's share of L2 holds 6-31 of its sampled accesses). Least recently used L2 at a capacity C
keeps the newest lines that fit, so each access's hit or miss can only go from miss to hit as C grows; k heads
walked side by side in step see, per head, a capacity within two of its largest accesses of its share. Where the
first head's replay gives the same bytes at its share shrunk and grown by that much, every access is decided alike
in between. The script walks the first head at (1 - e) and (1 + e) of L2 (e: two largest accesses over the share)
and compares them with its replay at the share: the byte totals (`vector`), the HBM reads by tensor, and fast mode's
cycles with the first head standing for all (`ALIKE_LINES = 0`) over those with the heads side by side.
Run as Python (`SIMGPU_NATIVE=0`: it replaces functions of `simgpu.fast_bytes`):
`SIMGPU_NATIVE=0 python docs/results/lines_62/alike_certificate.py > docs/results/lines_62/alike_certificate.txt`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import simgpu.fast_bytes as fb
from simgpu import Problem, load_arch, simulate
from simgpu.arch import Arch

CASES = (
    ("h100", "bwd", 4, 4096),  # the case that a bound of 16 lines took from 0.55% to 1.06% over exact mode
    ("h100", "fwd", 4, 4096),
    ("h100", "bwd", 1, 131072),
    ("h100", "fwd", 1, 131072),
    ("h100", "bwd", 1, 65536),
    ("a100", "fwd", 1, 65536),
    ("h200", "bwd", 1, 65536),
    ("b200", "fwd", 1, 65536),
)
SEEN: dict[str, Any] = {}
_ALIKE, _OWN = fb._heads_alike, fb._own_memory


def _scaled(arch: Arch, factor: float) -> Arch:
    l2 = arch.l2.model_copy(update={"capacity_bytes": int(arch.l2.capacity_bytes * factor)})
    return arch.model_copy(update={"l2": l2})


def _own(replayed: Any, plans: Any, head: Any, keys: Any) -> bool:
    SEEN["fitted"], SEEN["keep"] = replayed, fb._varied(plans)
    return bool(_OWN(replayed, plans, head, keys))


def _alike(arch: Arch, accesses: Sequence[Any], alone: Any, concurrent: Sequence[int], total: int) -> bool:
    largest = max(record[3] for kernel in accesses for tile in kernel.accesses for record in tile)
    room = arch.l2.capacity_bytes / total
    edge = 2 * largest / room
    fitted, keep = SEEN["fitted"], SEEN["keep"]
    walks = [fitted.replay(_scaled(arch, factor), accesses, keep=keep) for factor in (1 - edge, 1 + edge)]
    SEEN["lines"], SEEN["edge"] = room / largest, edge
    SEEN["vectors"] = all(walk.vector() == alone.vector() for walk in walks)
    SEEN["reads"] = all(walk.counts.read == alone.counts.read for walk in walks)
    SEEN["written"] = all(walk.counts.written == alone.counts.written for walk in walks)
    return bool(_ALIKE(arch, accesses, alone, concurrent, total))


def main() -> None:
    fb._heads_alike, fb._own_memory = _alike, _own  # type: ignore[assignment]
    for arch_name, pass_, batch, seqlen in CASES:
        arch, problem = load_arch(arch_name), Problem(batch, 16, seqlen, 128, pass_=pass_)
        SEEN.clear()
        now = simulate(arch, "v1", problem)
        fb.ALIKE_LINES = 0
        alone = simulate(arch, "v1", problem)
        fb.ALIKE_LINES = 32
        print(
            f"{arch_name} v1 {pass_} {batch}x16x{seqlen}: {SEEN['lines']:.1f} lines, e {SEEN['edge']:.3f};"
            f" at 1 -/+ e: totals {'same' if SEEN['vectors'] else 'differ'},"
            f" reads by tensor {'same' if SEEN['reads'] else 'differ'},"
            f" write-backs by tensor {'same' if SEEN['written'] else 'differ'};"
            f" cycles, first head for all over heads side by side: {alone.cycles / now.cycles - 1:+.4%}"
        )


if __name__ == "__main__":
    main()

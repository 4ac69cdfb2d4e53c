"""Fast mode's HBM bytes against exact mode's for FlashAttention's backward on whole chips, where the replay's L2
share matters: the main kernel runs a few heads side by side (a head's key blocks fill the chip), its row-wise
kernels many (16 CTAs per SM); at 64k tokens and more, fast mode only. Run:
`python docs/results/bwd_bytes_full_chip.py [--fast-only] OUT.txt` (the eighteenth session ran it at c667698 and,
`--fast-only`, with PYTHONPATH at 9a5be2c~1, before the per-kernel L2 shares, and at 8d5c5d7, with them but the
replay's loops folded).
"""

from __future__ import annotations

import sys
from pathlib import Path

from simgpu import Problem, load_arch, simulate

# (arch, overrides, batch, heads, seqlen, headdim, causal)
CASES = (
    ("h200", {}, 16, 32, 1024, 64, True),
    ("h100", {}, 1, 16, 16384, 128, False),
    ("a100", {}, 1, 16, 16384, 128, False),
    ("a100", {"l2.capacity_bytes": 48 * 2**20}, 1, 16, 16384, 128, False),
    ("a100", {"l2.capacity_bytes": 32 * 2**20}, 1, 16, 16384, 128, False),
    ("h100", {}, 1, 16, 32768, 128, False),
    # A head's sweep (Q, dO, dQ of every query block) several times the L2: on chips cut to 8 and 16 SMs.
    ("h100", {"sms": 8, "l2.capacity_bytes": 2 * 2**20}, 1, 2, 8192, 128, False),
    ("h100", {"sms": 8, "l2.capacity_bytes": 2 * 2**20}, 1, 2, 8192, 128, True),
    ("h100", {"sms": 16, "l2.capacity_bytes": 8 * 2**20}, 1, 4, 8192, 128, False),
)
# Long sequences, where exact mode is unaffordable: fast mode only.
LONG = (
    ("h100", {}, 1, 16, 65536, 128, False),
    ("h100", {}, 1, 16, 65536, 128, True),
    ("h100", {}, 1, 16, 131072, 128, False),
)


def main() -> None:
    modes = ("fast",) if "--fast-only" in sys.argv else ("exact", "fast")
    lines = []
    for arch_name, overrides, batch, heads, seqlen, headdim, causal in CASES + LONG:
        arch = load_arch(arch_name, overrides)
        problem = Problem(batch, heads, seqlen, headdim, causal=causal, pass_="bwd")
        label = f"{arch_name} {overrides or ''} v2 bwd {batch}x{heads} heads N={seqlen} d={headdim} causal={causal}"
        for mode in modes if seqlen < 65536 else ("fast",):
            r = simulate(arch, "v2", problem, mode=mode, event_budget=10**9)
            lines.append(
                f"{label} {mode}: HBM read {r.hbm_read_bytes / 1e6:.1f} MB, write {r.hbm_write_bytes / 1e6:.1f} MB,"
                f" cycles {r.cycles:.4g}"
            )
            print(lines[-1], flush=True)
    Path(sys.argv[-1]).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

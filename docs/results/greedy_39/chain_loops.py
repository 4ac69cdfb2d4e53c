"""The loops of `validation/probes/chain_beside.cu` as the issue toy's listings (loops/*.txt): each chain kind's
unrolled loop (from chain_beside<CHAIN, 0>) and each busy kind's (from chain_beside<5, BUSY>), disassembled with the
local nvcc and cuobjdump as `../sass_toy_35/sass_loops.py` does. Run from the repository root:
`python docs/results/greedy_39/chain_loops.py [--cuobjdump PATH]`."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "sass_toy_35"))

import sass_loops  # noqa: E402

SOURCE = sass_loops.ROOT / "validation/probes/chain_beside.cu"
CHAINS = {0: "ffma", 1: "mufu", 2: "shfl", 3: "mufu_fadd", 4: "fmnmx_fadd", 6: "exp_stream", 7: "fmnmx_stream",
          8: "fadd_stream"}  # fmt: skip
BUSY = {1: "ffma16", 2: "ffma2", 3: "fmnmx16", 4: "fadd16", 5: "exp16"}


def kernel(chain: int, busy: int) -> str:
    return f"_Z12chain_besideILi{chain}ELi{busy}EEvPKfiiPxS2_Pf"


def longest_plain_loop(listing: sass_loops.Listing) -> sass_loops.Listing:
    """The longest loop that is not the shuffle's divergent fallback (no WARPSYNC)."""
    plain = [body for body in sass_loops.loops(listing) if not any("WARPSYNC" in text for _, text, _ in body)]
    return max(plain, key=len)


def main() -> None:
    tool = sass_loops.cuobjdump(__doc__)
    pairs = [(chain, 0) for chain in CHAINS] + [(5, busy) for busy in BUSY]
    extra = "\n".join(
        f"template __global__ void chain_beside<{c}, {b}>(const float*, int, int, long long*, long long*, float*);"
        for c, b in pairs
    )
    sass = sass_loops.disassemble(SOURCE, {}, extra, tool)
    (HERE / "loops").mkdir(exist_ok=True)
    for chain, busy in pairs:
        name = f"chain_{CHAINS[chain]}" if busy == 0 else f"busy_{BUSY[busy]}"
        body = longest_plain_loop(sass_loops.instructions(sass, kernel(chain, busy)))
        (HERE / "loops" / f"{name}.txt").write_text(sass_loops.render(name, body, SOURCE, {}))


if __name__ == "__main__":
    main()

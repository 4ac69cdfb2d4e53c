"""Where the thirty-fifth session's consumer toy (`../sass_toy_35/consumer_toy.py`: our FA3 consumer loop's SASS on a
toy SM, no ping-pong, contention on, the "plain" rule) closes or opens the offset between its consumers: per key
tile, consumer 1's offset after consumer 0 at S's first wgmma, the group's last wgmma, each wait_group passed
(wg1: S done, wg0: P V done) and the first and last MUFU; then consumer 0's own times after its first wgmma.
Run from the repository root: `python docs/results/basins_36/toy_lag.py D DELAY` (d = 64 or 128).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sass_toy_35"))

import consumer_toy  # the toy lives beside its own session's results

TILES = 10


def main() -> None:
    d, delay = int(sys.argv[1]), int(sys.argv[2])
    program = consumer_toy.load(f"fa3_consumer_d{d}_pingpong_false")
    hgmma = [n for n, op in enumerate(program) if op.kind == "hgmma"]
    depbar = [n for n, op in enumerate(program) if op.kind == "depbar"]
    mufu = [n for n, op in enumerate(program) if op.pipe == "mufu"]
    marks = {"S": hgmma[0], "last wgmma": hgmma[-1], "wg1": depbar[0], "wg0": depbar[1], "MUFU": mufu[0]}
    marks["last MUFU"] = mufu[-1]
    timeline: dict[int, list[tuple[int, int]]] = {n: [] for n in marks.values()}
    period0, period1, _ = consumer_toy.run(program, consumer_toy.Toy(), delay, True, timeline=timeline)
    print(f"d={d} delay {delay}: cycles per key tile {period0:.0f} / {period1:.0f}")
    times = {name: [[t for warp, t in timeline[n] if warp == w] for w in (0, 4)] for name, n in marks.items()}
    for tile in range(TILES):
        offsets = " ".join(f"{name} {one[tile] - zero[tile]:5d}" for name, (zero, one) in times.items())
        origin = times["S"][0][tile]
        own = " ".join(f"{name} {zero[tile] - origin:4d}" for name, (zero, _) in times.items() if name != "S")
        print(f"  tile {tile:2d} offsets: {offsets} | consumer 0: {own}")


if __name__ == "__main__":
    main()

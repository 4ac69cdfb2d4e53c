"""The replay's miss shares per kernel for standard attention's forward (`python order_probe.py ARCH B H N D`,
SIMGPU_NATIVE=0): as the code at hand walks each wave; with a re-reading kernel's wave (`_wave_parts`) walked tile
after tile; with every kernel's wave walked tile after tile (the walk's `zip_longest` replaced); and with every
kernel's wave walked as if its tiles started spread over one tile's time (tile k of n at k / n of it)."""

import sys

import simgpu.replay as R
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast import plan_fast

arch = load_arch(sys.argv[1])
kernels = schedule(arch, "standard", Problem(*map(int, sys.argv[2:6])), {})


def show(label):
    sh = plan_fast(arch, kernels).shares
    print(label, {k: {t: round(s.load, 3) for t, s in d.items()} for k, d in enumerate(sh)})


show("as now")
orig = R._wave_parts


def sequential(wave):
    _, _, tails = orig(wave)
    bodies = []
    for tile in wave:
        cut = len(tile)
        while cut and tile[cut - 1][0] % R._AGAIN == R._STORE:
            cut -= 1
        bodies.append(tile[:cut])
    return [r for b in bodies for r in b], [], tails


R._wave_parts = sequential
show("tile after tile")
R._wave_parts = orig
R.zip_longest = lambda *wave: list(wave)
show("tile after tile (no re-reads)")


def staggered(*wave):  # type: ignore[no-untyped-def]
    timed = []
    for k, tile in enumerate(wave):
        for j, record in enumerate(tile):
            timed.append((k / len(wave) + j / max(1, len(tile)), k, j, record))
    timed.sort(key=lambda entry: entry[:3])
    return [(entry[3],) for entry in timed]


R.zip_longest = staggered
show("spread over a tile's time")

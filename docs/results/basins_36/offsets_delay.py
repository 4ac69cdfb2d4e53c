"""The model's side of `validation/probes/v3_offset_trace.py` with its start delays: one SM of the H200 traced
(exact mode, N = 4096, B = 4, H = 2048 / d, as `docs/results/wgmma_queue_33/model_offsets.py`), consumer 1 held
back `delay` cycles after it has Q (a `Delay` after its `Wait("q_full")`, in every CTA, as the probe's
FA3_CONSUMER1_DELAY); per delay the period per key tile (median interval between consumer 0's first MMAs of a tile)
and consumer 1's offset after consumer 0, every third key tile from the third. With `--phases`, per key tile each
op's start offset (consumer 1 after consumer 0) and consumer 0's (start, cycles) after its tile's first MMA.
The model variant is whatever the environment selects (SIMGPU_LANE_INTERLEAVE=1 with lane_interleave_not_kept.patch
applied, SIMGPU_FLUID=1 with docs/results/fluid_elementwise_not_kept.patch; SIMGPU_NATIVE=0 for either).
Run from the repository root: `python docs/results/basins_36/offsets_delay.py D PINGPONG(T/F) OVERLAP(T/F)
[--phases DELAY]`.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import statistics
from collections.abc import Hashable, Sequence

from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.engine import Engine
from simgpu.kernel import Role
from simgpu.ops import Delay, Op
from simgpu.trace import Span, Trace

DELAYS = (0, 16, 64, 128, 256, 512, 1024)
SEQLEN = 4096
TILES = SEQLEN // 128


def held_back(role: Role, delay: float) -> Role:
    """`role` with a Delay after its first wait for Q in every tile's program."""

    def program(tile: Hashable) -> Sequence[Op]:
        ops = list(role.program(tile))
        at = next(n for n, op in enumerate(ops) if getattr(op, "barrier", None) == "q_full") + 1
        return [*ops[:at], Delay(delay), *ops[at:]]

    return dataclasses.replace(role, program=program)


def traced_run(d: int, pingpong: bool, overlap: bool, delay: float) -> Trace:
    """The probe's shape in the model, SM 3 traced, consumer 1 held back `delay` cycles."""
    arch = load_arch("h200").with_overrides({"power": None})
    problem = Problem(4, 2048 // d, SEQLEN, d, causal=False, dtype="bf16", pass_="fwd")
    options = {
        "block_m": 128,
        "block_n": 128,
        "pingpong": pingpong,
        "intra_wg_overlap": overlap,
        "persistent": False,
        "epilogue": "registers",
    }
    kernels = list(schedule(arch, "v3", problem, options))
    roles = tuple(held_back(r, delay) if r.name == "consumer1" and delay else r for r in kernels[0].roles)
    kernels[0] = dataclasses.replace(kernels[0], roles=roles)
    trace = Trace(sms=(3,))
    Engine(arch, trace=trace).run(kernels)
    return trace


def consumer_spans(d: int, pingpong: bool, overlap: bool, delay: float) -> dict[str, list[Span]]:
    """Each consumer's MMA and elementwise spans on the traced SM, in start order."""
    trace = traced_run(d, pingpong, overlap, delay)
    spans = {}
    for consumer in ("consumer0", "consumer1"):
        track = min(s.track for s in trace.spans if s.track.endswith(consumer))
        mine = (s for s in trace.spans if s.track == track and s.name in ("Mma", "Vector"))
        spans[consumer] = sorted(mine, key=lambda s: s.start_cycles)
    return spans


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("d", type=int)
    parser.add_argument("pingpong", choices=("T", "F"))
    parser.add_argument("overlap", choices=("T", "F"))
    parser.add_argument("--phases", type=float, default=None)
    args = parser.parse_args()
    pingpong, overlap = args.pingpong == "T", args.overlap == "T"
    for delay in DELAYS if args.phases is None else (args.phases,):
        spans = consumer_spans(args.d, pingpong, overlap, delay)
        per_tile = len(spans["consumer0"]) // TILES
        first = {c: [s.start_cycles for s in sp[::per_tile]] for c, sp in spans.items()}
        offsets = [b - a for a, b in zip(first["consumer0"], first["consumer1"], strict=False)]
        period = statistics.median([b - a for a, b in itertools.pairwise(first["consumer0"])][4:-4])
        print(
            f"d={args.d} pingpong={pingpong} overlap={overlap} delay {delay:5.0f}: period {period:5.0f}, "
            f"offsets {[round(o) for o in offsets[2:30:3]]}"
        )
        if args.phases is None:
            continue
        print("  ops of a tile:", [s.name for s in spans["consumer0"][:per_tile]])
        for tile in range(1, 12):
            zero = spans["consumer0"][per_tile * tile : per_tile * (tile + 1)]
            one = spans["consumer1"][per_tile * tile : per_tile * (tile + 1)]
            lags = [round(b.start_cycles - a.start_cycles) for a, b in zip(zero, one, strict=True)]
            own = [(round(s.start_cycles - zero[0].start_cycles), round(s.end_cycles - s.start_cycles)) for s in zero]
            print(f"  tile {tile:2d}: offsets {lags} | consumer 0 {own}")


if __name__ == "__main__":
    main()

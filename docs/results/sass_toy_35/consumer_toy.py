"""Our FA3 kernel's two consumer warpgroups on the toy SM of `issue_toy.py`, from the consumer loop's SASS.

Exploration for issue 6: with the scheduler rules of `issue_toy.py` ("plain": another warp issues in a warp's stall
count; "hold": it does not), do the two consumers without ping-pong keep in step at d = 64 and take turns at d = 128,
as the chip's do, and what does ping-pong gain? Each warpgroup runs the key-tile loop of `fa3_fwd<D, 2, false,
PINGPONG, true>` (`loops/fa3_consumer_*.txt`) over and over, warpgroup 1 starting `delay` cycles late, with nothing
else on the SM: K and V always there (every mbarrier wait succeeds at once, the loads and the producer are not
simulated), the masking block skipped (a branch inside the loop is taken, one out of it is not).

Beyond `issue_toy.py`'s SM: the tensor cores take a warpgroup's wgmma instruction once its four warps have issued it,
into a queue of 8 that holds it until `SLOT_RELEASE` cycles after its work, and work through them in order, an
m64nNk16 in N / 2 cycles (m64n128k16: 64, `archs/h200.yaml`'s latency section); a commit (`gsb0`) closes a group,
done `RESULT_LATENCY` cycles after its last instruction's work; WARPGROUP.DEPBAR.LE gsb0, k waits until at most k
of the warpgroup's groups are not done, and returns `GROUP_WAIT` cycles after the last of those is. The ping-pong's
named barriers: consumer c syncs on barrier 1 + c and arrives on 2 - c, 256 threads each, the waiters going on
`HANDOFF` cycles after the last arrival; consumer 1's first arrival on barrier 1 is made before the loop. An mbarrier
try_wait's predicate comes `TRY_WAIT` cycles after it. With `contention`, the tensor cores and the lane pipes slow
each other at the arch's measured rates, as simgpu's SM does (`simgpu.units.contention`). Nothing is fitted. Measured
figures it is set against (wgmma_queue_33/analysis.txt, from validation/h200/v3_phase_offset_h200.csv and
v3_offset_trace/): without ping-pong the whole kernel's period per key tile is 2383-2400 cycles at d = 64
(1981 when consumer 1 starts 1024 late) and 2577-2588 at d = 128; ping-pong gains +11.6% / +13.0% (N = 2048 / 8192)
at d = 64 and +3.5% / +0.5% at d = 128; the traced consumers sit in step at d = 64 from starts 0-512 apart and half
a period apart from 1024, at d = 128 half a period apart from any start.

Run from the repository root: `python docs/results/sass_toy_35/consumer_toy.py > .../consumer_toy.txt`.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from dataclasses import dataclass

from issue_toy import CYCLES_PER_INSTRUCTION, PIPES, QUEUED, Toy, dispatch, enqueue, rows

SLOT_RELEASE = 92  # [M] a queue slot frees 92 cycles after its instruction's work (docs/results/wgmma_queue_33/)
RESULT_LATENCY = 30  # [assumed] a group's results 30 cycles after its work (a lone wgmma's round trip: 56 + work)
QUEUE_SLOTS = 8  # [M] wgmma instructions in the tensor cores' queue, any warpgroup's (same)
# [M] archs/h200.yaml's latency section, the H200's probes: an mbarrier try_wait on a phase already complete 48 cycles
# (its predicate, which the retry branch waits for), a wgmma wait_group with nothing pending 48, the ping-pong's
# named-barrier hand-off 38 (half of a 75-cycle round trip).
TRY_WAIT, GROUP_WAIT, HANDOFF = 48, 48, 38
# [M] archs/h100.yaml's contention section (the H200's overlap probe): beside busy tensor cores the FMA and ALU pipes
# run at 0.478 of their rate and MUFU at 0.694; beside FFMAs the tensor cores run at 0.593.
PIPE_RATE_WHILE_TENSOR = {"fma": 0.478, "alu": 0.478, "mufu": 0.694}
TENSOR_RATE_WHILE_FMA = 0.593
ITERATIONS, SETTLED = 24, 8
NONE = 7
LATER = 1 << 60


@dataclass(frozen=True)
class Op:
    kind: str  # "pipe", "try_wait", "hgmma", "depbar", "sync", "arrive", "branch"
    pipe: str
    stall: int
    write_sb: int
    read_sb: int
    wait_mask: int
    work: int = 0  # hgmma: tensor cycles
    commit: bool = False  # hgmma: closes a group
    limit: int = 0  # depbar: groups allowed not done
    target: int = -1  # branch: the index it goes to (-1: falls through)


def load(name: str) -> list[Op]:
    """The loop's instructions as toy ops, branches resolved: back to the loop's start, over a block inside the
    loop (taken), out of the loop (not taken)."""
    listing = rows(name)
    addresses = [int(fields[0], 16) for fields, _ in listing]
    ops = []
    for fields, text in listing:
        _, stall, _, write_sb, read_sb, wait = fields
        opcode = text.split()[0].split(".")[0]
        common = {"pipe": PIPES.get(opcode, "alu"), "stall": int(stall), "write_sb": int(write_sb),
                  "read_sb": int(read_sb), "wait_mask": int(wait, 2)}  # fmt: skip
        if opcode == "HGMMA":
            n = int(re.match(r"HGMMA\.64x(\d+)x16", text).group(1))  # type: ignore[union-attr]
            ops.append(Op("hgmma", **common, work=n // 2, commit="gsb0" in text))
        elif text.startswith("WARPGROUP.DEPBAR"):
            ops.append(Op("depbar", **common, limit=int(text.split()[-1], 16)))
        elif text.startswith("SYNCS.PHASECHK"):
            ops.append(Op("try_wait", **common))
        elif opcode == "BAR":
            ops.append(Op("sync" if ".SYNC" in text else "arrive", **common))
        elif opcode == "BRA":
            target = int(text.split()[-1], 16)
            inside = addresses.index(target) if target in addresses else -1
            ops.append(Op("branch", **common, target=inside))
        else:
            ops.append(Op("pipe", **common))
    return ops


def run(
    program: list[Op],
    toy: Toy,
    delay: int,
    contention: bool,
    model_hold: bool = False,
    timeline: dict[int, list[tuple[int, int]]] | None = None,
    result_latency: int = RESULT_LATENCY,
) -> tuple[float, float, int]:
    """Both consumers looping; returns consumer 0's and 1's cycles per key tile and consumer 1's lag at tile 16.
    `contention`: the tensor cores and the lane pipes slow each other (`PIPE_RATE_WHILE_TENSOR`, ...). `model_hold`:
    instead of the queue of 8, simgpu's rule (`tensor_core.issue_queue_instructions` 0): a warp that has issued a
    group's last wgmma issues nothing more until the tensor cores have started that instruction. `timeline`, where
    given, receives per warp 0 and 4 the (instruction, cycle) of each issue of an instruction in it."""
    warps = 8
    pc, ready_at, tiles = [0] * warps, [0] * warps, [0] * warps
    boards = [[0] * 6 for _ in range(warps)]
    busy: list[dict[str, float]] = [defaultdict(float) for _ in range(4)]
    queues: list[list[tuple[int, str, int, int]]] = [[] for _ in range(4)]
    held_until, last = [0] * 4, [-1] * 4
    issued_count = [[0] * 64 for _ in range(2)]  # per consumer, per hgmma position in the loop: warps issued
    releasing: list[int] = []  # the queue's slots of instructions whose work is done: the cycle each frees
    tensor: list[list[float]] = []  # handed-in instructions in order: [work left, consumer, closes a group]
    groups: list[list[int]] = [[], []]  # per consumer: the done cycle of each group, in order
    commits = [0] * warps  # per warp: the groups it has committed (issued the closing wgmma of)
    serial = 0  # wgmma instructions handed in so far
    last_of_group: list[list[int]] = [[], []]  # per consumer: the serial number of each group's closing wgmma
    waits_for = [-1] * warps  # model_hold: the group whose closing wgmma the warp waits to see started (-1: none)

    def started(c: int, group: int) -> bool:
        """Whether consumer c's group's closing wgmma has been handed in and reached the tensor cores."""
        return group < len(last_of_group[c]) and (not tensor or tensor[0][3] >= last_of_group[c][group])

    barrier_count = {1: 4, 2: 0}  # consumer 1 passes the first turn before its loop
    barrier_generation = {1: 0, 2: 0}
    released = {1: 0, 2: 0}  # the cycle a barrier's waiters go on
    waiting_on: dict[int, tuple[int, int]] = {}  # warp -> (barrier, generation it waits past)
    starts: list[list[int]] = [[] for _ in range(warps)]
    hgmma_index = {n: k for k, n in enumerate(n for n, op in enumerate(program) if op.kind == "hgmma")}
    t = 0
    while min(tiles) < ITERATIONS:
        dispatch(queues, busy, boards, t, toy, PIPE_RATE_WHILE_TENSOR if contention and tensor else None)
        releasing = [s for s in releasing if s > t]
        if tensor:
            beside_ffma = contention and any(busy[s]["fma"] > t for s in range(4))
            tensor[0][0] -= TENSOR_RATE_WHILE_FMA if beside_ffma else 1.0
            if tensor[0][0] <= 0:
                _, owner, closes, _ = tensor.pop(0)
                releasing.append(t + SLOT_RELEASE)
                if closes:
                    groups[int(owner)].append(t + result_latency)
        slowed = contention and bool(tensor)
        for smsp in range(4):
            if t < held_until[smsp]:
                continue
            # Turns: the consumer that did not issue last first; greedy (`toy.policy`): the one that did.
            first = last[smsp] if toy.policy == "greedy" and last[smsp] >= 0 else (last[smsp] + 1) % 2
            for c in (first, 1 - first):
                warp = 4 * c + smsp
                if tiles[warp] >= ITERATIONS or t < (delay if c else 0) or t < ready_at[warp]:
                    continue
                if waits_for[warp] >= 0:
                    if not started(c, waits_for[warp]):
                        continue
                    waits_for[warp] = -1
                if warp in waiting_on:
                    barrier, generation = waiting_on[warp]
                    if barrier_generation[barrier] <= generation or t < released[barrier]:
                        continue
                    del waiting_on[warp]
                    pc[warp] += 1  # past the barrier
                    if pc[warp] == len(program):
                        pc[warp] = 0
                op = program[pc[warp]]
                if any(boards[warp][b] > t for b in range(6) if op.wait_mask >> b & 1):
                    continue
                if op.kind == "depbar":
                    handed = groups[c]
                    pending = sum(1 for g in range(commits[warp]) if g >= len(handed) or handed[g] > t)
                    if pending > op.limit:
                        continue
                    # The wait returns GROUP_WAIT after the last group it waits for (groups complete in order).
                    done_at = max([handed[g] for g in range(commits[warp] - op.limit)], default=0)
                    if t < done_at + GROUP_WAIT:
                        continue
                if op.kind == "hgmma":
                    position = hgmma_index[pc[warp]]
                    if issued_count[c][position] == 3:  # the fourth warp hands the instruction in
                        if not model_hold and len(tensor) + len(releasing) >= QUEUE_SLOTS:
                            continue
                        serial += 1
                        tensor.append([float(op.work), float(c), float(op.commit), float(serial)])
                        if op.commit:
                            last_of_group[c].append(serial)
                        issued_count[c][position] = 0
                    else:
                        issued_count[c][position] += 1
                    if op.commit and model_hold:
                        waits_for[warp] = commits[warp]
                    commits[warp] += op.commit
                elif op.pipe in QUEUED and op.kind == "pipe":
                    if not enqueue(queues[smsp], warp, op, boards[warp], toy):
                        continue
                elif op.kind == "pipe" and op.pipe != "tensor":
                    if busy[smsp][op.pipe] > t:
                        continue
                    rate = PIPE_RATE_WHILE_TENSOR.get(op.pipe, 1.0) if slowed else 1.0
                    busy[smsp][op.pipe] = t + CYCLES_PER_INSTRUCTION[op.pipe] / rate
                ready_at[warp] = t + max(1, op.stall)
                if timeline is not None and warp in (0, 4) and pc[warp] in timeline:
                    timeline[pc[warp]].append((warp, t))
                if op.kind == "try_wait" and op.write_sb != NONE:
                    boards[warp][op.write_sb] = t + TRY_WAIT
                if toy.hold == "all":
                    held_until[smsp] = ready_at[warp]
                last[smsp] = c
                if op.kind in ("sync", "arrive"):
                    barrier = 1 + c if op.kind == "sync" else 2 - c
                    barrier_count[barrier] += 1
                    generation = barrier_generation[barrier]
                    if barrier_count[barrier] == 8:
                        barrier_count[barrier] = 0
                        barrier_generation[barrier] += 1
                        released[barrier] = t + HANDOFF
                    if op.kind == "sync" and barrier_generation[barrier] == generation:
                        waiting_on[warp] = (barrier, generation)
                        break
                if op.kind == "branch" and op.target >= 0:
                    if op.target == 0:
                        tiles[warp] += 1
                    pc[warp] = op.target
                else:
                    pc[warp] += 1
                    if pc[warp] == len(program):
                        pc[warp] = 0
                        tiles[warp] += 1
                if pc[warp] == 0:
                    starts[warp].append(t)
                break
        t += 1
    period = [(starts[w][ITERATIONS - 1] - starts[w][SETTLED]) / (ITERATIONS - 1 - SETTLED) for w in (0, 4)]
    return period[0], period[1], starts[4][16] - starts[0][16]


def phases(d: int) -> None:
    """Consumer 0's and 1's key tile 16 at d, without ping-pong, contention on, the "plain" rule, from a common start:
    when each issues S's first wgmma, passes each wait_group, and issues its first and last MUFU, in cycles after
    consumer 0's first wgmma."""
    program = load(f"fa3_consumer_d{d}_pingpong_false")
    marks = {
        "S issued": next(n for n, op in enumerate(program) if op.kind == "hgmma"),
        **{f"wait_group {op.limit} passed": n for n, op in enumerate(program) if op.kind == "depbar"},
        "first MUFU": next(n for n, op in enumerate(program) if op.pipe == "mufu"),
        "last MUFU": max(n for n, op in enumerate(program) if op.pipe == "mufu"),
    }
    timeline: dict[int, list[tuple[int, int]]] = {n: [] for n in marks.values()}
    run(program, Toy(), 0, True, timeline=timeline)
    origin = [t for warp, t in timeline[marks["S issued"]] if warp == 0][16]
    cells = []
    for name, n in marks.items():
        times = [[t for warp, t in timeline[n] if warp == w][16] - origin for w in (0, 4)]
        cells.append(f"{name} {times[0]:5d} / {times[1]:5d}")
    print(f"  d={d:3d}: " + ", ".join(cells))


def sensitivity() -> None:
    """The d = 64 and d = 128 periods and ping-pong gains (contention on, "plain", consumer 1 256 cycles late) as the
    assumed result latency and the MUFU's result latency vary."""
    print("== sensitivity: without / with ping-pong, cycles per key tile (gain), consumer 1 256 cycles late")
    for latency, mufu in itertools.product((0, 30, 60), (18, 22)):
        cells = []
        for d in (64, 128):
            off, on = (
                run(load(f"fa3_consumer_d{d}_pingpong_{pp}"), Toy(mufu=mufu), 256, True, result_latency=latency)[0]
                for pp in ("false", "true")
            )
            cells.append(f"d={d} {off:5.0f} / {on:5.0f} ({100 * (off / on - 1):+5.1f}%)")
        print(f"  result latency {latency:2d}, MUFU {mufu}: " + "; ".join(cells))


def main() -> None:
    print("cycles per key tile of consumer 0 and 1, and consumer 1's lag at tile 16, by consumer 1's start delay")
    for contention, model_hold in ((False, False), (True, False), (True, True)):
        queue = "simgpu's issue hold instead of the queue of 8" if model_hold else "the queue of 8"
        print(f"== tensor / lane-pipe contention {'on' if contention else 'off'}, {queue}")
        for d in (64, 128):
            for rule in ("none", "all"):
                toy = Toy(hold=rule)
                label = "plain" if rule == "none" else "hold"
                for pingpong in ("false", "true"):
                    program = load(f"fa3_consumer_d{d}_pingpong_{pingpong}")
                    cells = []
                    for delay in (0, 256, 512, 1024):
                        p0, p1, lag = run(program, toy, delay, contention, model_hold)
                        cells.append(f"delay {delay:4d}: {p0:5.0f} {p1:5.0f} lag {lag:5d}")
                    print(f"  d={d:3d} {label:5s} pingpong={pingpong:5s} " + " | ".join(cells))
    print("== key tile 16 of consumer 0 / consumer 1 (no ping-pong, contention on, plain, common start; cycles after")
    print("   consumer 0's first wgmma of the tile)")
    for d in (64, 128):
        phases(d)
    sensitivity()


if __name__ == "__main__":
    main()

"""A toy of one Hopper SM issuing the softmax probes' SASS, instruction by instruction, against the probes' rows.

Exploration for issue 6, not part of simgpu: it asks what in the hardware makes two warpgroups' softmaxes on one SM
take 1325-1345 cycles per iteration at any offset between them (`validation/probes/softmax_offset.py`), where one
takes 771 and simgpu's lane pipes give 1043 and settle half a period apart.

The SM: 4 schedulers (SMSPs); warp w of warpgroup g sits on SMSP w, as a 128-thread warpgroup's warps do. Each
scheduler issues at most one instruction per cycle, in order per warp, picking among its warps in turn (or greedy
then oldest). A warp's next instruction waits the stall count of its previous one (the compiler's static schedule,
`loops/*.txt` from `sass_loops.py`), the scoreboards in its wait mask, and its pipe: per SMSP FP32 (FFMA, FMUL, FADD:
one instruction a cycle), ALU (FMNMX, F2FP: one per 2 cycles: 16 lanes), MUFU (one per 8 cycles: 16 ex2 per clock
per SM). MUFU, SHFL and STG go through a queue (MIO, per SMSP, 16 entries, any of the first 16 may leave when its
unit is free); their results come `mufu` / `shuffle` cycles after they leave, which releases their write scoreboard
(a dependent MUFU chain then takes one cycle more per step: 23 and 24 as measured, `archs/h200.yaml`'s latency).
Fixed-latency results need no scoreboard: the stall counts cover them. Ignored: instruction fetch, register banks,
dual issue, the FP32 pipe's heavy/lite halves.

Two rules for what another warp may do while a warp waits out its stall count:
- `plain`: the scheduler issues another warp's instruction (stall counts hide behind other warps, as latency does).
- `hold`: it issues nothing for that warp's stall count (the scheduler is held by the warp's static schedule).
Prints the toy against the probes' rows for both, with the MUFU latency as measured (22 after the queue) and at 18:
the softmax probe's four builds with 1-3 warpgroups (`validation/h200/v3_softmax_groups_h200.csv`), its passes in
separate warpgroups (`v3_pass_pair_h200.csv`), the two warpgroups started `delay` apart (`softmax_offset/
softmax_offset_h200.csv`, its own loop with the clock stamp), the stall reasons per iteration against Nsight Compute's
(`v3_softmax_ncu_h200.csv`, 200 iterations), and the calibration's softmax and ex2 chains (`overlap_table.txt`).
`--variants` ranks more variants (queue depth, look-ahead, SM-wide queue, scheduler order, hold only on one yield
bit) by their error over the probe's 20 timings.

Run from the repository root: `python docs/results/sass_toy_35/issue_toy.py [--variants] > ...txt`.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LOOPS = Path(__file__).resolve().parent / "loops"
H200 = ROOT / "validation/h200"
PIPES = {
    "FFMA": "fma",
    "FMUL": "fma",
    "FADD": "fma",
    "HFMA2": "fma",
    "IMAD": "fma",
    "FMNMX": "alu",
    "F2FP": "alu",
    "MOV": "alu",
    "ISETP": "alu",
    "IADD3": "alu",
    "VIADD": "alu",
    "CS2R": "alu",
    "MUFU": "mufu",
    "SHFL": "shuffle",
    "STG": "lsu",
    "UIADD3": "uniform",
    "BRA": "branch",
    "HGMMA": "tensor",
    "WARPGROUP": "uniform",
    "ULOP3": "uniform",
    "USHF": "uniform",
    "UMOV": "uniform",
}
QUEUED = {"mufu", "shuffle", "lsu"}
# The tensor cores take the first eight wgmma instructions as they come (an 8-deep queue): the hand-ins below.
CYCLES_PER_INSTRUCTION = {"fma": 1, "alu": 2, "mufu": 8, "shuffle": 2, "lsu": 1, "uniform": 1, "branch": 1, "tensor": 1}
NONE = 7  # a scoreboard field's "no scoreboard"
LATER = 1 << 60
ITERATIONS, SETTLED = 20, 8  # iterations simulated; the period counts from iteration 8 on


@dataclass(frozen=True)
class Instruction:
    pipe: str
    stall: int
    yields: bool
    write_sb: int
    read_sb: int
    wait_mask: int


@dataclass(frozen=True)
class Toy:
    hold: str = "none"  # "none" (plain), "all" (hold), "yield0" / "yield1": only after instructions with that bit
    policy: str = "turns"  # "turns" (round robin) or "greedy" (the last warp while it can, then the oldest)
    queue_depth: int = 16
    window: int = 16  # queued instructions that may leave ahead of the head
    per_smsp_queue: bool = True
    mufu: int = 22
    shuffle: int = 23
    writeback: bool = False  # a MUFU or SHFL result waits for a cycle with no FP32/ALU result to write (../greedy_39)
    fixed_latency: int = 4  # cycles from an FP32/ALU instruction's issue to its register write (with `writeback`)
    mufu_port: int = 0  # cycles a MUFU instruction's issue takes the ALU's dispatch (0: none; ../greedy_39)
    pipe_share: bool = False  # a warp waiting for a busy FP32/ALU pipe goes before the greedy warp when it frees


@dataclass(frozen=True)
class Run:
    periods: tuple[float, ...]  # per warpgroup: its slowest warp's cycles per iteration (none where `once`)
    stalls: dict[str, float]  # warp 0's cycles per iteration by reason
    starts: tuple[tuple[int, ...], ...]  # per warp, the cycle each iteration started
    issued: tuple[int, ...]  # warp 0's cycle of issue of each instruction it issued


Queued = list[tuple[int, str, int, int]]  # an MIO queue: (warp, pipe, write scoreboard, read scoreboard)


def dispatch(
    queues: Sequence[Queued],
    busy: Sequence[dict[str, float]],
    boards: Sequence[list[int]],
    t: int,
    toy: Toy,
    slowed: dict[str, float] | None = None,
    pending: Sequence[list[tuple[int, int, int]]] | None = None,
) -> None:
    """Each queue lets one instruction go to its SMSP's unit, the first of its first `toy.window` whose unit is free:
    the unit is taken for its cycles (over `slowed[pipe]`, the rate it runs at, where given), the instruction's write
    scoreboard released when its result comes, its read scoreboard two cycles on."""
    latency = {"mufu": toy.mufu, "shuffle": toy.shuffle, "lsu": 2}
    for queue in queues:
        for k in range(min(toy.window, len(queue))):
            warp, pipe, write_sb, read_sb = queue[k]
            unit = busy[warp % 4]
            if unit["q" + pipe] <= t:
                queue.pop(k)
                unit["q" + pipe] = t + CYCLES_PER_INSTRUCTION[pipe] / (slowed or {}).get(pipe, 1.0)
                if write_sb != NONE and pending is not None:
                    pending[warp % 4].append((t + latency[pipe], warp, write_sb))
                elif write_sb != NONE:
                    boards[warp][write_sb] = t + latency[pipe]
                if read_sb != NONE:
                    boards[warp][read_sb] = t + 2
                break


def write_back(
    pending: Sequence[list[tuple[int, int, int]]], fixed_writes: Sequence[set[int]], boards: Sequence[list[int]], t: int
) -> None:
    """The `writeback` rule: per SMSP, the earliest due MUFU or SHFL result is written this cycle (its scoreboard
    released) unless an FP32 or ALU instruction's fixed-latency result takes the cycle's register write."""
    for smsp in range(4):
        writes = fixed_writes[smsp]
        writes.discard(t - 1)
        due = [entry for entry in pending[smsp] if entry[0] <= t]
        if not due or t in writes:
            continue
        entry = min(due)
        pending[smsp].remove(entry)
        boards[entry[1]][entry[2]] = t


def enqueue(queue: Queued, warp: int, instruction: Instruction, boards: list[int], toy: Toy) -> bool:
    """Put a MUFU, SHFL or STG in the queue, its scoreboards pending; False where the queue is full."""
    if len(queue) >= toy.queue_depth:
        return False
    queue.append((warp, instruction.pipe, instruction.write_sb, instruction.read_sb))
    for board in (instruction.write_sb, instruction.read_sb):
        if board != NONE:
            boards[board] = LATER
    return True


def rows(name: str, folder: Path = LOOPS) -> list[tuple[list[str], str]]:
    """`loops/NAME.txt`'s instructions (or FOLDER/NAME.txt's): per instruction its fields (address, stall, yield,
    write and read scoreboards, wait mask) and the instruction without its predicate."""
    out = []
    for line in (folder / f"{name}.txt").read_text().splitlines():
        if not line.startswith("#"):
            fields, _, text = line.partition(" | ")
            out.append((fields.split(), re.sub(r"^@!?U?P\w+\s+", "", text)))
    return out


def load(name: str, folder: Path = LOOPS) -> list[Instruction]:
    """`loops/NAME.txt` (or FOLDER/NAME.txt) as toy instructions (an opcode not in `PIPES` takes the ALU pipe)."""
    program = []
    for (_, stall, yields, write_sb, read_sb, wait), text in rows(name, folder):
        opcode = text.split()[0].split(".")[0]
        program.append(
            Instruction(PIPES.get(opcode, "alu"), int(stall), yields == "1", int(write_sb), int(read_sb), int(wait, 2))
        )
    return program


def holds(toy: Toy, instruction: Instruction) -> bool:
    return (
        toy.hold == "all"
        or (toy.hold == "yield0" and not instruction.yields)
        or (toy.hold == "yield1" and instruction.yields)
    )


def simulate(
    programs: Sequence[Sequence[Instruction]],
    toy: Toy,
    delays: Sequence[int] | None = None,
    once: bool = False,
    iterations: Sequence[int] | None = None,
) -> Run:
    """Warpgroup g runs programs[g] from cycle delays[g] on, `ITERATIONS` times (iterations[g] times where given: then
    `periods` is empty and `starts` tells the times); with `once`, warpgroup 0 runs its program once (a straight-line
    piece) and the run ends when it is done."""
    groups = len(programs)
    limits = list(iterations) if iterations else [1 if once and group == 0 else ITERATIONS for group in range(groups)]
    issued_at: list[int] = []
    warps = 4 * groups
    delays = delays or [0] * groups
    pc, done_iterations, ready_at = [0] * warps, [0] * warps, [0] * warps
    scoreboards = [[0] * 6 for _ in range(warps)]
    busy_until: list[dict[str, float]] = [defaultdict(float) for _ in range(4)]
    queues: list[list[tuple[int, str, int, int]]] = [[] for _ in range(4 if toy.per_smsp_queue else 1)]
    held_until, last = [0] * 4, [-1] * 4
    starts: list[list[int]] = [[] for _ in range(warps)]
    stalls: Counter[str] = Counter()
    pending: list[list[tuple[int, int, int]]] | None = [[] for _ in range(4)] if toy.writeback else None
    fixed_writes: list[set[int]] = [set() for _ in range(4)]
    waiting: list[set[int]] = [set() for _ in range(4)]  # per SMSP, the groups whose last try found its pipe busy
    t = 0
    while min(done_iterations[:4]) < 1 if once else any(done_iterations[w] < limits[w // 4] for w in range(warps)):
        dispatch(queues, busy_until, scoreboards, t, toy, pending=pending)
        if pending is not None:
            write_back(pending, fixed_writes, scoreboards, t)
        for smsp in range(4):
            queue = queues[smsp if toy.per_smsp_queue else 0]
            issued = None
            if t >= held_until[smsp]:
                if toy.policy == "turns":
                    order = [(last[smsp] + 1 + k) % groups for k in range(groups)]
                else:
                    order = [last[smsp]] * (last[smsp] >= 0) + [g for g in range(groups) if g != last[smsp]]
                    if toy.pipe_share and waiting[smsp]:
                        order = sorted(order, key=lambda g: g not in waiting[smsp])  # stable: greedy among the rest
                for group in order:
                    warp = 4 * group + smsp
                    if done_iterations[warp] >= limits[group] or t < delays[group] or t < ready_at[warp]:
                        continue
                    instruction = programs[group][pc[warp]]
                    if any(scoreboards[warp][b] > t for b in range(6) if instruction.wait_mask >> b & 1):
                        continue
                    if instruction.pipe in QUEUED:
                        port = toy.mufu_port and instruction.pipe == "mufu"
                        if port and busy_until[smsp]["alu"] > t:
                            waiting[smsp].add(group)
                            continue
                        if not enqueue(queue, warp, instruction, scoreboards[warp], toy):
                            continue
                        if port:
                            busy_until[smsp]["alu"] = t + toy.mufu_port
                    elif busy_until[smsp][instruction.pipe] > t:
                        waiting[smsp].add(group)
                        continue
                    else:
                        busy_until[smsp][instruction.pipe] = t + CYCLES_PER_INSTRUCTION[instruction.pipe]
                        if pending is not None and instruction.pipe in ("fma", "alu"):
                            fixed_writes[smsp].add(t + toy.fixed_latency)
                    waiting[smsp].discard(group)
                    ready_at[warp] = t + max(1, instruction.stall)
                    if holds(toy, instruction):
                        held_until[smsp] = ready_at[warp]
                    issued, last[smsp] = warp, group
                    if warp == 0:
                        issued_at.append(t)
                    pc[warp] += 1
                    if pc[warp] == len(programs[group]):
                        pc[warp] = 0
                        done_iterations[warp] += 1
                    if pc[warp] == 1:
                        starts[warp].append(t)
                    break
            if smsp == 0 and not once and t >= delays[0] and SETTLED <= done_iterations[0] < limits[0]:
                stalls[
                    _reason(programs[0][pc[0]], t, issued == 0, ready_at[0], scoreboards[0], queue, toy, busy_until[0])
                ] += 1
        t += 1
    periods = tuple(
        max((s[ITERATIONS - 1] - s[SETTLED]) / (ITERATIONS - 1 - SETTLED) for s in starts[4 * g : 4 * g + 4])
        for g in range(groups)
        if not once and not iterations
    )
    per_iteration = {reason: cycles / (ITERATIONS - SETTLED) for reason, cycles in stalls.items()}
    return Run(periods, per_iteration, tuple(tuple(s) for s in starts), tuple(issued_at))


def _reason(
    instruction: Instruction,
    t: int,
    issued: bool,
    ready_at: int,
    boards: list[int],
    queue: list[tuple[int, str, int, int]],
    toy: Toy,
    busy: dict[str, float],
) -> str:
    """Why warp 0 did not issue this cycle, in Nsight Compute's terms."""
    if issued:
        return "selected"
    if t < ready_at:
        return "wait"
    if any(boards[b] > t for b in range(6) if instruction.wait_mask >> b & 1):
        return "short_scoreboard"
    if instruction.pipe in QUEUED and len(queue) >= toy.queue_depth:
        return "mio_throttle"
    if instruction.pipe not in QUEUED and busy[instruction.pipe] > t:
        return "math_pipe_throttle"
    return "not_selected"


def measured_groups() -> dict[tuple[int, int], float]:
    with (H200 / "v3_softmax_groups_h200.csv").open() as handle:
        return {(int(r["ablate"]), int(r["warpgroups"])): float(r["cycles_per_iter"]) for r in csv.DictReader(handle)}


def measured_pairs() -> dict[tuple[int, int], float]:
    with (H200 / "v3_pass_pair_h200.csv").open() as handle:
        return {(int(r["mode"]), int(r["warpgroup"])): float(r["cycles_per_iter"]) for r in csv.DictReader(handle)}


def measured_offsets() -> dict[int, tuple[float, float]]:
    """Per delay: warpgroup 0's cycles per iteration (iterations 8-48) and warpgroup 1's lag at iteration 24."""
    stamps: dict[tuple[int, int], dict[int, float]] = defaultdict(dict)
    with (H200 / "softmax_offset/softmax_offset_h200.csv").open() as handle:
        for row in csv.DictReader(handle):
            stamps[int(row["delay"]), int(row["warpgroup"])][int(row["iteration"])] = float(row["cycles"])
    out = {}
    for (delay, group), times in stamps.items():
        if group == 0:
            out[delay] = ((times[48] - times[8]) / 40, stamps[delay, 1][24] - times[24])
    return out


def measured_stalls() -> dict[int, dict[str, float]]:
    """Nsight Compute's stall reasons per warp and iteration of softmax_group<1> and <2> (200 iterations)."""
    out: dict[int, dict[str, float]] = defaultdict(dict)
    prefix = "smsp__average_warp_latency_issue_stalled_"
    with (H200 / "v3_softmax_ncu_h200.csv").open() as handle:
        rows = [row for row in csv.reader(handle) if len(row) > 14 and row[0].isdigit()]
    for row in rows:
        if row[4].startswith("void softmax_group<") and row[12].startswith(prefix):
            groups = int(row[4].split("<")[1][0])
            out[groups][row[12][len(prefix) :].removesuffix(".ratio")] = float(row[14].replace(",", "")) / 200
    return out


def measured_overlap() -> dict[str, float]:
    """ex2 per clock per SM of the calibration's softmax and ex2 roles, one to three warpgroups."""
    out = {}
    for line in (H200 / "overlap_table.txt").read_text().splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[1] == "ex2" and set(parts[0].split("+")) <= {"softmax", "ex2"}:
            out[parts[0]] = float(parts[2])
    return out


def timings(toy: Toy) -> list[tuple[str, list[tuple[float, float]]]]:
    """The probe's 20 timings, toy against chip, by row: 4 builds x 1-3 warpgroups, and the 8 pass-pair rows."""
    groups = measured_groups()
    out = []
    for mask, build in ((0, "whole"), (2, "no ex2"), (32, "no row max"), (34, "neither")):
        program = load(f"softmax_group2_ablate{mask}")
        cells = [(max(simulate([program] * n, toy).periods), groups[mask, n]) for n in (1, 2, 3)]
        out.append((f"softmax {build:10s} 1, 2, 3 warpgroups", cells))
    pairs = measured_pairs()
    exp, row_max = load("pass_pair0_exp"), load("pass_pair1_max")
    for mode, name, programs in (
        (0, "exp", [exp]),
        (1, "max", [row_max]),
        (2, "exp + max", [exp, row_max]),
        (3, "exp + exp", [exp, exp]),
        (4, "max + max", [row_max, row_max]),
    ):
        periods = simulate(programs, toy).periods
        out.append((f"pass pair {name:10s}", [(p, pairs[mode, g]) for g, p in enumerate(periods)]))
    return out


def relative(table: list[tuple[str, list[tuple[float, float]]]]) -> list[float]:
    """Toy over chip, less one, for every timing of a `timings` table."""
    return [model / chip - 1 for _, cells in table for model, chip in cells]


def errors(toy: Toy) -> list[float]:
    """Relative errors over the 20 timings (`timings`)."""
    return relative(timings(toy))


def report(toy: Toy, label: str) -> None:
    print(f"== {label}: {toy}")
    table = timings(toy)
    for name, cells in table:
        print(f"  {name} (toy / chip): " + "   ".join(f"{model:5.0f} / {chip:5.0f}" for model, chip in cells))
    values = relative(table)
    print(
        f"  20 timings: mean |error| {100 * statistics.mean(map(abs, values)):.1f}%, "
        f"largest {100 * max(map(abs, values)):.1f}%"
    )
    offset = load("softmax_offset")
    for delay, (period, lag) in sorted(measured_offsets().items()):
        run = simulate([offset, offset], toy, [0, delay])
        toy_lag = run.starts[4][16] - run.starts[0][16]
        print(
            f"  offset probe, delay {delay:4d}: warpgroup 0 {run.periods[0]:5.0f} / {period:5.0f} cycles per "
            f"iteration, lag of warpgroup 1 {toy_lag:5d} / {lag:5.0f}"
        )


def stall_table(toy: Toy) -> None:
    print(f"== stall reasons per iteration of warp 0, {toy.hold}: toy / Nsight Compute")
    chip = measured_stalls()
    program = load("softmax_group2_ablate0")
    for n in (1, 2):
        run = simulate([program] * n, toy)
        names = sorted(set(run.stalls) | {k for k, v in chip[n].items() if v >= 5})
        print(
            f"  {n} warpgroup(s): "
            + ", ".join(f"{k} {run.stalls.get(k, 0):.0f}/{chip[n].get(k, 0):.0f}" for k in names)
        )


def overlap_table(toy: Toy) -> None:
    chip = measured_overlap()
    cells = []
    for role in ("softmax", "ex2"):
        program = load(f"overlap_{role}")
        ex2 = 32 * 4 * sum(1 for i in program if i.pipe == "mufu")  # per warpgroup and iteration
        for n in (1, 2):
            rate = n * ex2 / max(simulate([program] * n, toy).periods)
            cells.append(f"{'+'.join([role] * n)} {rate:.2f}/{chip['+'.join([role] * n)]:.2f}")
    print(f"  calibration overlap roles, ex2 per clock per SM (toy / chip): {', '.join(cells)}")


def variants() -> None:
    grid = [
        Toy(hold="none", queue_depth=q, window=w, per_smsp_queue=s, policy=p, mufu=m)
        for q, w, s, p, m in itertools.product((1, 2, 4, 16), (1, 16), (True, False), ("turns", "greedy"), (18, 22))
        if w <= q
    ]
    grid += [
        Toy(hold=h, policy=p, mufu=m)
        for h, p, m in itertools.product(("all", "yield0", "yield1"), ("turns", "greedy"), (18, 22))
    ]
    with Pool(2) as pool:
        scores = pool.map(_score, grid)
    print(
        "== variants by mean |error| over the 20 timings (largest; spread of the offset probe's period over its delays;"
        " warp 0's mio_throttle per iteration beside a second softmax, Nsight Compute: 343)"
    )
    for toy, mean, largest, spread, throttled in sorted(scores, key=lambda s: s[1]):
        print(f"  {mean:5.1f}% ({largest:5.1f}%; {spread:5.1f}%; {throttled:4.0f})  {toy}")


def _score(toy: Toy) -> tuple[Toy, float, float, float, float]:
    values = errors(toy)
    offset = load("softmax_offset")
    periods = [simulate([offset, offset], toy, [0, d]).periods[0] for d in sorted(measured_offsets())]
    spread = 100 * (max(periods) - min(periods)) / statistics.mean(periods)
    throttled = simulate([load("softmax_group2_ablate0")] * 2, toy).stalls.get("mio_throttle", 0.0)
    return toy, 100 * statistics.mean(map(abs, values)), 100 * max(map(abs, values)), spread, throttled


def schedules() -> None:
    """Each loop's instructions and the sum of its stall counts (its issue schedule for one warp with nothing
    waited for), and the stall count and yield bit of the FFMA chains' FFMAs."""
    print("== loops: instructions, sum of stall counts")
    for path in sorted(LOOPS.glob("*.txt")):
        program = load(path.stem)
        print(f"  {path.stem:26s} {len(program):5d} {sum(max(1, i.stall) for i in program):6d}")
    for name in ("ffma_chain", "ffma_independent"):
        kinds = Counter((i.stall, i.yields) for i in load(name) if i.pipe == "fma")
        print(f"  {name}: FFMAs by (stall count, yield bit): {dict(kinds)}")


def stall_hold_predictions() -> None:
    """What `validation/probes/stall_hold.py` would measure under each rule: cycles per step of each warp's loop."""
    print("== validation/probes/stall_hold.py, predicted cycles per step (plain / hold; MUFU 22)")
    modes = {0: ("chain", None), 1: ("chain", "chain"), 2: ("chain", "independent"), 3: ("independent", None),
             4: ("independent", "independent"), 5: ("mufu_fadd", None), 6: ("mufu_mufu", None)}  # fmt: skip
    for mode, kinds in modes.items():
        present = [kind for kind in kinds if kind is not None]
        programs = [load(f"stall_hold_{kind}") for kind in present]
        steps = [
            sum(1 for i in p if i.pipe == ("mufu" if "mufu" in kind else "fma"))
            for p, kind in zip(programs, present, strict=True)
        ]
        cells = []
        for rule in ("none", "all"):
            periods = simulate(programs, Toy(hold=rule)).periods
            cells.append(", ".join(f"{period / n:.2f}" for period, n in zip(periods, steps, strict=True)))
        beside = f" beside {kinds[1]}" if kinds[1] else ""
        print(f"  mode {mode}: {kinds[0]}{beside}: {cells[0]} / {cells[1]}")


def measured_hand_ins() -> dict[tuple[int, int, int], list[float]]:
    """Per (d, warpgroups, softmaxes beside): warpgroup 0's first eight wgmma stamps (`wgmma_queue.py --softmax`)."""
    stamps: dict[tuple[int, int, int], dict[str, float]] = defaultdict(dict)
    with (H200 / "wgmma_queue/wgmma_queue_softmax_h200.csv").open() as handle:
        for row in csv.DictReader(handle):
            if row["warpgroup"] == "0":
                key = (int(row["headdim"]), int(row["warpgroups"]), int(row["delay_cycles"]))
                stamps[key][row["stamp"]] = float(row["cycles"])
    order = [f"s{k}" for k in range(1, 9)] + [f"pv{k}" for k in range(1, 9)]
    return {key: [times[name] for name in order if name in times][:8] for key, times in stamps.items()}


def hand_ins() -> None:
    """Warpgroup 0 handing in S's and P V's wgmma instructions (its SASS, once) alone and beside warpgroup 1 looping
    over the softmax, both starting together as after the probe's barrier: the cycles between the first eight."""
    print("== wgmma hand-ins of warpgroup 0, cycles between its first eight (toy / chip; MUFU 22)")
    chip = measured_hand_ins()
    for d in (64, 128):
        issue, softmax = load(f"wgmma_softmax_d{d}_issue"), load(f"wgmma_softmax_d{d}_softmax")
        marks = [n for n, i in enumerate(issue) if i.pipe == "tensor"][:8]
        rows = [("alone", [issue], "plain", (d, 1, 0))]
        rows += [("beside a softmax", [issue, softmax], rule, (d, 2, 1)) for rule in ("plain", "hold")]
        for label, programs, rule, key in rows:
            run = simulate(programs, Toy(hold="none" if rule == "plain" else "all"), once=True)
            times = [run.issued[n] for n in marks]
            gaps = [b - a for a, b in itertools.pairwise(times)]
            measured = [round(b - a) for a, b in itertools.pairwise(chip[key])]
            print(
                f"  d={d:3d} {label:16s} {rule:5s}: {gaps} (median {statistics.median(gaps):.0f}) / {measured} "
                f"(median {statistics.median(measured):.0f})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variants", action="store_true")
    args = parser.parse_args()
    if args.variants:
        variants()
        return
    schedules()
    stall_hold_predictions()
    hand_ins()
    for toy, label in (
        (Toy(), "plain"),
        (Toy(hold="all"), "hold"),
        (Toy(mufu=18), "plain, MUFU 18"),
        (Toy(hold="all", mufu=18), "hold, MUFU 18"),
    ):
        report(toy, label)
        overlap_table(toy)
    for toy in (Toy(), Toy(hold="all")):
        stall_table(toy)
    print(
        "(the loops: sass_loops.py; chip rows: v3_softmax_groups_h200.csv, v3_pass_pair_h200.csv, "
        "softmax_offset_h200.csv, v3_softmax_ncu_h200.csv, overlap_table.txt)"
    )


if __name__ == "__main__":
    main()

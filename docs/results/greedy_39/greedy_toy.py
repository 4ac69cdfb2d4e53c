"""The thirty-fifth session's issue toy (../sass_toy_35/issue_toy.py) with its schedulers greedy, against the
probes as the chip times them (thirty-ninth session, issue 6; README.txt beside).

The chip's probes time each warp's whole loop: a warp that waits while another holds its scheduler counts the wait.
`stall_hold.py` (validation/h200/stall_hold_on_h100/) and `mufu_queue.py`'s shfl_beside (mufu_queue_on_h100/) ran a
dependency chain beside a busy warp that ends first; `chain_beside.py` runs every chain kind beside every busy kind,
the busy warp longer. Here the toy runs the same loops (their SASS: ../sass_toy_35/loops, ./loops from
chain_loops.py) for the same ratio of work, scaled down, and reports the chain's cycles per step over its whole run;
then the softmax probe's 20 timings with each warpgroup timed over its whole run, and the two-warpgroup offset
probe. Variants: the scheduler's order (`turns`: round robin; `greedy`: the warp that issued last while it can, then
the oldest), the MUFU's result latency (18, 22), and `writeback` (a MUFU or SHFL result waits for a cycle with no
FP32/ALU result). Run from the repository root: `python docs/results/greedy_39/greedy_toy.py > .../greedy_toy.txt`.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "sass_toy_35"))

import consumer_toy  # noqa: E402
import issue_toy as toy_sm  # noqa: E402

LOOPS = HERE / "loops"
VARIANTS = (
    (toy_sm.Toy(), "turns, MUFU 22"),
    (toy_sm.Toy(mufu=18), "turns, MUFU 18"),
    (toy_sm.Toy(policy="greedy"), "greedy, MUFU 22"),
    (toy_sm.Toy(policy="greedy", mufu=18), "greedy, MUFU 18"),
    (toy_sm.Toy(policy="greedy", mufu=18, writeback=True), "greedy, MUFU 18, writeback"),
    (toy_sm.Toy(policy="greedy", mufu=18, mufu_port=2), "greedy, MUFU 18, an exp's issue takes the ALU 2 cycles"),
    (toy_sm.Toy(policy="greedy", mufu_port=2), "greedy, MUFU 22, an exp's issue takes the ALU 2 cycles"),
    (
        toy_sm.Toy(policy="greedy", mufu=18, mufu_port=2, pipe_share=True),
        "greedy, MUFU 18, an exp's issue takes the ALU 2 cycles, a busy pipe goes to a waiting warp first",
    ),
    (toy_sm.Toy(hold="all", mufu=18), "hold (refuted by stall_hold), turns, MUFU 18"),
)


def whole_run(starts: tuple[int, ...], steps: int) -> float:
    """Cycles per step of a warp's run from its first iteration's start to its last's (`steps` per iteration)."""
    return (starts[-1] - starts[0]) / ((len(starts) - 1) * steps)


def steps_of(program: list[toy_sm.Instruction], pipe: str) -> int:
    return sum(1 for instruction in program if instruction.pipe == pipe)


# (label, chain loop and its folder, chain pipe, busy loop and folder or None, busy pipe, busy steps per chain step)
# as the probes ran them: stall_hold 32 x 4096 FFMAs each; shfl_beside 8192 SHFL against 65536 FFMAs or exps.
OLD = toy_sm.LOOPS
PROBES = (
    ("stall_hold chain alone (chip 4.06)", ("stall_hold_chain", OLD), "fma", None, "", 1.0),
    ("stall_hold chain beside chain (chip 4.10)",
     ("stall_hold_chain", OLD), "fma", ("stall_hold_chain", OLD), "fma", 1.0),
    ("stall_hold chain beside independent (chip 5.08)",
     ("stall_hold_chain", OLD), "fma", ("stall_hold_independent", OLD), "fma", 1.0),
    ("shfl_beside alone (chip 24.14)", ("chain_shfl", LOOPS), "shuffle", None, "", 1.0),
    ("shfl_beside exps, same scheduler (chip 24.88)",
     ("chain_shfl", LOOPS), "shuffle", ("busy_exp16", LOOPS), "mufu", 8.0),
    ("shfl_beside FFMAs, same scheduler (chip 31.88)",
     ("chain_shfl", LOOPS), "shuffle", ("busy_ffma16", LOOPS), "fma", 8.0),
)  # fmt: skip
CHAIN_STEPS = 1024  # the chain's steps in each run here (the probes ran 8192 to 131072)


def probe_rows(toy: toy_sm.Toy) -> list[str]:
    out = []
    for label, (chain_name, chain_folder), chain_pipe, busy, busy_pipe, ratio in PROBES:
        chain = toy_sm.load(chain_name, chain_folder)
        per_iteration = steps_of(chain, chain_pipe)
        programs, iterations = [chain], [max(2, CHAIN_STEPS // per_iteration)]
        if busy is not None:
            other = toy_sm.load(*busy)
            programs.append(other)
            iterations.append(round(CHAIN_STEPS * ratio / steps_of(other, busy_pipe)))
        run = toy_sm.simulate(programs, toy, iterations=iterations)
        out.append(f"    {label}: {whole_run(run.starts[0], per_iteration):.2f}")
    return out


# chain_beside.py: each chain 256 x 32 steps beside 32768 x 16 instructions of the busy warp (64 busy instructions a
# chain step), each stream 2048 x 32 instructions beside them (8 a stream instruction); here 256 steps or
# instructions of the chain and 64 or 8 times that of the busy warp. Per kind: its pipe and that ratio.
CHAIN_KINDS = {"ffma": ("fma", 64), "mufu": ("mufu", 64), "shfl": ("shuffle", 64), "mufu_fadd": ("mufu", 64),
               "fmnmx_fadd": ("alu", 64), "exp_stream": ("mufu", 8), "fmnmx_stream": ("alu", 8),
               "fadd_stream": ("fma", 8)}  # fmt: skip
BUSY_KINDS = {"ffma16": "fma", "ffma2": "fma", "fmnmx16": "alu", "fadd16": "fma", "exp16": "mufu"}


def chain_beside_rows(toy: toy_sm.Toy) -> list[str]:
    """The toy's side of chain_beside.py: the chain's cycles per step over its whole run, alone and beside each busy
    kind on its scheduler."""
    out = []
    for chain_name, (chain_pipe, ratio) in CHAIN_KINDS.items():
        chain = toy_sm.load(f"chain_{chain_name}", LOOPS)
        per_iteration = steps_of(chain, chain_pipe)
        chain_iterations = max(2, 256 // per_iteration)
        alone = toy_sm.simulate([chain], toy, iterations=[chain_iterations])
        cells = [f"{whole_run(alone.starts[0], per_iteration):.2f}"]
        for busy_name in BUSY_KINDS:
            busy = toy_sm.load(f"busy_{busy_name}", LOOPS)
            busy_iterations = round(256 * ratio / steps_of(busy, BUSY_KINDS[busy_name]))
            run = toy_sm.simulate([chain, busy], toy, iterations=[chain_iterations, busy_iterations])
            cells.append(f"{whole_run(run.starts[0], per_iteration):.2f}")
        out.append(f"    {chain_name:10s} " + "  ".join(f"{cell:>8s}" for cell in cells))
    return out


def whole_timings(toy: toy_sm.Toy) -> list[tuple[str, list[tuple[float, float]]]]:
    """The softmax probe's 20 timings, each warpgroup over its whole run (its slowest warp), toy against chip."""
    groups, pairs = toy_sm.measured_groups(), toy_sm.measured_pairs()
    iterations = toy_sm.ITERATIONS

    def timed(programs: list[list[toy_sm.Instruction]]) -> list[float]:
        run = toy_sm.simulate(programs, toy, iterations=[iterations] * len(programs))
        return [max(whole_run(run.starts[4 * g + w], 1) for w in range(4)) for g in range(len(programs))]

    out = []
    for mask, build in ((0, "whole"), (2, "no ex2"), (32, "no row max"), (34, "neither")):
        program = toy_sm.load(f"softmax_group2_ablate{mask}")
        out.append(
            (
                f"softmax {build:10s} 1, 2, 3 warpgroups",
                [(max(timed([program] * n)), groups[mask, n]) for n in (1, 2, 3)],
            )
        )
    exp, row_max = toy_sm.load("pass_pair0_exp"), toy_sm.load("pass_pair1_max")
    for mode, name, programs in ((0, "exp", [exp]), (1, "max", [row_max]), (2, "exp + max", [exp, row_max]),
                                 (3, "exp + exp", [exp, exp]), (4, "max + max", [row_max, row_max])):  # fmt: skip
        out.append((f"pass pair {name:10s}", [(p, pairs[mode, g]) for g, p in enumerate(timed(programs))]))
    return out


CONSUMERS_CHIP = (
    "  our FA3 kernel's two consumers (chip, v3_phase_offset_h200.csv, overlap on: d = 64 no ping-pong 2383-2400 at"
    " delays 0-512, 1981 at 1024; ping-pong 2099-2104; d = 128 2577-2588 at 0-1024, ping-pong 2594-2605):"
)


def consumer_rows(toy: toy_sm.Toy) -> list[str]:
    """../sass_toy_35/consumer_toy.py's two FA3 consumers (contention on, the tensor cores' queue of 8) under `toy`:
    cycles per key tile of consumer 0 and 1 and consumer 1's lag at tile 16, by consumer 1's start delay."""
    out = []
    for d in (64, 128):
        for pingpong in ("false", "true"):
            program = consumer_toy.load(f"fa3_consumer_d{d}_pingpong_{pingpong}")
            cells = []
            for delay in (0, 256, 512, 1024):
                first, second, lag = consumer_toy.run(program, toy, delay, True)
                cells.append(f"delay {delay:4d}: {first:5.0f} {second:5.0f} lag {lag:5d}")
            out.append(f"    d={d:3d} pingpong={pingpong:5s} " + " | ".join(cells))
    return out


def main() -> None:
    offset = toy_sm.load("softmax_offset")
    measured = toy_sm.measured_offsets()
    for toy, label in VARIANTS:
        print(f"== {label}: {toy}")
        print("  the probes' chains, cycles per step over the chain's whole run:")
        print("\n".join(probe_rows(toy)))
        print(
            "  chain_beside.py's chains, cycles per step over the chain's whole run: alone, beside "
            + ", ".join(BUSY_KINDS)
        )
        print("\n".join(chain_beside_rows(toy)))
        table = whole_timings(toy)
        for name, cells in table:
            print(f"  {name} (toy / chip): " + "   ".join(f"{model:5.0f} / {chip:5.0f}" for model, chip in cells))
        values = toy_sm.relative(table)
        print(f"  20 timings: mean |error| {100 * statistics.mean(map(abs, values)):.1f}%, "
              f"largest {100 * max(map(abs, values)):.1f}%")  # fmt: skip
        for delay, (period, lag) in sorted(measured.items()):
            run = toy_sm.simulate([offset, offset], toy, [0, delay])
            toy_lag = run.starts[4][16] - run.starts[0][16]
            print(f"  offset probe, delay {delay:4d}: warpgroup 0 {run.periods[0]:5.0f} / {period:5.0f} cycles per "
                  f"iteration, lag of warpgroup 1 {toy_lag:5d} / {lag:5.0f}")  # fmt: skip
        if toy.writeback or toy.mufu_port or toy.pipe_share:  # consumer_toy has none of these rules
            continue
        print(CONSUMERS_CHIP)
        print("\n".join(consumer_rows(toy)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()

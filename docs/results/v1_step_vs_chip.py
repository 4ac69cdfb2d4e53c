"""A middle query step of FA1's released forward at d = 128 on the H100, phase by phase: the chip's (Nsight
Compute's source page of the N = 4096 run, `validation/h200/fa1_release/ncu/fa1_d128_n4096_source.csv`: the middle
key blocks' loop, its stall samples split into the step's phases by SASS index, times the CTA's step as the run's
measured time gives it) against the model's (exact mode at the same shape and counted clock, `splits=4`, a trace of
SM 0: the ops of one step from the middle of the run). The phases are read off the loop's SASS as
`fa1_release_stalls.py` prints it (the index ranges in `PHASES`): where an instruction waits, its samples are that
wait's. Two CTAs share each SM, four warps each (one per scheduler): a CTA's step lasts 2 x time x clock / the SM's
steps. Run from the repository root: `python docs/results/v1_step_vs_chip.py > docs/results/v1_step_vs_chip.txt`
(about half a minute)."""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

from simgpu import Problem, load_arch, simulate
from simgpu.trace import Trace

SOURCE = Path("validation/h200/fa1_release/ncu/fa1_d128_n4096_source.csv")
MEASURED = Path("validation/h200/fa1_release/fa1_release_h100.csv")
MIDDLE_EXECUTIONS = 256 * 4 * 30 * 64  # a middle key block's instruction: warps x middle key blocks x steps each
# (first SASS index, last, phase): the middle key blocks' loop as `fa1_release_stalls.py` lists it.
PHASES = (
    (1566, 1666, "S = Q K^T (ldmatrix, HMMA), o_tmp and Q loads issued, mask"),
    (1667, 1667, "wait for o_tmp (the FMUL that seeds the row max with lse)"),
    (1668, 1781, "row max: FMNMX, shuffles, partial maxes to smem"),
    (1782, 1782, "__syncthreads: the partial row maxes"),
    (1783, 1862, "exps: FFMA, MUFU.EX2, row sums, packs"),
    (1863, 1890, "P~ V_j begins"),
    (1891, 1891, "wait for the next Q (its commit to smem)"),
    (1892, 1971, "P~ V_j, partial outputs to smem"),
    (1972, 1972, "__syncthreads: the partial outputs"),
    (1973, 2132, "merge: partials summed, row statistics, rescale"),
    (2133, 2266, "O and lse stored, address arithmetic, loop"),
)


def chip_phases() -> tuple[float, list[tuple[str, float]]]:
    with SOURCE.open() as handle:
        rows = list(csv.reader(handle))
    header, data = rows[1], rows[2:]
    samples, executed = header.index("# Samples"), header.index("Instructions Executed")
    loop = {n: float(row[samples].replace(",", "") or 0) for n, row in enumerate(data)
            if float(row[executed].replace(",", "") or 0) == MIDDLE_EXECUTIONS}  # fmt: skip
    total = sum(loop.values())
    shares = [(name, sum(v for n, v in loop.items() if first <= n <= last) / total) for first, last, name in PHASES]
    covered = sum(share for _, share in shares)
    return covered, shares


def main() -> None:
    row = next(r for r in csv.DictReader(MEASURED.open())
               if (r["headdim"], r["seqlen"], r["causal"]) == ("128", "4096", "False"))  # fmt: skip
    clock_hz, measured_s = float(row["sm_clock_mhz_counted"]) * 1e6, float(row["median_ms"]) * 1e-3
    batch, heads, splits = int(row["batch"]), int(row["heads"]), int(row["splits"])
    steps_per_sm = batch * heads * (4096 // 16) * (4096 // 128) / 132
    chip_step = 2 * measured_s * clock_hz / steps_per_sm
    covered, shares = chip_phases()
    arch = load_arch("h100", {"clock_hz": clock_hz, "power": None})
    trace = Trace(sms=(0,), max_spans=20_000_000)
    result = simulate(arch, "v1", Problem(batch, heads, 4096, 128), {"splits": splits}, mode="exact", trace=trace)
    model_step = 2 * result.cycles / steps_per_sm
    print(f"chip: {measured_s * 1e3:.3f} ms at {clock_hz / 1e6:.0f} MHz, a CTA's step {chip_step:.0f} cycles; "
          f"the phases below hold {100 * covered:.1f}% of the loop's samples")  # fmt: skip
    print(f"model: {result.time_s * 1e3:.3f} ms, a CTA's step {model_step:.0f} cycles on average")
    print("chip, per phase (share of the loop's samples x the step):")
    for name, share in shares:
        print(f"  {share * chip_step:6.0f}  {100 * share:4.1f}%  {name}")
    spans = sorted((s for s in trace.spans if s.process == "SM 0" and s.track == "CTA slot 0 warps"),
                   key=lambda s: s.start_cycles)  # fmt: skip
    middle = len(spans) // 2
    begin = next(n for n in range(middle, len(spans)) if spans[n].name == "Mma" and spans[n - 1].name == "Smem")
    end = next(n for n in range(begin + 1, len(spans)) if spans[n].name == "Mma" and spans[n - 1].name == "Smem")
    step = spans[begin : end + 1]
    print(f"model, one middle step of CTA slot 0 ({step[-1].start_cycles - step[0].start_cycles:.0f} cycles; each op "
          f"from its start to the next op's start, loads issued together counted once):")  # fmt: skip
    for this, after in itertools.pairwise(step):
        gap = after.start_cycles - this.start_cycles
        if gap > 0:
            print(f"  {gap:6.0f}  {this.name} ({this.end_cycles - this.start_cycles:.0f} cycles long)")


if __name__ == "__main__":
    main()

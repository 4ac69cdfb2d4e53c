"""The instructions of FlashAttention-1's released forward per warp and query step, by kind, in the first and the
middle key blocks' loops (and the last's, executed only): executed on an H100 (Nsight Compute's source pages,
`validation/h200/fa1_release/ncu/`, each instruction weighted by its executions over the loop's first instruction's,
with the loop's size), and as the same source compiles for sm_80 and sm_90 here (`validation/h200/fa1_release/sass/`,
`validation/probes/fa1_sass.py`; static: each instruction once). Then the table `algorithms.v1.sass_counts.MEASURED`
holds: per warp and step, IMAD, the integer ALU instructions less the mask's two per score, and the issue-only ones,
from the executed counts.

Run: `python docs/results/fa1_sass_counts.py` (writes nothing; its output is `docs/results/fa1_sass_counts.txt`).
"""

from __future__ import annotations

import csv
import sys
from collections import Counter
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parent)]

from fa1_release_stalls import opcode  # noqa: E402

from algorithms.v1.sass_counts import MASK_PER_SCORE  # noqa: E402
from validation.probes.fa1_sass import KEY_TILE, LOOP_NAMES, inner_loops  # noqa: E402

NCU = Path("validation/h200/fa1_release/ncu")
BUILDS = Path("validation/h200/fa1_release/sass")
PROFILED = {64: "fa1_d64_n1024", 128: "fa1_d128_n4096"}
INTEGER = {"LOP3", "VIADD", "IADD3", "LEA", "PLOP3", "SHF", "SEL", "VIMNMX", "VIADDMNMX", "ISETP", "FSEL", "PRMT"}
CONTROL = {"BRA", "BSSY", "BSYNC", "NOP", "EXIT", "BAR", "WARPSYNC", "LDC", "S2R", "CS2R", "R2UR", "S2UR"}
SHOWN = ("imad", "integer", "issue_only", "HMMA", "FFMA", "FADD", "FMUL", "FMNMX", "MUFU", "F2FP", "SHFL", "STS", "LDS")
THREADS = 128  # the forward's 4 warps
# The profiled kernel's loops in address order: the first, middle and last key blocks' (`Is_first`, neither, `Is_last`).
PROFILED_LOOPS = (*LOOP_NAMES, "last_loop")


def kind(op: str) -> str:
    """IMAD (FMA pipe), integer ALU, issue-only (uniform datapath, branches, barriers, constant loads), or the op."""
    if op == "IMAD":
        return "imad"
    if op in INTEGER:
        return "integer"
    if op.startswith("U") or op in CONTROL:
        return "issue_only"
    return op


def executed(headdim: int) -> dict[str, tuple[Counter[str], int]]:
    """Per loop of the profiled kernel (`PROFILED_LOOPS`), each kind's executions per warp and step on the H100, and
    the loop's instructions (each once)."""
    with (NCU / f"{PROFILED[headdim]}_source.csv").open() as handle:
        rows = list(csv.reader(handle))[2:]
    code = [(int(row[0], 16), row[1].strip()) for row in rows]
    runs = [float(row[3].replace(",", "") or 0) for row in rows]
    out = {}
    for name, (first, last) in zip(PROFILED_LOOPS, inner_loops(code), strict=False):
        counts = Counter[str]()
        for n in range(first, last + 1):
            counts[kind(opcode(code[n][1]))] += runs[n] / runs[first]
        out[name] = counts, last + 1 - first
    return out


def static(path: Path) -> Counter[str]:
    return Counter(kind(opcode(line)) for line in path.read_text().splitlines())


def line(label: str, counts: Counter[str]) -> str:
    return f"{label:28}" + "".join(f"{counts[k]:9.1f}" for k in SHOWN) + f"{counts.total():9.1f}"


def main() -> None:
    print(f"{'per warp and step':28}" + "".join(f"{k[:8]:>9}" for k in SHOWN) + f"{'all':>9}")
    table = {}
    for headdim, profiled in PROFILED.items():
        runs = executed(headdim)
        mask = MASK_PER_SCORE * 16 * KEY_TILE[headdim] / THREADS  # compare and select per score and thread
        for name in PROFILED_LOOPS:
            counts, size = runs[name]
            print(line(f"d={headdim} {name} H100 executed", counts) + f"  (loop of {size} instructions)")
            if name not in LOOP_NAMES:
                continue
            for arch in (90, 80):
                built = static(BUILDS / f"fa1_d{headdim}_sm{arch}_{name}.txt")
                print(line(f"d={headdim} {name} sm_{arch} static", built))
        table[headdim] = [
            (round(c["imad"], 1), round(c["integer"] - mask, 1), round(c["issue_only"], 1))
            for c in (runs[n][0] for n in LOOP_NAMES)
        ]
        print(f"  {profiled}: the mask's compare and select {mask:.0f} per warp and step")
    print("MEASURED (head dim: (first, later) as (imad, integer less the mask, issue_only)):")
    for headdim, rows in table.items():
        print(f"  {headdim}: {rows}")


if __name__ == "__main__":
    main()

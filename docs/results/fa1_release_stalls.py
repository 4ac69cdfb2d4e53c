"""Where FlashAttention-1's released forward spends its time on the H100 (v1.0.9's kernel, Nsight Compute's source
page of the third of four launches, `validation/probes/fa1_release_ncu.sh`): per profiled configuration, the warp
stall reasons over all samples, the executed warp instructions per warp and query step by opcode, and the main loop
of the middle key blocks (the kernel's `device_1xN_<false, false>`, whose instructions run once per warp and step)
in runs of SASS, each instruction that holds more than `BIG` of the loop's samples on a line of its own with its top
stall reasons. The source pages are committed reduced to the columns read here (`--reduce SRC DST`).

Run: `python docs/results/fa1_release_stalls.py` (reads `validation/h200/fa1_release/ncu/*_source.csv`).
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter
from pathlib import Path

NCU = Path("validation/h200/fa1_release/ncu")
BIG = 0.02  # share of the loop's samples above which an instruction gets a line of its own
RUN = 40  # instructions per line of the loop's map otherwise
KEPT = ("Address", "Source", "# Samples", "Instructions Executed")
# Per profiled configuration (file stem): warps (CTAs x 4) and query steps per warp (key blocks x query steps per
# CTA), and the executions of a middle key block's instruction (warps x middle key blocks x steps per key block).
SHAPES = {
    "fa1_d64_n1024": (512 * 4, 4 * 64, 512 * 4 * 2 * 64),  # 16 x 32 heads, one split; 4 key blocks of 256
    "fa1_d128_n4096": (256 * 4, 32 * 64, 256 * 4 * 30 * 64),  # 1 x 16 heads, 4 splits; 32 key blocks of 128
}


def reduce(source: Path, target: Path) -> None:
    """Nsight Compute's source page (`--page source --csv`: a kernel-name line, then the header) with only the
    address, SASS, sample and execution columns and the stall reasons over all samples."""
    with source.open() as handle:
        rows = list(csv.reader(handle))
    header = rows[1]
    columns = [header.index(name) for name in KEPT]
    columns += [n for n, name in enumerate(header) if name.startswith("stall_") and "Not Issued" not in name]
    with target.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(rows[0])
        for row in rows[1:]:
            if len(row) > max(columns):
                writer.writerow([row[n] for n in columns])


def opcode(sass: str) -> str:
    words = sass.split()
    if not words:
        return "?"
    return (words[1] if words[0].startswith("@") and len(words) > 1 else words[0]).split(".")[0]


def number(text: str) -> float:
    return float(text.replace(",", "") or 0)


def report(path: Path) -> None:
    with path.open() as handle:
        rows = list(csv.reader(handle))
    header, data = rows[1], rows[2:]
    source, samples, executed = (header.index(name) for name in ("Source", "# Samples", "Instructions Executed"))
    stalls = [n for n, name in enumerate(header) if name.startswith("stall_")]
    warps, steps, middle = SHAPES[path.name.removesuffix("_source.csv")]
    total = sum(number(row[samples]) for row in data)
    reasons = Counter({header[n][6:]: sum(number(row[n]) for row in data) for n in stalls})
    print(f"## {path.name}: {total:.0f} samples")
    print("stall reasons: " + ", ".join(f"{k} {100 * v / reasons.total():.1f}%" for k, v in reasons.most_common(9)))
    mix = Counter[str]()
    for row in data:
        mix[opcode(row[source])] += number(row[executed])
    print(f"warp instructions per warp and step: {mix.total() / (warps * steps):.1f}")
    print("  " + ", ".join(f"{k} {v / (warps * steps):.1f}" for k, v in mix.most_common(24)))
    loop = [(n, row) for n, row in enumerate(data) if number(row[executed]) == middle]
    in_loop = sum(number(row[samples]) for _, row in loop)
    print(f"middle key blocks' loop: {len(loop)} instructions, {100 * in_loop / total:.1f}% of the samples")
    pending: list[tuple[int, list[str]]] = []

    def flush() -> None:
        if pending:
            share = sum(number(row[samples]) for _, row in pending) / in_loop
            kinds = Counter(opcode(row[source]) for _, row in pending).most_common(5)
            names = " ".join(f"{k}x{c}" for k, c in kinds)
            print(f"  {pending[0][0]:5}-{pending[-1][0]:5} {100 * share:5.1f}%  {names}")
            pending.clear()

    for n, row in loop:
        share = number(row[samples]) / in_loop
        if share > BIG:
            flush()
            top = sorted(((number(row[k]), header[k][6:]) for k in stalls), reverse=True)[:2]
            why = " ".join(f"{name}:{value:.0f}" for value, name in top)
            print(f"  {n:5}       {100 * share:5.1f}%  ** {row[source].strip()[:60]}  {why}")
            continue
        pending.append((n, row))
        if len(pending) >= RUN:
            flush()
    flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reduce", nargs=2, type=Path, metavar=("SRC", "DST"), help="reduce a source page, then stop")
    args = parser.parse_args()
    if args.reduce:
        reduce(*args.reduce)
        return
    for path in sorted(NCU.glob("*_source.csv")):
        report(path)


if __name__ == "__main__":
    main()

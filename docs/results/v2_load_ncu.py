"""What the K/V copies of our FA2 forward cost on the H200, from Nsight Compute (`validation/probes/v2_load_ncu.sh`:
`validation/h200/v2_load_ncu.tgz`): the default build beside the same build without its cp.async copies
(FA2_ABLATE=1), d = 64 and 128, B=4, H=2048/d, N=4096, two CTAs per SM.

Per pair of builds: elapsed cycles, the tensor pipe's utilization (ncu's SM Busy, which its rule names the tensor
pipe's) and L1 throughput; the warps' stall samples (a sample is one warp's state, so shares are of warp time) in the
load code (after the loop's BAR.SYNC up to its LDGDEPBAR, barrier stalls left out) and outside it, by stall reason;
and the opcodes whose samples outside the load code grew most. Then the model's side: the v2 schedule on the H200 file
at 1800 MHz (the counted clock of these runs), exact mode, the same shapes: the tensor cores' busy share (busy time
includes the slowing beside the lane pipes and ldmatrix). Run: `python docs/results/v2_load_ncu.py` (writes
`v2_load_ncu.txt`)."""

from __future__ import annotations

import csv
import gzip
import io
import re
import tarfile
from collections import Counter
from pathlib import Path

from simgpu import Problem, load_arch, simulate

ARCHIVE = Path("validation/h200/v2_load_ncu.tgz")


def details(archive: tarfile.TarFile, build: str) -> dict[str, str]:
    """The build's details page: metric name -> value (first instance)."""
    text = archive.extractfile(f"v2_load_ncu/{build}_details.csv").read().decode()  # type: ignore[union-attr]
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    out: dict[str, str] = {}
    for row in csv.DictReader(lines[header:]):
        out.setdefault(row["Metric Name"], row["Metric Value"])
    return out


def source(archive: tarfile.TarFile, build: str) -> list[dict[str, str]]:
    data = archive.extractfile(f"v2_load_ncu/{build}_source.csv.gz").read()  # type: ignore[union-attr]
    return list(csv.DictReader(io.StringIO(gzip.decompress(data).decode()).read().splitlines()[1:]))


def opcode(sass: str) -> str:
    words = re.sub(r"^@!?U?P\w+\s+", "", sass.strip()).split()
    return words[0] if words else ""


def split(rows: list[dict[str, str]]) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """Stall samples by reason inside the load code (barrier left out) and outside it, and by opcode outside it."""
    bar = max(i for i, row in enumerate(rows) if "BAR.SYNC" in row["Source"])
    end = min(i for i, row in enumerate(rows) if "LDGDEPBAR" in row["Source"] and i > bar)
    inside: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    by_opcode: Counter[str] = Counter()
    for i, row in enumerate(rows):
        for column, value in row.items():
            if not column.startswith("stall_") or "Not Issued" in column:
                continue
            reason = column.removeprefix("stall_")
            if bar < i <= end:
                if reason != "barrier":
                    inside[reason] += int(value or 0)
            else:
                outside[reason] += int(value or 0)
        if not bar < i <= end:
            by_opcode[opcode(row["Source"])] += int(row["Warp Stall Sampling (All Samples)"] or 0)
    return inside, outside, by_opcode


def main() -> None:
    lines = []
    with tarfile.open(ARCHIVE) as archive:
        for d in (64, 128):
            loaded, bare = f"fwd{d}_shared_ahead", f"fwd{d}_shared_noload"
            facts = {b: details(archive, b) for b in (loaded, bare)}
            parts = {b: split(source(archive, b)) for b in (loaded, bare)}
            lines.append(f"d={d}: with copies / without")
            for name in ("Elapsed Cycles", "SM Busy", "L1/TEX Cache Throughput", "Issue Slots Busy"):
                lines.append(f"  {name:24s} {facts[loaded][name]:>12s} / {facts[bare][name]:>12s}")
            total = {b: sum(parts[b][0].values()) + sum(parts[b][1].values()) for b in (loaded, bare)}
            lines.append(f"  stall samples            {total[loaded]:>12d} / {total[bare]:>12d}")
            inside = sum(parts[loaded][0].values()) - sum(parts[bare][0].values())
            outside = sum(parts[loaded][1].values()) - sum(parts[bare][1].values())
            lines.append(f"  samples the copies add: in the load code {inside:+d}, outside it {outside:+d}")
            top = parts[loaded][0].most_common(4)
            lines.append("  load code's stalls (with copies): " + ", ".join(f"{r} {n}" for r, n in top))
            grown = Counter({r: parts[loaded][1][r] - parts[bare][1][r] for r in parts[loaded][1]})
            lines.append("  outside, grown most: " + ", ".join(f"{r} {n:+d}" for r, n in grown.most_common(4)))
            ops = Counter({o: parts[loaded][2][o] - parts[bare][2][o] for o in parts[loaded][2]})
            lines.append("  outside, by opcode: " + ", ".join(f"{o} {n:+d}" for o, n in ops.most_common(4)))
    arch = load_arch("h200", {"clock_hz": 1.8e9, "power": None})
    for d in (64, 128):
        result = simulate(arch, "v2", Problem(4, 2048 // d, 4096, d), mode="exact")
        lines.append(f"model d={d}: tensor cores busy {result.busy['tensor']:.1%} of the cycles")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    Path("docs/results/v2_load_ncu.txt").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

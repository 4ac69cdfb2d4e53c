"""chain_beside.py on the chip (validation/h200/chain_beside_on_h100/chain_beside.csv) against the issue toy, greedy
and round robin (MUFU result 22 cycles after the queue: the chip's lone MUFU chain, 23.0 a step), and Nsight Compute's
stall samples by opcode for its five profiled kernels (chain_beside_ncu.tgz). Run from the repository root:
`python docs/results/greedy_39/chain_beside_vs_toy.py > docs/results/greedy_39/chain_beside_vs_toy.txt`."""

from __future__ import annotations

import collections
import csv
import io
import tarfile

import greedy_toy

DEVICE = greedy_toy.HERE.parents[2] / "validation/h200/chain_beside_on_h100"
BESIDE = ("nothing", "ffma x16", "ffma x2", "fmnmx x16", "fadd x16", "exp x16")  # greedy_toy.BUSY_KINDS' order


def measured() -> dict[tuple[str, str], float]:
    with (DEVICE / "chain_beside_streams.csv").open() as handle:
        return {
            (row["chain"], row["beside"].removesuffix(", same scheduler")): float(row["chain_cycles_per_step_median"])
            for row in csv.DictReader(handle)
            if row["chain"] != "none" and row["chain_cycles_per_step_median"]
        }


def stalls_by_opcode() -> None:
    """Per profiled kernel, each opcode's stall samples by reason (the five largest), from the source pages."""
    with tarfile.open(DEVICE / "chain_beside_ncu.tgz") as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if not member.name.endswith("_source.csv"):
                continue
            text = archive.extractfile(member).read().decode()  # type: ignore[union-attr]
            rows = list(csv.reader(io.StringIO(text)))
            head = rows[1]
            reasons = [h for h in head if h.startswith("stall_") and "Not Issued" not in h]
            by_opcode: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
            for row in rows[2:]:
                if len(row) < len(head):
                    continue
                words = row[head.index("Source")].split()
                opcode = (words[1] if words and words[0].startswith("@") else words[0]).split(".")[0] if words else "?"
                for reason in reasons:
                    by_opcode[opcode][reason[6:]] += int(float(row[head.index(reason)].replace(",", "") or 0))
            print(f"  {member.name.split('/')[-1].removesuffix('_source.csv')}:")
            for opcode, counts in sorted(by_opcode.items(), key=lambda item: -sum(item[1].values())):
                if sum(counts.values()) >= 100:
                    top = ", ".join(f"{reason} {n}" for reason, n in counts.most_common(5) if n)
                    print(f"    {opcode:6s} {sum(counts.values()):6d} samples: {top}")


def main() -> None:
    chip = measured()
    print(
        "chain cycles per step (streams: per instruction) over its whole run, chip / toy greedy / toy greedy with an "
        "exp's issue taking the ALU 2 cycles / the same with a busy pipe going to a waiting warp first / toy round "
        "robin (MUFU 22); H100"
    )
    print("  chain         " + "".join(f"{b:>38s}" for b in BESIDE))
    toys = {
        "greedy": greedy_toy.toy_sm.Toy(policy="greedy"),
        "port": greedy_toy.toy_sm.Toy(policy="greedy", mufu_port=2),
        "shared": greedy_toy.toy_sm.Toy(policy="greedy", mufu_port=2, pipe_share=True),
        "turns": greedy_toy.toy_sm.Toy(),
    }
    rows = {
        label: {line.split()[0]: line.split()[1:] for line in greedy_toy.chain_beside_rows(toy)}
        for label, toy in toys.items()
    }
    for chain in greedy_toy.CHAIN_KINDS:
        name = chain.replace("_stream", " stream")
        cells = [
            f"{chip[name, beside]:6.2f} /" + " /".join(f"{float(rows[label][chain][k]):6.2f}" for label in toys)
            for k, beside in enumerate(BESIDE)
        ]
        print(f"  {chain:12s} " + "".join(f"{cell:>38s}" for cell in cells))
    other = ", ".join(
        f"{chain} {chip[chain.replace('_stream', ' stream'), 'ffma x16, another scheduler']:.2f}"
        for chain in greedy_toy.CHAIN_KINDS
        if (chain.replace("_stream", " stream"), "ffma x16, another scheduler") in chip
    )
    print(f"  (beside ffma x16 on another scheduler, chip: {other})")
    print("Nsight Compute, stall samples by opcode (chainC_busyB: chain_beside<C, B>)")
    stalls_by_opcode()


if __name__ == "__main__":
    main()

"""Our standard QK^T kernel against the L2 bound the arch file's `l2.partial_sector_write_accesses` gives it: reads
of its Q and K tiles plus its S stores (16-byte rows, each served as that many 32-byte sector accesses) at the H200
file's L2 bandwidth, against the kernel measured with its epilogue's arithmetic taken out (`STD_QK_ABLATE` 4,
`validation/h200/std_kernels/std_qk_ablate_h200.csv`; tiles 128 x 128, N = 4096, 16k tokens).
`python docs/results/qk_l2_bound.py` prints it; the .txt beside it is its output."""

from __future__ import annotations

import csv
from pathlib import Path

from simgpu import load_arch

MEASURED = Path("validation/h200/std_kernels/std_qk_ablate_h200.csv")
TILE, ROW_BYTES, SECTOR_BYTES, ELEMENT_BYTES = 128, 16, 32, 2


def main() -> None:
    l2 = load_arch("h200").l2
    accesses = l2.partial_sector_write_accesses or 1.0
    for row in csv.DictReader(MEASURED.open(encoding="utf-8")):
        if row["ablate"] != "4":
            continue
        batch, heads, n, d = (int(row[k]) for k in ("batch", "heads", "seqlen", "headdim"))
        tiles = batch * heads * (n // TILE) ** 2
        reads = tiles * 2 * TILE * d * ELEMENT_BYTES
        writes = tiles * TILE * TILE * ELEMENT_BYTES
        served = reads + writes / ROW_BYTES * accesses * SECTOR_BYTES
        bound_ms = served / l2.bandwidth_bytes_per_s * 1e3
        print(f"d={d:3d} causal={row['causal']:5s}: reads {reads / 1e9:.2f} GB, S {writes / 1e9:.2f} GB served as "
              f"{served / 1e9:.2f} GB; L2 bound {bound_ms:.2f} ms, measured {float(row['ms']):.2f} ms")  # fmt: skip


if __name__ == "__main__":
    main()

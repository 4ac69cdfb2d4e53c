"""Side check of the tenth session: the model's HBM bytes for our FA1-order forward kernel against Nsight Compute's
DRAM bytes on the H200 (`validation/h200/v1_l2_bytes_h200.csv` and `v1_l2_bytes_ladder_h200.csv`, probe
`validation/probes/v1_l2_bytes.py`): v1 forward, d = 64, bf16, not causal, the kernel's tiles (64-row Q steps of 4
warps, 64-key K/V tiles), fast mode (its bytes equal exact mode's), with the H200's L2 and with it switched off
(the loop structure's count). Shapes in order of the CTAs' working sets together (one CTA per batch x head, all
resident at once, each ~6 N d bytes: its fp32 working O and its Q). Measured writes under the model's are outputs
still dirty in L2 when the kernel ends (ncu counts the kernel only).
Run from the repository root: `python docs/results/checks_2026-12-02p.py > docs/results/checks_2026-12-02p.txt`."""

from __future__ import annotations

import csv

from simgpu import Problem, load_arch, simulate

OPTIONS = {"block_m": 64, "block_n": 64, "warps": 4}
FILES = ("validation/h200/v1_l2_bytes_h200.csv", "validation/h200/v1_l2_bytes_ladder_h200.csv")

rows = []
for name in FILES:
    with open(name, newline="") as handle:
        rows += list(csv.DictReader(handle))
rows.sort(key=lambda r: int(r["batch"]) * int(r["heads"]) * int(r["seqlen"]))
no_l2 = load_arch("h200", {"l2.capacity_bytes": 0})
print("batch x heads x seqlen (CTAs): DRAM read / write GB measured | model | model with L2 off")
for r in rows:
    problem = Problem(int(r["batch"]), int(r["heads"]), int(r["seqlen"]), 64, causal=False, dtype="bf16", pass_="fwd")
    model = simulate("h200", "v1", problem, OPTIONS, mode="fast")
    off = simulate(no_l2, "v1", problem, OPTIONS, mode="fast")
    read, write = float(r["dram__bytes_read.sum"]) / 1e9, float(r["dram__bytes_write.sum"]) / 1e9
    print(f"{r['batch']} x {r['heads']} x {r['seqlen']} ({problem.batch * problem.heads}): "
          f"{read:.3f} / {write:.3f} | {model.hbm_read_bytes / 1e9:.3f} / {model.hbm_write_bytes / 1e9:.3f} | "
          f"{off.hbm_read_bytes / 1e9:.3f} / {off.hbm_write_bytes / 1e9:.3f}")  # fmt: skip

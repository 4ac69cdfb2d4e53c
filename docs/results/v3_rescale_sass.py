"""Side check of the twelfth session: where our FA3 kernel's O rescale sits among its wgmma instructions.

Compiles `cupy_kernels/v3/fwd.cu` (nvcc, sm_90a) for bf16, not causal, ping-pong and intra-warpgroup overlap on and
off, d = 64 and 128, dumps the SASS with cuobjdump (`CUOBJDUMP`, default `cuobjdump` on PATH) and prints, per kernel,
each run of HGMMA instructions with the number of FMULs issued just before each HGMMA: the overlapped loop's rescale
shows as 32 (d = 64) or 64 (d = 128) FMULs before S's second HGMMA. The basis of the v3 schedule's rescale placement
(`algorithms/v3/schedule.py`). Run from the repository root:
`CUOBJDUMP=/path/to/cuobjdump python docs/results/v3_rescale_sass.py > docs/results/v3_rescale_sass.txt`."""

from __future__ import annotations

from pathlib import Path

from sass_dump import functions, sass

SOURCE = Path("cupy_kernels/v3/fwd.cu").resolve()
VARIANTS = [(d, overlap) for d in (64, 128) for overlap in ("true", "false")]

version, dump = sass(
    SOURCE,
    [f"template __global__ void fa3_fwd<{d}, 2, false, true, {ov}>(const unsigned char*, u16*, float*, int, float);"
     for d, ov in VARIANTS],
    ("-diag-suppress", "177"),
)  # fmt: skip
print(version)
for name, opcodes in functions(dump):
    print(name)
    fmuls, runs, run = 0, [], []
    for opcode in opcodes:
        if opcode.startswith("HGMMA"):
            run.append(fmuls)
            fmuls = 0
        elif opcode == "FMUL":
            fmuls += 1
        elif run and opcode.startswith(("WARPGROUP.DEPBAR", "BAR.", "SYNCS")):
            runs.append(run)
            run = []
    for k, counts in enumerate(runs):
        print(f"  HGMMA run {k}: {len(counts)} HGMMAs, FMULs before each: {counts}")

"""Side check of the twelfth session: where our FA3 kernel's O rescale sits among its wgmma instructions.

Compiles `cupy_kernels/v3/fwd.cu` (nvcc, sm_90a) for bf16, not causal, ping-pong and intra-warpgroup overlap on and
off, d = 64 and 128, dumps the SASS with cuobjdump (`CUOBJDUMP`, default `cuobjdump` on PATH) and prints, per kernel,
each run of HGMMA instructions with the number of FMULs issued just before each HGMMA: the overlapped loop's rescale
shows as 32 (d = 64) or 64 (d = 128) FMULs before S's second HGMMA. The basis of the v3 schedule's rescale placement
(`algorithms/v3/schedule.py`). Run from the repository root:
`CUOBJDUMP=/path/to/cuobjdump python docs/results/v3_rescale_sass.py > docs/results/v3_rescale_sass.txt`."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

SOURCE = Path("cupy_kernels/v3/fwd.cu").resolve()
VARIANTS = [(d, overlap) for d in (64, 128) for overlap in ("true", "false")]
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][\w.]*)")

with tempfile.TemporaryDirectory() as tmp:
    wrapper = Path(tmp) / "w.cu"
    wrapper.write_text(
        f'#include "{SOURCE}"\n'
        + "".join(
            f"template __global__ void fa3_fwd<{d}, 2, false, true, {ov}>"
            "(const unsigned char*, u16*, float*, int, float);\n"
            for d, ov in VARIANTS
        )
    )
    cubin = Path(tmp) / "w.cubin"
    subprocess.run(["nvcc", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-diag-suppress", "177",
                    "-o", str(cubin), str(wrapper)], check=True)  # fmt: skip
    sass = subprocess.run([os.environ.get("CUOBJDUMP", "cuobjdump"), "-sass", str(cubin)], check=True,
                          capture_output=True, text=True).stdout  # fmt: skip
print(subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1])
for function in re.split(r"\n\s+Function : ", sass)[1:]:
    print(function.splitlines()[0])
    fmuls, runs, run = 0, [], []
    for opcode in INSTRUCTION.findall(function):
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

"""Side check of the twentieth session: where ptxas puts O += P V's mma.sync among the exps in our FA2 forward.

Compiles `cupy_kernels/v2/fwd.cu` (nvcc, sm_90a) for bf16, not causal, at d = 64 (128 x 128 tiles) and d = 128
(128 x 64), 4 warps, 2 stages, dumps the SASS with cuobjdump (`CUOBJDUMP`, default `cuobjdump` on PATH) and prints,
for every loop body that holds the softmax (FMNMX and MUFU), its MUFU.EX2 count, how many come before the first
HMMA after the row max (P V's first), how many HMMA follow the last MUFU, and the body as one letter per
instruction (H HMMA, M MUFU, x FMNMX, s SHFL, L LDSM, f FFMA, m FMUL, a FADD, p F2FP, others '.'). The v2 schedule
runs the exp pass whole before P V (`docs/results/fa2_loop_replay.txt` measures what interleaving them would change).
Run from the repository root: `CUOBJDUMP=/path/to/cuobjdump python docs/results/v2_pv_interleave_sass.py >
docs/results/v2_pv_interleave_sass.txt` (the committed output: nvcc 13.0 on the development VM, cuobjdump and
nvdisasm 13.5 from PyPI's `nvidia-cuda-cuobjdump` and `nvidia-cuda-nvdisasm` wheels, nvdisasm on PATH)."""

from __future__ import annotations

from pathlib import Path

from sass_dump import functions, sass

SOURCE = Path("cupy_kernels/v2/fwd.cu").resolve()
VARIANTS = ((64, 128, 128), (128, 128, 64))  # (d, block_m, block_n)
LETTERS = (("HMMA", "H"), ("MUFU", "M"), ("FMNMX", "x"), ("SHFL", "s"), ("LDSM", "L"), ("FFMA", "f"),
           ("FMUL", "m"), ("FADD", "a"), ("F2FP", "p"))  # fmt: skip


def letter(opcode: str) -> str:
    return next((short for prefix, short in LETTERS if opcode.startswith(prefix)), ".")


version, dump = sass(
    SOURCE,
    [f"template __global__ void fa2_fwd<{d}, {m}, {n}, 4, 2, false, true>"
     "(const u16*, const u16*, const u16*, u16*, float*, int, float);" for d, m, n in VARIANTS],
)  # fmt: skip
print(version)
for name, opcodes in functions(dump):
    print(name)
    body: list[str] = []
    for opcode in opcodes:
        body.append(opcode)
        if not opcode.startswith("BRA"):
            continue
        ops, body = body, []
        if sum(op.startswith("FMNMX") for op in ops) < 8 or sum(op.startswith("MUFU") for op in ops) < 8:
            continue
        last_max = max(i for i, op in enumerate(ops) if op.startswith("FMNMX"))
        first_pv = min(i for i, op in enumerate(ops) if op.startswith("HMMA") and i > last_max)
        last_exp = max(i for i, op in enumerate(ops) if op.startswith("MUFU"))
        exps = sum(op.startswith("MUFU") for op in ops)
        before = sum(op.startswith("MUFU") for op in ops[:first_pv])
        after = sum(op.startswith("HMMA") for op in ops[last_exp:])
        pv = sum(op.startswith("HMMA") for op in ops[first_pv:])
        print(f"  loop body of {len(ops)} instructions: {exps} MUFU, {before} before P V's first HMMA "
              f"({before / exps:.0%}); {pv} HMMA from there, {after} after the last MUFU")  # fmt: skip
        print("  " + "".join(letter(op) for op in ops[last_max - 20 :]))

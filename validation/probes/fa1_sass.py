"""FlashAttention-1's released forward (v1.0.9) as nvcc compiles it for the A100 (sm_80) and Hopper (sm_90): the
query-step loops of its non-causal bf16 kernel, for `docs/results/fa1_sass_counts.py` to count beside the executed
SASS Nsight Compute recorded on an H100 (`validation/h200/fa1_release/ncu/`).

Three steps, on two machines:
1. here: `python -m validation.probes.fa1_sass build FA1 CUBINS` compiles `fmha_fwd_hdim{64,128}.cu` (the sources
   `python validation/probes/fa1_release.py --sources FA1` writes) to one cubin per head dim and arch with the
   release's device flags. `fmha.h` includes three PyTorch headers for its launch code and the dropout seeds: stand-ins
   that declare only what it names (the kernels are never launched from these builds) are written beside the cubins.
2. on a machine with the CUDA toolkit's `cuobjdump` (the GPU machine): `for f in CUBINS/*.cubin; do cuobjdump -sass
   $f | gzip > OUT/$(basename $f .cubin).sass.gz; done`.
3. here: `python -m validation.probes.fa1_sass extract SASS_DIR validation/h200/fa1_release/sass` keeps each
   dump's kernel `fmha_fwd_loop_kernel<..., bf16>, false, false, false>` (no dropout, not causal, no softmax
   output) with the head dim's launch tile, and of it the instructions of the first and the middle key blocks'
   query-step loops (`first_loop`, `middle_loop`: the first two loops that hold no other, in address order, as
   in the profiled kernel, whose executions tell them apart), one instruction per line.
"""

from __future__ import annotations

import argparse
import gzip
import re
import subprocess
from pathlib import Path

from validation.probes.fa1_release import NVCC_FLAGS as RELEASE_FLAGS

HEADDIMS = (64, 128)
ARCHS = (80, 90)
# The launch files' key tile: 256 keys at d = 64 (seqlen_k > 128), 128 at d = 128.
KEY_TILE = {64: 256, 128: 128}
# The release's device flags (its setup.py, as `fa1_release.py` builds it), C++17 as it had it, without the target,
# ptxas's report and line info (which change no instruction).
NVCC_FLAGS = [
    "-std=c++17" if flag == "-std=c++20" else flag
    for flag in RELEASE_FLAGS
    if not flag.startswith(("-gencode", "--ptxas-options")) and flag != "-lineinfo"
]
STAND_INS = {
    "ATen/cuda/CUDAGeneratorImpl.h": (
        "#pragma once\n#include <cstdint>\nnamespace at {\nstruct PhiloxCudaState { uint64_t seed_ = 0; "
        "uint64_t offset_ = 0; };\n}\n"
    ),
    "ATen/cuda/CUDAContext.h": (
        "#pragma once\n#include <cuda_runtime.h>\nnamespace at { namespace cuda {\ninline cudaDeviceProp* "
        "getCurrentDeviceProperties() { static cudaDeviceProp p; return &p; }\n}}\n"
    ),
    "ATen/cuda/detail/UnpackRaw.cuh": (
        "#pragma once\n#include <tuple>\n#include <ATen/cuda/CUDAGeneratorImpl.h>\nnamespace at { namespace cuda "
        "{ namespace philox {\n__host__ __device__ inline std::tuple<uint64_t, uint64_t> unpack(at::PhiloxCudaState "
        "a) { return std::make_tuple(a.seed_, a.offset_); }\n}}}\n"
    ),
}
INSTRUCTION = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
BRANCH_TARGET = re.compile(r"BRA\s.*?0x([0-9a-f]+)\s*$")
LOOP_NAMES = ("first_loop", "middle_loop")


def build(fa1: Path, cubins: Path) -> None:
    """One cubin per head dim and arch, from FA1's sources under `fa1`, with stand-ins for PyTorch's headers."""
    stand_ins = cubins / "stand_ins"
    for name, text in STAND_INS.items():
        (stand_ins / name).parent.mkdir(parents=True, exist_ok=True)
        (stand_ins / name).write_text(text)
    src = fa1 / "csrc/flash_attn/src"
    for headdim in HEADDIMS:
        for arch in ARCHS:
            target = cubins / f"fa1_d{headdim}_sm{arch}.cubin"
            gencode = f"-gencode=arch=compute_{arch},code=sm_{arch}"
            includes = [f"-I{src}", f"-I{stand_ins}", f"-I{fa1 / 'include'}"]
            command = ["nvcc", *NVCC_FLAGS, gencode, "-cubin", *includes, "-o", str(target)]
            subprocess.run([*command, str(src / f"fmha_fwd_hdim{headdim}.cu")], check=True)


def kernel(sass: list[str], headdim: int) -> list[tuple[int, str]]:
    """The (address, instruction) pairs of the non-causal bf16 kernel with the head dim's key tile."""
    wanted = f"Li{KEY_TILE[headdim]}ELi{headdim}E"
    code: list[tuple[int, str]] | None = None
    for line in sass:
        if "Function :" in line:
            if code is not None:
                break
            if wanted in line and "bfloat16ELb0ELb0ELb0E" in line:
                code = []
            continue
        match = INSTRUCTION.match(line)
        if match and code is not None:
            code.append((int(match.group(1), 16), match.group(2)))
    if not code:
        raise ValueError(f"no non-causal bf16 kernel with key tile {KEY_TILE[headdim]} and d = {headdim}")
    return code


def inner_loops(code: list[tuple[int, str]]) -> list[tuple[int, int]]:
    """(first, last) instruction indices of each backward branch's loop that holds no other loop, by address."""
    index = {address: n for n, (address, _) in enumerate(code)}
    spans = []
    for n, (address, text) in enumerate(code):
        match = BRANCH_TARGET.search(text)
        if match and (target := int(match.group(1), 16)) < address and target in index:
            spans.append((index[target], n))
    return sorted(s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans))


def extract(dumps: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for dump in sorted(dumps.glob("fa1_d*_sm*.sass.gz")):
        headdim = int(dump.name.split("_")[1][1:])
        with gzip.open(dump, "rt") as handle:
            code = kernel(handle.read().splitlines(), headdim)
        loops = inner_loops(code)
        for name, (first, last) in zip(LOOP_NAMES, loops, strict=False):
            text = "".join(f"{code[n][1]}\n" for n in range(first, last + 1))
            (out / f"{dump.name.removesuffix('.sass.gz')}_{name}.txt").write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="verb", required=True)
    for verb, first, second in (("build", "fa1", "cubins"), ("extract", "dumps", "out")):
        command = sub.add_parser(verb)
        command.add_argument(first, type=Path)
        command.add_argument(second, type=Path)
    args = parser.parse_args()
    if args.verb == "build":
        build(args.fa1, args.cubins)
    else:
        extract(args.dumps, args.out)


if __name__ == "__main__":
    main()

"""The SASS of the probes' timed loops, with each instruction's control code decoded, for `issue_toy.py`.

Compiles the softmax probes' kernels (`validation/probes/v3_pieces.cu`: `softmax_group<2>` in the four builds of
`v3_softmax_groups.py`, `pass_pair<0>` and `pass_pair<1>`; `softmax_offset.cu`'s `softmax_offset`), the
calibration's `cupy_kernels/calibrate/overlap.cu`, `chain.cu` (FFMA chains, dependent and not) and the probe
`validation/probes/stall_hold.cu` and `wgmma_queue.cu`'s softmax variant with nvcc for sm_90a (the device ran the same
CUDA 13.0 compiler through NVRTC), disassembles them with cuobjdump and writes the body of each kernel's timed loop
(the backward branch and what it jumps over; for `wgmma_queue.cu`, the first warpgroup's straight-line hand-ins) to
`loops/NAME.txt`: per instruction its address, the control code's stall count, yield bit, write and
read scoreboards (7: none) and wait mask, then the instruction.

The control code is the top 23 bits of each 128-bit instruction (bits 105-127: stall 4 bits, yield 1, write
scoreboard 3, read scoreboard 3, wait mask 6, operand reuse 4), as CuAssembler and the Volta/Turing dissections
decode it. cuobjdump is not in the CUDA toolkit here: `pip install nvidia-cuda-cuobjdump` brings it
(`nvidia/cu13/bin/cuobjdump` in site-packages). Run from the repository root:
`python docs/results/sass_toy_35/sass_loops.py [--cuobjdump PATH]`.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
PIECES = ROOT / "validation/probes/v3_pieces.cu"
OFFSET = ROOT / "validation/probes/softmax_offset.cu"
OVERLAP = ROOT / "cupy_kernels/calibrate/overlap.cu"
CHAIN = HERE / "chain.cu"
STALL_HOLD = ROOT / "validation/probes/stall_hold.cu"
WGMMA_QUEUE = ROOT / "validation/probes/wgmma_queue.cu"
FWD = ROOT / "cupy_kernels/v3/fwd.cu"
FA3_FWD = "template __global__ void fa3_fwd<{}, 2, false, {}, true>(const unsigned char*, u16*, float*, int, float);"
HOLD_MODE = "template __global__ void stall_hold<{}>(const float*, int, long long*, float*);"
SOFTMAX_GROUP = "template __global__ void softmax_group<2>(const float*, int, long long*, float*);"
PASS_PAIR = "template __global__ void pass_pair<{}>(const float*, int, long long*, float*);"
LINE = re.compile(r"\s*/\*([0-9a-f]{4,5})\*/\s*(.*?)\s*;\s*/\* (0x[0-9a-f]+) \*/")
HIGH = re.compile(r"^\s*/\* (0x[0-9a-f]+) \*/")
BACKWARD = re.compile(r"BRA (?:`\(\.L_x_\d+\) )?(0x[0-9a-f]+)")
Listing = list[tuple[int, str, int]]  # (address, instruction, control code)
Picker = Callable[[Listing], Listing]


def opcode(text: str) -> str:
    """The instruction's opcode without its predicate and modifiers."""
    return re.sub(r"^@!?U?P\w+\s+", "", text).split()[0].split(".")[0]


def loops(listing: Listing) -> list[Listing]:
    """Every loop: a backward branch's target up to the branch."""
    found = []
    for address, text, _ in listing:
        match = BACKWARD.search(text)
        if match is not None and int(match.group(1), 16) < address:
            start = int(match.group(1), 16)
            found.append([item for item in listing if start <= item[0] <= address])
    return found


def mix(body: Listing) -> Counter[str]:
    return Counter(opcode(text) for _, text, _ in body)


def longest_loop(listing: Listing) -> Listing:
    return max(loops(listing), key=len)


def overlap_mix(**counts: int) -> Picker:
    """The last loop of overlap.cu whose opcode counts include `counts` and nothing else of size."""

    def pick(listing: Listing) -> Listing:
        return [
            body
            for body in loops(listing)
            if all(mix(body).get(op, 0) == n for op, n in counts.items()) and len(body) < sum(counts.values()) + 8
        ][-1]

    return pick


def softmax_beside(listing: Listing) -> Listing:
    """wgmma_queue.cu's second warpgroup's softmax loop: the longest loop with a MUFU and no HGMMA."""
    return max((b for b in loops(listing) if mix(b)["MUFU"] and not mix(b)["HGMMA"]), key=len)


def consumer_loop(listing: Listing) -> Listing:
    """Our FA3 kernel's consumer key-tile loop: the smallest loop with S's and P V's wgmmas (at least 4 + 8) and
    exps (the loops around it come back from the mbarrier waits' retries)."""
    return min((b for b in loops(listing) if mix(b)["HGMMA"] >= 12 and mix(b)["MUFU"]), key=len)


def hgmma_issue(listing: Listing) -> Listing:
    """wgmma_queue.cu's first warpgroup's hand-ins, straight-line: from its WARPGROUP.ARRIVE to the instruction after
    its last HGMMA (the clock stamp)."""
    first = next(n for n, (_, text, _) in enumerate(listing) if text.startswith("WARPGROUP.ARRIVE"))
    last = max(n for n, (_, text, _) in enumerate(listing) if opcode(text) == "HGMMA")
    return listing[first : last + 2]


# name: (source, defines, explicit instantiations to add, mangled function, what to take of it)
LOOPS: dict[str, tuple[Path, dict[str, int], str, str, Picker]] = {
    **{
        f"softmax_group2_ablate{mask}": (
            PIECES,
            {"FA3_ABLATE": mask},
            SOFTMAX_GROUP,
            "_Z13softmax_groupILi2EEvPKfiPxPf",
            longest_loop,
        )
        for mask in (0, 2, 32, 34)
    },
    "pass_pair0_exp": (PIECES, {}, PASS_PAIR.format(0), "_Z9pass_pairILi0EEvPKfiPxPf", longest_loop),
    "pass_pair1_max": (PIECES, {}, PASS_PAIR.format(1), "_Z9pass_pairILi1EEvPKfiPxPf", longest_loop),
    "softmax_offset": (OFFSET, {}, "", "softmax_offset", longest_loop),
    "overlap_softmax": (
        OVERLAP,
        {},
        "",
        "_Z7overlapPKjjiiijPjPy",
        overlap_mix(FFMA=256, MUFU=256, FMNMX=256, FADD=256),
    ),
    "overlap_ex2": (OVERLAP, {}, "", "_Z7overlapPKjjiiijPjPy", overlap_mix(MUFU=256)),
    "ffma_chain": (CHAIN, {}, "", "ffma_chain", longest_loop),
    "ffma_independent": (CHAIN, {}, "", "ffma_independent", longest_loop),
    # wgmma_queue.py --softmax: warpgroup 0's hand-ins of S and P V, warpgroup 1's softmax loop beside them
    **{
        f"wgmma_softmax_d{d}_{part}": (WGMMA_QUEUE, {}, "", f"wgmma_queue_softmax_d{d}", pick)
        for d in (64, 128)
        for part, pick in (("issue", hgmma_issue), ("softmax", softmax_beside))
    },
    # our FA3 kernel's consumer loop, d = 64 and 128, ping-pong off and on (the intra-warpgroup overlap on)
    **{
        f"fa3_consumer_d{d}_pingpong_{pp}": (
            FWD,
            {},
            FA3_FWD.format(d, pp),
            f"_Z7fa3_fwdILi{d}ELi2ELb0ELb{int(pp == 'true')}ELb1EEvPKhPtPfif",
            consumer_loop,
        )
        for d in (64, 128)
        for pp in ("false", "true")
    },
    # the stall_hold probe's loops (modes 1, 4, 5, 6 run one kind of loop in every warp that runs one)
    **{
        f"stall_hold_{kind}": (
            STALL_HOLD,
            {},
            HOLD_MODE.format(mode),
            f"_Z10stall_holdILi{mode}EEvPKfiPxPf",
            longest_loop,
        )
        for mode, kind in ((1, "chain"), (4, "independent"), (5, "mufu_fadd"), (6, "mufu_mufu"))
    },
}


def disassemble(source: Path, defines: dict[str, int], extra: str, cuobjdump: str) -> str:
    """cuobjdump -sass of `source` (with `extra` appended: explicit template instantiations) built for sm_90a."""
    with tempfile.TemporaryDirectory() as tmp:
        wrapper, cubin = Path(tmp) / "wrapper.cu", Path(tmp) / "out.cubin"
        wrapper.write_text(f'#include "{source}"\n{extra}\n')
        flags = [f"-D{key}={value}" for key, value in defines.items()]
        subprocess.run(
            [
                "nvcc",
                "-std=c++17",
                "-gencode=arch=compute_90a,code=sm_90a",
                "-cubin",
                *flags,
                f"-I{source.parent}",
                "-o",
                str(cubin),
                str(wrapper),
            ],
            check=True,
            capture_output=True,
        )
        return subprocess.run([cuobjdump, "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout


def instructions(sass: str, function: str) -> Listing:
    """(address, instruction, control code) of every instruction of `function`."""
    body = sass.split(f"Function : {function}\n")[1].split("Function :")[0].splitlines()
    out = []
    for n, line in enumerate(body):
        match = LINE.match(line)
        if match is None:
            continue
        high = HIGH.match(body[n + 1])
        if high is None:
            raise ValueError(f"no second word after {line!r}")
        out.append((int(match.group(1), 16), match.group(2), int(high.group(1), 16) >> 41))
    return out


def render(name: str, body: Listing, source: Path, defines: dict[str, int]) -> str:
    lines = [
        f"# {name}: {source.relative_to(ROOT)} {defines or ''}, nvcc sm_90a",
        "# address stall yield write_sb read_sb wait_mask | instruction",
    ]
    for address, text, control in body:
        fields = (control & 0xF, (control >> 4) & 1, (control >> 5) & 7, (control >> 8) & 7, (control >> 11) & 0x3F)
        lines.append(f"{address:05x} {fields[0]} {fields[1]} {fields[2]} {fields[3]} {fields[4]:06b} | {text}")
    return "\n".join(lines) + "\n"


def cuobjdump(description: str | None) -> str:
    """The cuobjdump to use: `--cuobjdump PATH`, else the one on PATH; exits with a line where there is none."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--cuobjdump", default=shutil.which("cuobjdump"))
    path: str | None = parser.parse_args().cuobjdump
    if not path:
        sys.exit("no cuobjdump on PATH: pip install nvidia-cuda-cuobjdump, then pass --cuobjdump PATH")
    return path


def main() -> None:
    tool = cuobjdump(__doc__)
    (HERE / "loops").mkdir(exist_ok=True)
    cache: dict[tuple[Path, tuple[tuple[str, int], ...], str], str] = {}
    for name, (source, defines, extra, function, pick) in LOOPS.items():
        key = (source, tuple(sorted(defines.items())), extra)
        if key not in cache:
            cache[key] = disassemble(source, defines, extra, tool)
        body = pick(instructions(cache[key], function))
        (HERE / "loops" / f"{name}.txt").write_text(render(name, body, source, defines))


if __name__ == "__main__":
    main()

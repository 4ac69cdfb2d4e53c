"""Device probe target: one launch of our FA2 forward kernel (optionally an ablated build) or backward, for Nsight
Compute's instruction statistics, warp states and per-SASS-instruction counters. Tells how many instructions of
each opcode the real kernel executes per key tile and where its warps stall: what the v2 schedule's instruction
mix (`algorithms/_schedule/softmax.py`, `algorithms/_schedule/copies.py`) must match.

Shape as `v2_ablate.py`: B=4, H=2048/d, N=4096, bf16, not causal. Each build is launched twice; ncu profiles the
second launch (`--launch-skip 1 --launch-count 1`):

  PYTHONPATH=. ncu --clock-control none --kernel-name regex:'^fa2_(fwd|bwd)$' --launch-skip 1 --launch-count 1 \\
      --section InstructionStats --section WarpStateStats --section SourceCounters -o REPORT \\
      python3 validation/probes/v2_instruction_mix.py fwd 64 0      (fwd D ABLATE_MASK, bwd D, torchfwd D or torchbwd D)

`torchfwd D` / `torchbwd D [N]` launch PyTorch's FA2 forward / backward instead (kernel regexes `flash_fwd`,
`flash_bwd_dq_dk_dv`): the production kernel's mix beside ours. The backward takes another sequence length N at
the same 16k tokens (`torch_fa2_bwd_ncu.sh`).

`v2_instruction_mix.sh` runs the builds; then, on any machine, `python3 validation/probes/v2_instruction_mix.py
summarize DIR` reads the source pages it wrote (DIR/NAME_source.csv, or .csv.gz) and writes
`v2_instruction_mix_h200.csv` into DIR: per build and opcode (the first word of the SASS mnemonic), executed warp
instructions (per warp per key tile for the forward builds) and warp-state samples; and per forward build the load
code (from the loop's BAR.SYNC to its LDGDEPBAR): its samples other than the barrier's, as a share of all samples;
per backward build the dQ atomics (its first REDG to its last) and their share of the samples; for both regions
their largest stall reasons, as shares of all their samples.
"""

from __future__ import annotations

import csv
import gzip
import re
import sys
from collections import Counter
from pathlib import Path

BATCH, SEQLEN = 4, 4096
FORWARD_BUILDS = {
    "fwd64": (64, 0),
    "fwd64_noload": (64, 1),
    "fwd128": (128, 0),
    "fwd128_noload": (128, 1),
    "fwd64_shared_ahead": (64, 0),  # the default build since the sixteenth session (validation/probes/torch_fa2_mix.sh)
    "fwd128_shared_ahead": (128, 0),
    "fwd64_shared_noload": (64, 1),  # the default build less its K/V copies (validation/probes/v2_load_ncu.sh)
    "fwd128_shared_noload": (128, 1),
    "torchfwd64": (64, 0),  # PyTorch's FA2 (flash backend): on sm90 the same 128 x 128 / 128 x 64 tiles, 4 warps
    "torchfwd128": (128, 0),
    "torchfwd256": (256, 0),  # on the H200 FA2 launches 64 x 64 tiles, 4 warps, at d = 256 (two CTAs per SM)
}
OTHER_BUILDS = ("bwd64", "bwd128", "torchbwd64", "torchbwd128", "v3fwd64", "v3fwd128")
WARPS = 4  # the forward kernels' launch configuration: 4 warps, tiles by head dimension
BLOCK_M, BLOCK_N = {64: 128, 128: 128, 256: 64}, {64: 128, 128: 64, 256: 64}


def forward(d: int, mask: int) -> None:
    import cupy as cp  # noqa: F401  (the GPU side only)

    from cupy_kernels import common
    from cupy_kernels.v2 import launch

    config = launch.fwd_config(d)
    name = launch.fwd_name(d, config, False, True)
    kernel = common.module_with_defines(launch.FWD_SOURCE, {"FA2_ABLATE": mask}, [name]).get_function(name)
    smem = launch.fwd_smem_bytes(d, config)
    kernel.max_dynamic_shared_size_bytes = smem
    grid, args = launch.random_forward_launch(BATCH, 2048 // d, SEQLEN, d, config)
    for _ in range(2):
        kernel(grid, (config.warps * 32,), args, shared_mem=smem)


def torch_forward(d: int) -> None:
    """PyTorch's FlashAttention-2 forward (the flash backend of `scaled_dot_product_attention`), launched twice."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention

    shape = (BATCH, 2048 // d, SEQLEN, d)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        for _ in range(2):
            scaled_dot_product_attention(q, k, v)
    torch.cuda.synchronize()


def torch_backward(d: int, seqlen: int = SEQLEN) -> None:
    """PyTorch's FlashAttention-2 backward, launched twice (each after an untimed forward), at BATCH x SEQLEN tokens."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention

    shape = (BATCH * SEQLEN // seqlen, 2048 // d, seqlen, d)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    grad = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        for _ in range(2):
            scaled_dot_product_attention(q, k, v).backward(grad)
    torch.cuda.synchronize()


def backward(d: int) -> None:
    from cupy_kernels import common
    from cupy_kernels.v2 import launch

    shape = (BATCH, 2048 // d, SEQLEN, d)
    q, k, v, do = (common.random_tensor(shape, "bf16", seed) for seed in range(4))
    o, lse = launch.forward(q, k, v)
    for _ in range(2):
        launch.backward(q, k, v, o, lse, do)


def _source_rows(path: Path) -> list[dict[str, str]]:
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return list(csv.DictReader(data.decode("utf-8").splitlines()[1:]))  # line 0 names the kernel


def _opcode(sass: str) -> str:
    words = re.sub(r"^@!?U?P\w+\s+", "", sass.strip()).split()
    return words[0].split(".")[0] if words else ""


def _samples(row: dict[str, str]) -> int:
    return int(row["Warp Stall Sampling (All Samples)"] or 0)


def summarize(folder: Path) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for build in (*FORWARD_BUILDS, *OTHER_BUILDS):
        found = [path for path in (folder / f"{build}_source.csv", folder / f"{build}_source.csv.gz") if path.exists()]
        if not found:
            continue
        path = found[0]
        rows = _source_rows(path)
        tiles = 1
        if build in FORWARD_BUILDS:
            d = FORWARD_BUILDS[build][0]
            heads = 2048 // d
            tiles = BATCH * heads * (SEQLEN // BLOCK_M[d]) * (SEQLEN // BLOCK_N[d]) * WARPS  # warp key tiles
        executed: Counter[str] = Counter()
        samples: Counter[str] = Counter()
        for row in rows:
            executed[_opcode(row["Source"])] += int(row["Instructions Executed"] or 0)
            samples[_opcode(row["Source"])] += _samples(row)
        unit = "per_warp_key_tile" if build in FORWARD_BUILDS else "per_launch"
        out.append({"build": build, "part": "all (the kernel's stall reasons)", "unit": unit,
                    "executed": sum(executed.values()) / tiles, "samples": sum(samples.values()), "sample_share": 1.0,
                    "top_stalls": _top_stalls(rows, 8)})  # fmt: skip
        for op, count in executed.most_common():
            out.append({"build": build, "part": op, "unit": unit, "executed": count / tiles,
                        "samples": samples[op], "sample_share": samples[op] / sum(samples.values()),
                        "top_stalls": ""})  # fmt: skip
        if build in FORWARD_BUILDS and not build.startswith("torch"):  # our kernel's loop shape
            out.append(_load_code(build, rows, tiles))
        elif "bwd" in build and any("REDG" in row["Source"] for row in rows):
            out.append(_atomics(build, rows))
    return out


def _atomics(build: str, rows: list[dict[str, str]]) -> dict[str, object]:
    """The backward's dQ atomics: from its first REDG to its last, the instructions between included."""
    reds = [i for i, row in enumerate(rows) if "REDG" in row["Source"]]
    region = rows[reds[0] : reds[-1] + 1]
    inside = sum(_samples(row) for row in region)
    return {"build": build, "part": "dQ atomics (first .. last REDG)", "unit": "per_launch",
            "executed": sum(int(row["Instructions Executed"] or 0) for row in region), "samples": inside,
            "sample_share": inside / sum(_samples(row) for row in rows), "top_stalls": _top_stalls(region)}  # fmt: skip


def _top_stalls(region: list[dict[str, str]], count: int = 4) -> str:
    """The region's `count` largest stall reasons with their shares of its samples, e.g. `lg 0.41 long_sb 0.33`."""
    reasons: Counter[str] = Counter()
    for row in region:
        for column, value in row.items():
            if column.startswith("stall_") and "Not Issued" not in column:
                reasons[column.removeprefix("stall_")] += int(value or 0)
    total = sum(reasons.values()) or 1
    return " ".join(f"{name} {share / total:.3f}" for name, share in reasons.most_common(count))


def _load_code(build: str, rows: list[dict[str, str]], tiles: int) -> dict[str, object]:
    """The loop's copy code: after its BAR.SYNC, up to and with its LDGDEPBAR; its samples other than the barrier's,
    as a share of all the kernel's samples (a share of the warps' time)."""
    bar = max(i for i, row in enumerate(rows) if "BAR.SYNC" in row["Source"])
    end = min(i for i, row in enumerate(rows) if "LDGDEPBAR" in row["Source"] and i > bar)
    region = rows[bar + 1 : end + 1]
    total = sum(_samples(row) for row in rows)
    inside = sum(_samples(row) - int(row["stall_barrier"] or 0) for row in region)
    executed = sum(int(row["Instructions Executed"] or 0) for row in region)
    return {"build": build, "part": "load code (BAR.SYNC .. LDGDEPBAR)", "unit": "per_warp_key_tile",
            "executed": executed / tiles, "samples": inside, "sample_share": inside / total,
            "top_stalls": _top_stalls(region)}  # fmt: skip


def main() -> None:
    if sys.argv[1] == "summarize":
        folder = Path(sys.argv[2])
        rows = summarize(folder)
        with (folder / "v2_instruction_mix_h200.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        return
    import cupy as cp

    kind, d = sys.argv[1], int(sys.argv[2])
    if kind == "fwd":
        forward(d, int(sys.argv[3]))
    elif kind == "torchfwd":
        torch_forward(d)
    elif kind == "torchbwd":
        torch_backward(d, *map(int, sys.argv[3:4]))
    else:
        backward(d)
    cp.cuda.runtime.deviceSynchronize()


if __name__ == "__main__":
    main()

"""Device probe: FlashAttention-1 as released (v1.0.9's forward kernels, the FA repository's
`csrc/flash_attn/src` at that tag with its CUTLASS submodule's headers, built here for sm_90 through PyTorch's
extension builder and launched by our `fa1_release_binding.cpp`) on FA2's sweep (16k tokens, hidden 2048: d = 64 and
128 with 32 and 16 heads; seqlen 512..16k; causal and not; bf16; forward), timed as `torch_fa2.py` times PyTorch's
FA2: CUDA events, median of `REPEATS` calls after `WARMUP`, the SM clock counted on the SM beside the timed calls
and as NVML reports it. Each row also gives the splits the release's launch template chose (its occupancy
heuristic) and the error against fp32 attention (to 1k). What `docs/results/fa1_release_vs_model.py` compares with
the v1 schedule's `release` variant.

The FA1 sources are not part of this project: `python validation/probes/fa1_release.py --sources DIR` here
writes them to DIR from the git mirrors of the FA and CUTLASS repositories (`--fa-repo`, `--cutlass-repo`); carry
DIR to the GPU machine and run from the repository root there:
`PYTHONPATH=. python3 validation/probes/fa1_release.py OUT_DIR --fa1 DIR` (writes `fa1_release_h200.csv`, or
`fa1_release_h100.csv` on an H100). `--one D N CAUSAL` instead launches that configuration `ONE_LAUNCHES` times (no
timing: the target of `fa1_release_ncu.sh`); `--build-only` builds and stops.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import subprocess
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

FA1_TAG = "v1.0.9"
# The CUTLASS commit that tag's `csrc/flash_attn/cutlass` submodule points at.
CUTLASS_COMMIT = "319a389f42b776fae5701afcb943fc03be5b5c25"
TOKENS = 16384
HIDDEN = 2048
WARMUP = 5
REPEATS = 30
CHECKED_SEQLEN = 1024  # the correctness check's longest sequence
ONE_LAUNCHES = 4  # launches of `--one`
# The release's own (its setup.py), for sm_90, and C++20 where it had C++17: today's PyTorch headers need it.
NVCC_FLAGS = [
    "-O3",
    "-std=c++20",
    "-U__CUDA_NO_HALF_OPERATORS__",
    "-U__CUDA_NO_HALF_CONVERSIONS__",
    "-U__CUDA_NO_HALF2_OPERATORS__",
    "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "--expt-relaxed-constexpr",
    "--expt-extended-lambda",
    "--use_fast_math",
    "--ptxas-options=-v",
    "-lineinfo",
    "-gencode=arch=compute_90,code=sm_90",
]


def write_sources(target: Path, fa_repo: Path, cutlass_repo: Path) -> None:
    """FA1's kernel sources and the CUTLASS headers, from the two repositories' git directories (no work tree
    needed), into `target` (`csrc/flash_attn/src/...`, `include/...`)."""
    target.mkdir(parents=True, exist_ok=True)
    for repo, revision, path in ((fa_repo, FA1_TAG, "csrc/flash_attn/src"), (cutlass_repo, CUTLASS_COMMIT, "include")):
        archive = subprocess.run(
            ["git", "--git-dir", str(repo), "archive", revision, path], check=True, capture_output=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(target, filter="data")


def build(sources: Path, build_dir: Path) -> object:
    """The extension: our binding and the release's d = 64 and d = 128 forward kernels."""
    from torch.utils.cpp_extension import load

    src = sources / "csrc/flash_attn/src"
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
    build_dir.mkdir(parents=True, exist_ok=True)
    return load(
        name="fa1_release",
        sources=[
            str(Path(__file__).with_name("fa1_release_binding.cpp")),
            str(src / "fmha_fwd_hdim64.cu"),
            str(src / "fmha_fwd_hdim128.cu"),
        ],
        extra_include_paths=[str(src), str(sources / "include")],
        extra_cflags=["-O3", "-std=c++20"],
        extra_cuda_cflags=NVCC_FLAGS,
        build_directory=str(build_dir),
        verbose=True,
    )


def launcher(fa1: object, headdim: int, seqlen: int, causal: bool) -> tuple[Callable[[], int], tuple[object, ...]]:
    """A call of the release's forward on FA2's sweep shape (16k tokens, hidden 2048) at `headdim` and `seqlen`
    (returns the splits it chose), and its (q, k, v, out) packed as the release takes them: (tokens, heads, d)."""
    import torch

    batch, heads = TOKENS // seqlen, HIDDEN // headdim
    q, k, v = (torch.randn(batch * seqlen, heads, headdim, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = torch.empty_like(q)
    cu_seqlens = torch.arange(0, (batch + 1) * seqlen, seqlen, device="cuda", dtype=torch.int32)
    scale = headdim**-0.5

    def call() -> int:
        return int(fa1.forward(q, k, v, out, cu_seqlens, seqlen, scale, causal, 0)[1])  # type: ignore[attr-defined]

    return call, (q, k, v, out)


def measure(fa1: object, headdim: int, seqlen: int, causal: bool, handle: object) -> dict[str, object]:
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention

    from validation.probes.torch_fa2 import row, timed_calls

    batch, heads = TOKENS // seqlen, HIDDEN // headdim
    call, (q, k, v, out) = launcher(fa1, headdim, seqlen, causal)
    splits = call()
    error = float("nan")
    if seqlen <= CHECKED_SEQLEN:  # against fp32 math in (batch, heads, seqlen, d)

        def heads_first(x: torch.Tensor) -> torch.Tensor:
            return x.float().view(batch, seqlen, heads, headdim).transpose(1, 2)

        with sdpa_kernel(SDPBackend.MATH):
            reference = scaled_dot_product_attention(heads_first(q), heads_first(k), heads_first(v), is_causal=causal)
        error = float((heads_first(out) - reference).norm() / reference.norm())
    times_ms, counted, clocks = timed_calls(call, handle)
    measured = row("fwd", (batch, heads, seqlen, headdim), causal, times_ms, counted, clocks, error)
    return measured | {"splits": splits}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, nargs="?", help="folder for the CSV (on the GPU machine)")
    parser.add_argument("--fa1", type=Path, help="the sources written by --sources")
    parser.add_argument("--sources", type=Path, help="write FA1's sources and CUTLASS's headers here, then stop")
    parser.add_argument("--one", nargs=3, metavar=("D", "N", "CAUSAL"), help="launch one configuration (ncu)")
    parser.add_argument("--build-only", action="store_true", help="build the extension and stop")
    parser.add_argument("--fa-repo", type=Path, default=Path("/work/.mirror/Dao-AILab+flash-attention/repo"))
    parser.add_argument("--cutlass-repo", type=Path, default=Path("/work/.mirror/NVIDIA+cutlass/repo"))
    args = parser.parse_args()
    if args.sources is not None:
        write_sources(args.sources, args.fa_repo, args.cutlass_repo)
        return
    if args.fa1 is None or (args.out is None and args.one is None and not args.build_only):
        parser.error("--fa1 and OUT (or --one, or --build-only) are needed")
    started = time.perf_counter()
    fa1 = build(args.fa1, Path("/tmp/fa1_release_build"))
    print(f"built in {time.perf_counter() - started:.0f} s", flush=True)
    if args.build_only:
        return
    if args.one is not None:
        import torch

        call, _ = launcher(fa1, int(args.one[0]), int(args.one[1]), args.one[2] == "True")
        for _ in range(ONE_LAUNCHES):
            call()
        torch.cuda.synchronize()
        return
    import pynvml

    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    rows = []
    for headdim in (64, 128):
        for causal in (False, True):
            for seqlen in (512, 1024, 2048, 4096, 8192, 16384):
                measured = measure(fa1, headdim, seqlen, causal, handle)
                rows.append(measured)
                print(
                    f"d={headdim} causal={causal!s:5} N={seqlen:5}: {measured['median_ms']:.3f} ms "
                    f"{measured['tflops']:.0f} TFLOP/s at {measured['sm_clock_mhz_counted']:.0f} MHz counted, "
                    f"{measured['sm_clock_mhz_mean']:.0f} NVML, {measured['splits']} splits "
                    f"(error {measured['rel_error_vs_fp32']:.1e})",
                    flush=True,
                )
    args.out.mkdir(parents=True, exist_ok=True)
    chip = "h100" if "H100" in str(rows[0]["gpu"]) else "h200"
    with (args.out / f"fa1_release_{chip}.csv").open("w", newline="") as handle_out:
        writer = csv.DictWriter(handle_out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()

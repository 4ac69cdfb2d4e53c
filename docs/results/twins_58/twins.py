"""How many of the L2 replay's accesses repeat the one walked just before (the same key, kind and size object: CTAs of
a wave that read one key in step), per benchmark case (16k tokens, 16 heads, d = 128; H100, B200, A100 at 1k, 16k
and 128k). The replay's inputs are taken on their way in (Python mode: `SIMGPU_NATIVE=0`, set here) and cut into
waves in the walk's own order (`simgpu.replay`'s `_tuples`, `_wave_parts`, `_handover`).
`python docs/results/twins_58/twins.py > docs/results/twins_58/twins.txt`"""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"  # the replay as Python, so that its entry can be wrapped

import simgpu.fast_bytes as fast_bytes
from simgpu import Problem, load_arch, simulate
from simgpu.errors import SimgpuError
from simgpu.replay import KernelAccesses, _handover, _tuples, _wave_parts

walked = [0, 0]  # accesses, twins


def _count(kernel: KernelAccesses) -> None:
    stores: list[object] = []
    ending: list[tuple[object, ...]] = []
    tiles = kernel.accesses
    for start in range(0, len(tiles) + kernel.slots, kernel.slots):
        wave = _tuples(tiles[start : start + kernel.slots])
        if kernel.rereads:
            first_round, rest, tails = _wave_parts(wave)
            segments: tuple[list[object], ...] = (first_round, stores, rest)
            stores = tails
        else:
            handover, rest, ending = _handover(ending, wave)
            segments = (handover, rest)
        for segment in segments:
            last: tuple[object, ...] | None = None
            for record in segment:
                kind, _, memory, nbytes = record  # type: ignore[misc]
                walked[0] += 1
                if last is not None and memory is last[2] and kind == last[0] and nbytes is last[3]:
                    walked[1] += 1
                last = record  # type: ignore[assignment]


def _counting(original):  # type: ignore[no-untyped-def]
    def replay(arch, kernels, *args, **kwargs):  # type: ignore[no-untyped-def]
        for kernel in kernels:
            _count(kernel)
        return original(arch, kernels, *args, **kwargs)

    return replay


def main() -> None:
    fast_bytes.replay = _counting(fast_bytes.replay)  # type: ignore[attr-defined]
    print("arch algo pass seqlen: accesses walked, twins, share")
    for arch_name in ("h100", "b200", "a100"):
        arch = load_arch(arch_name)
        for algo in ("standard", "v1", "v2", "v3", "v4"):
            for pass_ in ("fwd", "bwd"):
                for seqlen in (1024, 16384, 131072):
                    walked[:] = [0, 0]
                    try:
                        simulate(arch, algo, Problem(max(1, 16384 // seqlen), 16, seqlen, 128, pass_=pass_))
                    except SimgpuError:
                        continue
                    share = walked[1] / walked[0] if walked[0] else 0.0
                    print(f"{arch_name} {algo} {pass_} {seqlen}: {walked[0]} {walked[1]} {share:.2f}")


if __name__ == "__main__":
    main()

"""The figures behind `README.md`'s account of the rule (`simgpu.fast_bytes._overflow_prefixes`):

1. the distinct bytes that the first 1/16 to 1/2 of a head's tiles of each standard-attention kernel touch on the
   B200 at 16k tokens (16 heads, d = 128), beside the head's share of L2 in each kernel;
2. the random problem (`random_prefixes_1.txt`'s draw: the A100 cut to 10 SMs, a 4 MiB L2, 4 heads of a causal
   backward at N = 16k, `softmax_passes=1`) replayed with the larger prefix at 1.25, 1.5, 1.75 and 2 times the
   smaller (a quarter of the head): HBM read bytes against the whole head's replay.

Runs on the sources (`SIMGPU_NATIVE=0`: the rule is patched): `python docs/results/prefix_47/larger_share.py`."""

from __future__ import annotations

import os

os.environ["SIMGPU_NATIVE"] = "0"

from dataclasses import replace
from typing import Any

import simgpu.fast_bytes as fast_bytes
from simgpu import Problem, load_arch
from simgpu.api import schedule
from simgpu.fast_plan import plan_kernel


def b200_footprints() -> None:
    arch = load_arch("b200")
    plans = [plan_kernel(arch, k) for k in schedule(arch, "standard", Problem(1, 16, 16384, 128), {})]
    rule = fast_bytes._head_prefixes

    def shown(head: Any) -> Any:
        for plan, tiles, known, share in zip(head.plans, head.tiles, head.known, head.head_share, strict=True):
            for fraction in (1 / 16, 1 / 8, 1 / 4, 1 / 2):
                copies = fast_bytes._head_copies(plan, tiles[: int(len(tiles) * fraction)], dict(known))
                print(
                    f"B200 {plan.kernel.name}: first {fraction:.4f} of a head's {len(tiles)} tiles touch "
                    f"{fast_bytes._distinct_bytes(copies) / 1e6:.1f} MB; the head's share of L2 "
                    f"{arch.l2.capacity_bytes * share / 1e6:.1f} MB"
                )
        return rule(head)

    fast_bytes._head_prefixes = shown
    fast_bytes.replayed_bytes(arch, plans)
    fast_bytes._head_prefixes = rule


def random_case() -> None:
    arch = load_arch("a100", {"sms": 10, "l2.capacity_bytes": 4194304})
    problem = Problem(1, 4, 16384, 128, causal=True, pass_="bwd")
    plans = [plan_kernel(arch, k) for k in schedule(arch, "standard", problem, {"softmax_passes": 1})]
    _, whole = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=10**9)
    rule = fast_bytes._head_prefixes
    for factor in (1.25, 1.5, 1.75, 2.0):

        def scaled(head: Any, factor: float = factor) -> Any:
            taken = rule(head)
            small_share = taken.covered[0]
            large_share = small_share * factor
            large = tuple(
                small if small == len(tiles) else round(len(tiles) * large_share)
                for small, tiles in zip(taken.counts[0], head.tiles, strict=True)
            )
            return replace(taken, counts=(taken.counts[0], large), covered=(small_share, large_share))

        fast_bytes._head_prefixes = scaled
        _, prefix = fast_bytes.replayed_bytes(arch, plans, prefix_tiles=8)
        print(
            f"A100 random case, larger prefix {factor} x the smaller ({small_share_of(rule, arch, plans)}): HBM read "
            f"{prefix[0] / 1e6:.1f} MB against the whole head's {whole[0] / 1e6:.1f} ({prefix[0] / whole[0] - 1:+.4f})"
        )
    fast_bytes._head_prefixes = rule


def small_share_of(rule: Any, arch: Any, plans: Any) -> str:
    taken: list[Any] = []

    def kept(head: Any) -> Any:
        result = rule(head)
        taken.append(result)
        return result

    saved = fast_bytes._head_prefixes
    fast_bytes._head_prefixes = kept
    fast_bytes.replayed_bytes(arch, plans, prefix_tiles=8)
    fast_bytes._head_prefixes = saved
    return f"smaller {taken[0].covered[0]:.4f} of the head, counts {taken[0].counts[0]}"


if __name__ == "__main__":
    b200_footprints()
    random_case()

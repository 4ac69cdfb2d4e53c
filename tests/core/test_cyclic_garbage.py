"""A prediction frees what it made by reference counting alone: it leaves no reference cycle behind.

Why: the engine's runs move their survivors to the oldest generation (`simgpu.engine`), which Python collects
rarely, so garbage caught in a cycle stays: until the forty-fifth session a compiled function nested in
`simgpu.fast_bytes.replayed_bytes` and its environment referred to each other, and with them every fast-mode
prediction that replayed several heads kept its plans, replays and programs, some 12 MiB a prediction at 128k tokens
(v1's backward), a sweep's or a notebook's memory growing without bound."""

from __future__ import annotations

import gc

import pytest

from simgpu import Problem, load_arch, simulate


def cyclic_garbage(arch_name: str, algo: str, problem: Problem, mode: str) -> list[str]:
    """The types of what a second prediction left that only the cycle collector frees (the first one warms up:
    imports, caches that live on)."""
    arch = load_arch(arch_name)
    simulate(arch, algo, problem, mode=mode)
    gc.collect()
    gc.garbage.clear()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        simulate(arch, algo, problem, mode=mode)
        gc.collect()
        return sorted({type(each).__name__ for each in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


@pytest.mark.parametrize(
    ("arch_name", "algo", "problem", "mode"),
    [
        ("h200", "v1", Problem(4, 16, 4096, 128, pass_="bwd"), "fast"),  # replays two heads (`_HeadsReplays`)
        ("h200", "v1", Problem(2, 4, 512, 64, pass_="fwd_bwd"), "exact"),
        ("h100", "v2", Problem(2, 4, 1024, 64, causal=True, pass_="fwd_bwd"), "fast"),
        ("h100", "v3", Problem(2, 4, 1024, 128, pass_="fwd_bwd"), "fast"),
        ("b200", "v4", Problem(1, 4, 1024, 128, pass_="fwd_bwd"), "fast"),
        ("a100", "standard", Problem(1, 4, 1024, 64, causal=True, pass_="fwd_bwd"), "fast"),
    ],
    ids=["v1-bwd-fast", "v1-fwd_bwd-exact", "v2-causal-fast", "v3-fast", "v4-fast", "standard-causal-fast"],
)
def test_a_prediction_leaves_no_cycle(arch_name: str, algo: str, problem: Problem, mode: str) -> None:
    assert cyclic_garbage(arch_name, algo, problem, mode) == []

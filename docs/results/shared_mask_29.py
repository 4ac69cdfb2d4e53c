"""PyTorch's causal mask, which every head reads, in fast mode's replay: HBM bytes in fast and exact mode.

`PYTHONPATH=. python docs/results/shared_mask_29.py` (writes to stdout; `shared_mask_29.txt` holds the run at this
commit and at 708fc22, before the replay extrapolated in heads). Cases: GPT-2 medium on the A100 (PyTorch's kernels,
dropout 0.1, causal, fwd+bwd; exact mode's bytes from `docs/results/gpt2_medium.csv`'s run of the same model, not
re-run: 78 s), an H100 at 2 x 16 heads, N = 2048, backward, and the H100 cut to 8 SMs of the xfail case.
"""

from __future__ import annotations

import time

from simgpu import Problem, load_arch, simulate

GPT2_EXACT_GB = 53.957623808  # docs/results/gpt2_medium.csv, standard, framework=pytorch dropout=0.1


def row(label: str, arch_name: str, overrides: dict[str, int], problem: Problem, options: dict, exact: bool) -> None:
    arch = load_arch(arch_name, overrides)
    started = time.perf_counter()
    fast = simulate(arch, "standard", problem, options)
    wall = time.perf_counter() - started
    line = f"{label:34s} fast: HBM read {fast.hbm_read_bytes / 1e9:.6f} GB, write {fast.hbm_write_bytes / 1e9:.6f} GB"
    line += f", cycles {fast.cycles:.0f}, wall {wall:.2f} s"
    if exact:
        ref = simulate(arch, "standard", problem, options, mode="exact")
        line += (
            f"\n{'':34s} exact: HBM read {ref.hbm_read_bytes / 1e9:.6f} GB, write {ref.hbm_write_bytes / 1e9:.6f} GB"
        )
        line += f", cycles {ref.cycles:.0f}; fast reads {fast.hbm_read_bytes / ref.hbm_read_bytes - 1:+.2%}"
    else:
        total = (fast.hbm_read_bytes + fast.hbm_write_bytes) / 1e9
        line += f"\n{'':34s} read + write {total:.2f} GB against exact mode's {GPT2_EXACT_GB:.2f}"
    print(line)


def main() -> None:
    pytorch = {"framework": "pytorch"}
    row(
        "gpt2-medium a100 fwd_bwd",
        "a100",
        {},
        Problem(64, 16, 1024, 64, causal=True, pass_="fwd_bwd"),
        {**pytorch, "dropout": 0.1},
        exact=False,
    )
    row(
        "h100 2x16 N=2048 bwd",
        "h100",
        {},
        Problem(2, 16, 2048, 64, causal=True, dtype="fp16", pass_="bwd"),
        pytorch,
        exact=True,
    )
    row(
        "h100 8 SMs 1x16 N=512 fwd",
        "h100",
        {"sms": 8},
        Problem(1, 16, 512, 64, causal=True, dtype="fp16"),
        pytorch,
        exact=True,
    )


if __name__ == "__main__":
    main()

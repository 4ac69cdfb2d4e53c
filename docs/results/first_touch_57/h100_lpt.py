"""FA3's LPT order on the whole H100 at 16k tokens (the causal set holds the H200's v3, not the H100's): v3's causal
forward at N = 512-4k, d = 64 and 128 (2048 / d heads), exact mode's cycles and fast mode's over them. Run once per
checkout: `PYTHONPATH=CHECKOUT python docs/results/first_touch_57/h100_lpt.py` (before: a worktree of c53a245)."""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate


def main() -> None:
    arch = load_arch("h100")
    for seqlen in (512, 1024, 2048, 4096):
        for headdim in (64, 128):
            problem = Problem(16384 // seqlen, 2048 // headdim, seqlen, headdim, causal=True)
            exact = simulate(arch, "v3", problem, mode="exact").cycles
            fast = simulate(arch, "v3", problem).cycles
            print(f"N = {seqlen:5d}, d = {headdim:3d}: exact {exact:12,.0f}  fast over exact {fast / exact:.4f}")


if __name__ == "__main__":
    main()

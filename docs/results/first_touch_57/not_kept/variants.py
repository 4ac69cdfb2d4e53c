"""The variants tried before the one kept, on the two LPT cases: fast over exact mode's cycles of v3's persistent causal
forward on the whole H100 at N = 512 (d = 128 and 64; exact mode's cycles from `../lpt_512.txt`) and on the whole
H200 at 16 x 16 x 1k, d = 128 (exact mode's from `../causal/fast_vs_exact_causal.csv`). Run from a worktree of
c53a245 with `labels_beside_demand_not_kept.patch` applied and its native modules built, under the patch's switches:
CLS=1 labels every kernel of several kinds (no first touches shared), WIN=1 sets a busy SM's share by the mean lone
demand of the tiles about it in launch order (a chip's slots of them), WIN=2 by the other slots' demand over its time
in a list schedule of the tiles at their lone times; none set: c53a245.
`for env in X=1 CLS=1 WIN=1 "CLS=1 WIN=1" "CLS=1 WIN=2"; do echo "== $env"; env $env PYTHONPATH=WT python
docs/results/first_touch_57/not_kept/variants.py; done > variants.txt`"""

from __future__ import annotations

from simgpu import Problem, load_arch, simulate

CASES = (
    ("h100", Problem(32, 16, 512, 128, causal=True), 209938.87207681342),
    ("h100", Problem(32, 32, 512, 64, causal=True), 264718),
    ("h200", Problem(16, 16, 1024, 128, causal=True), 247315.66389479087),
)


def main() -> None:
    for arch_name, problem, exact_cycles in CASES:
        fast = simulate(load_arch(arch_name), "v3", problem)
        print(arch_name, problem.batch, problem.heads, problem.seqlen_q, problem.headdim, fast.cycles / exact_cycles)


if __name__ == "__main__":
    main()

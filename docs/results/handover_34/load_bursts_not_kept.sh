#!/bin/sh
# The not-kept experiment of README.md ("Left"): walk a tile's consecutive loads together. Applies the patch to a
# copy of the checkout and prints fast over exact mode (cycles, HBM reads) for two whole-chip cases, with and without
# it. Run from the repository root, at the commit that added it:
# `sh docs/results/handover_34/load_bursts_not_kept.sh > docs/results/handover_34/load_bursts_not_kept.txt`.
set -e
copy=$(mktemp -d)
git archive HEAD | tar -x -C "$copy"
git -C "$copy" init -q 2>/dev/null || true
(cd "$copy" && git apply "$OLDPWD/docs/results/handover_34/load_bursts_not_kept.patch")
for tree in "$PWD" "$copy"; do
  echo "== $( [ "$tree" = "$PWD" ] && echo kept || echo 'with load_bursts_not_kept.patch' )"
  (cd "$tree" && PYTHONPATH="$tree" SIMGPU_NATIVE=0 "$OLDPWD/.venv/bin/python" - <<'PY'
import simgpu
from simgpu import Problem, simulate

print("simgpu from", simgpu.__file__.rsplit("/", 2)[0])
for arch, pass_, shape in (("h100", "bwd", (1, 16, 1024, 64)), ("a100", "fwd", (1, 16, 1024, 64))):
    problem = Problem(*shape, pass_=pass_)
    fast, exact = simulate(arch, "standard", problem), simulate(arch, "standard", problem, mode="exact")
    print(f"{arch} standard {pass_} {shape}: cycles {fast.cycles / exact.cycles:.4f}, "
          f"HBM reads {fast.hbm_read_bytes / exact.hbm_read_bytes:.4f} of exact mode's")
PY
  )
done
rm -rf "$copy"

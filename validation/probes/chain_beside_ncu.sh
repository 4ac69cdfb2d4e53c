#!/usr/bin/env bash
# Device run: Nsight Compute's source page (stall samples by reason, per SASS instruction) and warp-state statistics
# of five of `chain_beside.py`'s kernels: a SHFL chain alone and beside a warp of independent FFMAs on its scheduler,
# a MUFU.EX2 chain alone and beside one, an FFMA chain beside one. The question (chain_beside.cu): does the chain lose
# issue cycles (not_selected on the chain's instructions) or wait for its results (short_scoreboard)?
# Usage on the device machine, from the repository root: bash validation/probes/chain_beside_ncu.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup chain_beside_ncu
sections="--section WarpStateStats --section SourceCounters --section SchedulerStats"
# chain_beside.py launches each (chain, busy) pair twice, pairs in `PAIRS` order; the second launch is profiled.
skip_of() { python3 -c "import sys; sys.path.insert(0, 'validation/probes'); from chain_beside import PAIRS; print(2 * PAIRS.index(($1, $2)) + 1)"; }
for pair in "2 0" "2 1" "1 0" "1 1" "0 1"; do
  set -- $pair
  ncu_pages "$out" "chain$1_busy$2" chain_beside "$(skip_of $1 $2)" chain_beside.py /tmp/chain_beside_unused
done
tar czf "$dest/chain_beside_ncu.tgz" -C /tmp chain_beside_ncu
ls -la "$out"

#!/usr/bin/env bash
# Device run: Nsight Compute on FlashAttention-1's released forward (v1.0.9, `fa1_release.py --one`), the third of
# four launches, at d = 64 (N = 1024, one split; N = 16384, eight) and d = 128 (N = 4096, four), FA2's sweep shapes,
# not causal: where the kernel's time goes (stall reasons per SASS instruction, issue, pipes, L2 hit rate, DRAM
# bytes), which the v1 schedule's `release` variant must reproduce (`docs/results/fa1_release_vs_model.py`).
# Usage on the device machine, from the repository root, with the sources `fa1_release.py --sources` wrote:
#   bash validation/probes/fa1_release_ncu.sh DEST FA1_SOURCES
set -u
dest=$1
fa1=$2
source validation/probes/ncu_pages.sh
ncu_setup fa1_release_ncu
python3 validation/probes/fa1_release.py --fa1 "$fa1" --build-only > "$out/build.log" 2>&1
sections="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats"
sections+=" --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats"
for config in "64 1024 False" "64 16384 False" "128 4096 False"; do
  read -r d n causal <<< "$config"
  ncu_pages "$out" "fa1_d${d}_n${n}" fmha_fwd 2 fa1_release.py --fa1 "$fa1" --one "$d" "$n" "$causal"
done
cp "$out"/*.csv "$out"/*.log "$out/gpu.txt" "$dest/"

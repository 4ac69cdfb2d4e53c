#!/usr/bin/env bash
# Device run: what the K/V copies of our FA2 forward cost the SM, under Nsight Compute. The default build (shared
# K/V fragments, PV one step ahead) with and without its cp.async copies (FA2_ABLATE=1), d = 64 and 128, the shapes
# of validation/probes/v2_instruction_mix.py (B=4, H=2048/d, N=4096, bf16, not causal; two CTAs per SM). Per build:
# the details page (speed of light, compute and memory workload, scheduler, warp states, instruction statistics)
# and the source page (per SASS instruction: executions and stall samples by reason); then
# `v2_instruction_mix.py summarize`. Why: on the H200 the copies add 430-550 SM cycles per key tile at two CTAs per
# SM (validation/h200/v2_ablate_h200.csv), where the model hides them behind the other CTA's work; the pages tell
# which unit or stall the copies add to.
# Usage on the device machine, from the repository root: bash validation/probes/v2_load_ncu.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup v2_load_ncu
sections="--section InstructionStats --section WarpStateStats --section SourceCounters --section SchedulerStats"
sections="$sections --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SpeedOfLight"
for d in 128 64; do
  ncu_pages "$out" "fwd${d}_shared_ahead" '^fa2_fwd$' 1 v2_instruction_mix.py fwd "$d" 0
  ncu_pages "$out" "fwd${d}_shared_noload" '^fa2_fwd$' 1 v2_instruction_mix.py fwd "$d" 1
done
python3 validation/probes/v2_instruction_mix.py summarize "$out" > "$out/summarize.log" 2>&1
cp "$out/v2_instruction_mix_h200.csv" "$dest/v2_load_ncu_h200.csv"
gzip -f "$out"/*_source.csv
tar czf "$dest/v2_load_ncu.tgz" -C /tmp v2_load_ncu
ls -la "$out"

#!/usr/bin/env bash
# Device run: PyTorch's FA2 forward (the production kernel: the flash backend of scaled_dot_product_attention) beside
# our FA2 forward under Nsight Compute, d = 64 and 128 (B=4, H=2048/d, N=4096, bf16, not causal; the shapes of
# validation/probes/v2_instruction_mix.py), and PyTorch's FA2 backward. Per build: the details page (instruction
# statistics, warp states, scheduler, launch and occupancy, pipe utilization) and the source page (per SASS
# instruction: executions and stall samples); then `v2_instruction_mix.py summarize` over them. Tells which
# instructions FA2 executes per key tile that ours does not (or fewer), and so which unit the v2 schedule's
# instruction mix misses against FA2. In validation/h200/torch_fa2_mix/, fwd64 and fwd128 are our kernel as it was
# built before the sixteenth session (FA2_SHARED_FRAGMENTS=0 FA2_PV_AHEAD=0), profiled by this script then; the
# *_shared_ahead builds are the default since (profiled with the same sections less launch and occupancy).
# Usage on the device machine, from the repository root: bash validation/probes/torch_fa2_mix.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup torch_fa2_mix
python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)" >> "$out/gpu.txt" 2>&1
sections="--section InstructionStats --section WarpStateStats --section SourceCounters --section SchedulerStats"
sections="$sections --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis --section SpeedOfLight"
profile() {  # name, kernel regex, launches to skip, probe arguments...
  ncu_pages "$out" "$1" "$2" "$3" v2_instruction_mix.py "${@:4}"
}
profile torchfwd64 flash_fwd 1 torchfwd 64
profile torchfwd128 flash_fwd 1 torchfwd 128
profile fwd64_shared_ahead '^fa2_fwd$' 1 fwd 64 0
profile fwd128_shared_ahead '^fa2_fwd$' 1 fwd 128 0
profile torchbwd64 flash_bwd_dq_dk_dv 1 torchbwd 64
profile torchbwd128 flash_bwd_dq_dk_dv 1 torchbwd 128
python3 validation/probes/v2_instruction_mix.py summarize "$out" > "$out/summarize.log" 2>&1
cp "$out/v2_instruction_mix_h200.csv" "$dest/torch_fa2_mix_h200.csv"
gzip -f "$out"/*_source.csv
tar czf "$dest/torch_fa2_mix.tgz" -C /tmp torch_fa2_mix
ls -la "$out"

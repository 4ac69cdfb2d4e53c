#!/usr/bin/env bash
# Device run: the memory rounds of elementwise kernels. The probe's six forms of an in-place masked fill timed and
# counted (validation/probes/elementwise_rounds.py), their SASS (the order of loads and stores: nvcc, cuobjdump), and
# PyTorch's masked_fill_ kernel under Nsight Compute with its warp states, scheduler statistics and SASS with stall
# samples per instruction (the second launch of `torch_gpt2_attention.py --maskfill causal`).
# Usage on the device machine, from the repository root: bash validation/probes/elementwise_rounds.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup elementwise_rounds
python3 validation/probes/elementwise_rounds.py "$out" > "$out/console.txt" 2>&1
nvcc -gencode=arch=compute_90a,code=sm_90a -cubin -Xptxas -v -o /tmp/elementwise_rounds.cubin \
  validation/probes/elementwise_rounds.cu > "$out/ptxas.txt" 2>&1
cuobjdump -sass /tmp/elementwise_rounds.cubin > "$out/elementwise_rounds_sass.txt" 2>&1
sections="--section WarpStateStats --section SourceCounters --section SchedulerStats --section Occupancy --section LaunchStats"
ncu_pages "$out" torch_masked_fill '^elementwise_kernel' 1 torch_gpt2_attention.py --maskfill causal
cd "$out" && tar czf "$dest/elementwise_rounds.tgz" ./*.csv ./*.txt ./*.log

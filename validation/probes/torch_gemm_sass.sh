#!/usr/bin/env bash
# Device run: the SASS of the cuBLAS kernels that PyTorch launches for S = Q K^T and for P V in the GPT-2 attention
# program (`torch_gpt2_attention.py --iterate dropout`, the first launch of each), with Nsight Compute's stall samples
# and memory counters: how the epilogue writes its C tile (straight from registers, or staged through shared memory
# and stored in whole lines), and the L2 sector traffic of those stores.
# Usage on the device machine, from the repository root: bash validation/probes/torch_gemm_sass.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup torch_gemm_sass
sections="--section SourceCounters --section MemoryWorkloadAnalysis_Tables --section LaunchStats --section SpeedOfLight"
for pair in qk:0 pv:1; do
  name=${pair%%:*}
  skip=${pair#*:}
  timeout 150 ncu --clock-control none --kernel-name regex:^nvjet --launch-skip "$skip" --launch-count 1 \
    $sections -o "/tmp/$name" python3 validation/probes/torch_gpt2_attention.py --iterate dropout > "$out/$name.log" 2>&1
  ncu -i "/tmp/$name.ncu-rep" --csv --page details --print-metric-instances values > "$out/${name}_details.csv" 2>&1
  ncu -i "/tmp/$name.ncu-rep" --csv --page source --print-source sass > "$out/${name}_source.csv" 2>&1
done
cd "$out" && tar czf "$dest/torch_gemm_sass.tgz" ./*.csv ./*.txt ./*.log

#!/usr/bin/env bash
# Device run: the SASS of PyTorch's elementwise kernels in the GPT-2 attention program, with Nsight Compute's stall
# samples per instruction: in what order each thread loads, computes and stores its elements (how many dependent
# memory round trips it makes). One launch of each kernel in the first iteration of
# `torch_gpt2_attention.py --iterate dropout`, picked by its demangled name; writes NAME.log, NAME_details.csv and
# NAME_source.csv per kernel (the SASS page), as `ncu_pages` does for our probes.
# Usage on the device machine, from the repository root: bash validation/probes/torch_elementwise_sass.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup torch_elementwise_sass
sections="--section WarpStateStats --section SourceCounters --section LaunchStats --section Occupancy"
for pair in copy:direct_copy_kernel mul:BinaryFunctor.*MulFunctor dropout:fused_dropout_kernel_vec \
  dropout_bwd:masked_scale_kernel softmax:softmax_warp_forward softmax_bwd:softmax_warp_backward \
  scale:AUnaryFunctor fill:FillFunctor; do
  name=${pair%%:*}
  regex=${pair#*:}
  timeout 150 ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$regex" --launch-count 1 \
    $sections -o "/tmp/$name" python3 validation/probes/torch_gpt2_attention.py --iterate dropout > "$out/$name.log" 2>&1
  ncu -i "/tmp/$name.ncu-rep" --csv --page details --print-metric-instances values > "$out/${name}_details.csv" 2>&1
  ncu -i "/tmp/$name.ncu-rep" --csv --page source --print-source sass > "$out/${name}_source.csv" 2>&1
done
cd "$out" && tar czf "$dest/torch_elementwise_sass.tgz" ./*.csv ./*.txt ./*.log

#!/usr/bin/env bash
# Device run, after torch_gpt2_attention.sh: the launch statistics (registers per thread, shared memory, grid and
# block), occupancy, warp states and scheduler statistics of every kernel of two iterations of PyTorch's eager GPT-2
# attention with dropout (validation/probes/torch_gpt2_attention.py --iterate dropout), Nsight Compute with clocks
# left alone and application replay. The second iteration's kernels are the last 17. With N: the same at
# TORCH_ATTN_SHAPE=B,H,N,64 for the shapes of torch_gpt2_more.sh (16 x 16 at N = 2048, 4 x 16 at 4096).
# Usage on the device machine, from the repository root: bash validation/probes/torch_gpt2_launch.sh DEST [N]
set -u
dest=$1
n=${2:-}
source validation/probes/ncu_pages.sh
ncu_setup torch_gpt2_launch
sections="--section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats"
name=ncu_launch_dropout
if [ -n "$n" ]; then
  export TORCH_ATTN_SHAPE=$((16384 / n)),16,$n,64
  name=${name}_n$n
fi
timeout 400 ncu --clock-control none --replay-mode application $sections --csv \
  python3 validation/probes/torch_gpt2_attention.py --iterate dropout > "$out/$name.csv" 2> "$out/ncu.log"
gzip -c "$out/$name.csv" > "$dest/$name.csv.gz"
cp "$out/gpu.txt" "$dest/gpu_launch.txt"
tail -5 "$out/ncu.log"

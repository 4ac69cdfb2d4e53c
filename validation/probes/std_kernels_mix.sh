#!/usr/bin/env bash
# Device run: the instructions our standard forward's three kernels execute per pipe (Nsight Compute: all, ALU, FMA,
# XU, LSU, and the time), at d = 64 and 128, N = 4096 (16k tokens), not causal then causal
# (`validation/probes/std_kernels.py --mix-target`): what the causal mask costs the QK^T's epilogue, and which
# instructions the model's ops do not count. Clocks left alone.
# Usage on the device machine, from the repository root: bash validation/probes/std_kernels_mix.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup std_kernels_mix
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum
metrics=$metrics,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_lsu.sum,sm__cycles_elapsed.avg.per_second
metrics=$metrics,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active
timeout 300 ncu --clock-control none --kernel-name regex:std_ --metrics "$metrics" --csv \
  python3 validation/probes/std_kernels.py --mix-target > "$out/std_kernels_mix_ncu.csv" 2> "$out/ncu.log"
cp "$out/std_kernels_mix_ncu.csv" "$out/gpu.txt" "$dest/"
tail -3 "$out/ncu.log"

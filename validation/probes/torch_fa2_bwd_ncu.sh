#!/usr/bin/env bash
# Device run: Nsight Compute's DRAM bytes and durations of PyTorch's FA2 backward kernels (Delta, main,
# dQ conversion), d = 64 and 128, N = 1024 and 4096 (16k tokens, hidden 2048, not causal): the HBM traffic the v2
# schedule's default backward predicts (`docs/results/torch_fa2_bwd_ncu_vs_model.py`). Clocks and caches left
# alone (`--clock-control none --cache-control none`: L2 carries over from one kernel to the next, as in the run).
# Profiles the second of two backward calls. The committed run (validation/h200/torch_fa2_bwd_ncu/, 2026-12-03)
# launched the same two calls from a script of its own, since folded into `v2_instruction_mix.py torchbwd D N`.
# Usage on the device machine, from the repository root: bash validation/probes/torch_fa2_bwd_ncu.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup torch_fa2_bwd_ncu
metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
for d in 64 128; do
  for n in 1024 4096; do
    timeout 300 ncu --clock-control none --cache-control none --kernel-name regex:flash_bwd --launch-skip 3 \
      --launch-count 3 --metrics "$metrics" --csv python3 validation/probes/v2_instruction_mix.py torchbwd "$d" "$n" \
      > "$out/ncu_d${d}_n${n}.csv" 2> "$out/ncu_d${d}_n${n}.log"
  done
done
cp "$out"/ncu_*.csv "$out/gpu.txt" "$dest/"

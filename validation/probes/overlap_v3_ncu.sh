#!/usr/bin/env bash
# Device run of 2026-11-29 (third session): the overlap microbenchmark with the mma.sync and FA2-loop roles, the
# SASS of those roles, and Nsight Compute on our FA3 forward kernel (d = 64 and 128, with and without ping-pong).
# Usage on the device machine, from the repository root: bash validation/probes/overlap_v3_ncu.sh "$OUT"
# (everything lands in one tarball in $OUT: the device returns at most 8 files).
set -u
dest=$1
out=/tmp/overlap_v3_ncu
mkdir -p "$out"
export PYTHONPATH=. PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv > "$out/gpu.txt"
python3 -m cupy_kernels.calibrate.overlap --out "$out" > "$out/overlap_table.txt" 2>&1
(cd cupy_kernels/calibrate && nvcc -gencode=arch=compute_90a,code=sm_90a -cubin -I. -I.. overlap.cu -o /tmp/ov.cubin \
  && cuobjdump -sass /tmp/ov.cubin | grep -oE "(HMMA|MUFU|SHFL|FMNMX|F2FP|FFMA|FMUL|FADD)[.A-Z0-9]*" \
  | sort | uniq -c) > "$out/overlap_sass_counts.txt" 2>&1
ncu --query-metrics > /tmp/metrics.txt 2>&1
want="gpu__time_duration.sum sm__cycles_elapsed.avg.per_second sm__issue_active.avg.pct_of_peak_sustained_elapsed
sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed
sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed sm__warps_active.avg.pct_of_peak_sustained_active
smsp__cycles_active.avg smsp__inst_executed.sum"
metrics=""
for m in $want; do
  base=${m%%.*}
  if grep -q "^$base " /tmp/metrics.txt; then metrics="$metrics,$m"; else echo "missing $m" >> "$out/ncu_missing.txt"; fi
done
for s in barrier dispatch_stall long_scoreboard math_pipe_throttle mio_throttle not_selected selected \
  short_scoreboard wait membar sleeping no_instruction branch_resolving; do
  metrics="$metrics,smsp__average_warp_latency_issue_stalled_$s.ratio"
done
metrics=${metrics#,}
for d in 64 128; do
  for pp in 0 1; do
    timeout 240 ncu --clock-control none --kernel-name regex:fa3 --launch-skip 2 --launch-count 1 --csv \
      --metrics "$metrics" python3 validation/probes/v3_ncu.py $d $pp > "$out/v3_ncu_d${d}_pp${pp}.csv" 2>&1
  done
done
cat "$out/overlap_table.txt" "$out/overlap_sass_counts.txt"
tar -C "$out" -czf "$dest/overlap_v3_ncu.tgz" .
ls -la "$out"

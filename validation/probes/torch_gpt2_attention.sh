#!/usr/bin/env bash
# Device run: PyTorch's eager GPT-2 attention (validation/probes/torch_gpt2_attention.py) kernel by kernel on the
# H200: the probe's timings and kernel list, then Nsight Compute over two forward + backward iterations per variant
# (dropout 0.1 and none), clocks left alone, application replay: (1) DRAM and L2 bytes and durations with caches
# left alone (`--cache-control none`: L2 carries over from one kernel to the next, as in the run); (2) executed warp
# instructions per pipe. The second iteration's kernels are the last `torch_gpt2_count_<variant>.txt` rows.
# Usage on the device machine, from the repository root: bash validation/probes/torch_gpt2_attention.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup torch_gpt2_attention
python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)" >> "$out/gpu.txt" 2>&1
python3 validation/probes/torch_gpt2_attention.py "$out" > "$out/console.txt" 2>&1
ncu --query-metrics > /tmp/metrics.txt 2>&1
pick() {  # the metrics of $@ that this ncu knows, comma-separated; the others into ncu_missing.txt
  local found=""
  for m in "$@"; do
    if grep -q "^${m%%.*} " /tmp/metrics.txt; then found="$found,$m"; else echo "missing $m" >> "$out/ncu_missing.txt"; fi
  done
  echo "${found#,}"
}
bytes=$(pick gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum lts__t_sectors_op_read.sum \
  lts__t_sectors_op_write.sum sm__cycles_elapsed.avg.per_second launch__registers_per_thread \
  sm__warps_active.avg.pct_of_peak_sustained_active)
insts=$(pick smsp__inst_executed.sum sm__inst_executed_pipe_alu.sum sm__inst_executed_pipe_fma.sum \
  sm__inst_executed_pipe_fmaheavy.sum sm__inst_executed_pipe_fmalite.sum sm__inst_executed_pipe_xu.sum \
  sm__inst_executed_pipe_lsu.sum sm__pipe_alu_cycles_active.sum sm__pipe_fma_cycles_active.sum \
  sm__pipe_tensor_op_hmma_cycles_active.sum sm__cycles_elapsed.sum)
for variant in dropout nodropout; do
  timeout 240 ncu --clock-control none --cache-control none --replay-mode application --metrics "$bytes" --csv \
    python3 validation/probes/torch_gpt2_attention.py --iterate "$variant" \
    > "$out/ncu_bytes_$variant.csv" 2> "$out/ncu_bytes_$variant.log"
  timeout 240 ncu --clock-control none --replay-mode application --metrics "$insts" --csv \
    python3 validation/probes/torch_gpt2_attention.py --iterate "$variant" \
    > "$out/ncu_insts_$variant.csv" 2> "$out/ncu_insts_$variant.log"
done
tail -3 "$out"/ncu_*.log > "$out/ncu_logs.txt" 2>&1
cat "$out"/torch_gpt2_count_*.txt >> "$out/console.txt"
tar czf "$dest/torch_gpt2_ncu.tgz" -C "$out" .
cp "$out/console.txt" "$out/torch_gpt2_kernels_h200.csv" "$out/torch_gpt2_times_h200.csv" "$out/gpu.txt" "$dest/"

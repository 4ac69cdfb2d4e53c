#!/usr/bin/env bash
# Device run: what bounds PyTorch's FA2 forward at d = 256 (64 x 64 tiles, 4 warps, two CTAs per SM on the H200),
# where the v2 model is 14-17% too slow (smem-bound in the model; docs/results/torch_fa2_vs_model.txt), against d = 128
# (within 4% there). Shapes of validation/probes/v2_instruction_mix.py (B=4, H=2048/d, N=4096, bf16, not causal).
# Per head dimension: (1) Nsight Compute's counters of the shared-memory port (LSU wavefronts, LDSM and LDGSTS
# executed, bank conflicts), the pipes (tensor, FMA, ALU, XU), issue, the L2 -> SM and DRAM bytes, elapsed cycles and
# the warps' stall reasons; (2) the details and source pages (instruction statistics, warp states, per-SASS
# counts), summarized per warp and key tile by `v2_instruction_mix.py summarize`.
# Usage on the device machine, from the repository root: bash validation/probes/torch_fa2_d256.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup torch_fa2_d256
python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)" >> "$out/gpu.txt" 2>&1
ncu --query-metrics > /tmp/metrics.txt 2>&1
want="gpu__time_duration.sum sm__cycles_elapsed.avg sm__cycles_elapsed.avg.per_second
sm__issue_active.avg.pct_of_peak_sustained_elapsed sm__warps_active.avg.pct_of_peak_sustained_active
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed
sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed
l1tex__throughput.avg.pct_of_peak_sustained_elapsed l1tex__m_xbar2l1tex_read_bytes.sum
smsp__inst_executed_op_ldsm.sum smsp__inst_executed_op_ldgsts.sum smsp__inst_executed.sum
lts__t_bytes.sum dram__bytes_read.sum dram__bytes_write.sum"
metrics=""
for m in $want; do
  base=${m%%.*}
  if grep -q "^$base " /tmp/metrics.txt; then metrics="$metrics,$m"; else echo "missing $m" >> "$out/ncu_missing.txt"; fi
done
for s in barrier dispatch_stall long_scoreboard math_pipe_throttle mio_throttle lg_throttle not_selected selected \
  short_scoreboard wait; do
  metrics="$metrics,smsp__average_warp_latency_issue_stalled_$s.ratio"
done
metrics=${metrics#,}
sections="--section InstructionStats --section WarpStateStats --section SourceCounters --section SpeedOfLight"
for d in 256 128; do
  timeout 180 ncu --clock-control none --kernel-name regex:flash_fwd --launch-skip 1 --launch-count 1 --csv \
    --metrics "$metrics" python3 validation/probes/v2_instruction_mix.py torchfwd $d > "$out/counters_d$d.csv" 2>&1
  ncu_pages "$out" "torchfwd$d" flash_fwd 1 v2_instruction_mix.py torchfwd $d
done
python3 validation/probes/v2_instruction_mix.py summarize "$out" > "$out/summarize.log" 2>&1
cp "$out/v2_instruction_mix_h200.csv" "$dest/torch_fa2_d256_mix_h200.csv" 2>/dev/null
gzip -f "$out"/*_source.csv
tar -C "$out" -czf "$dest/torch_fa2_d256.tgz" .
cat "$out/gpu.txt" "$out/summarize.log"
grep -h -E "gpu__time|cycles_elapsed.avg\"|wavefronts|ldsm|ldgsts|hmma|bank_conf|pct_of_peak|bytes" "$out"/counters_d*.csv \
  | cut -d, -f1,5,13- | head -80

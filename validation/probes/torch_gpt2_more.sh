#!/usr/bin/env bash
# Device run, after torch_gpt2_attention.sh: PyTorch's eager attention (validation/probes/torch_gpt2_attention.py) at
# two more shapes, 16 x 16 heads at N = 2048 and 4 x 16 at N = 4096 (d = 64, fp16, causal: the same 16k tokens),
# profiler times and, with dropout, Nsight Compute's DRAM bytes (clocks and caches left alone, application replay) and
# executed instructions per pipe; and masked_fill_ alone on a random S at GPT-2 medium's shape with a causal, an empty
# and a full mask (its DRAM reads; the only non-vectorized `elementwise_kernel` that run launches).
# Usage on the device machine, from the repository root: bash validation/probes/torch_gpt2_more.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup torch_gpt2_more
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_elapsed.avg.per_second
insts=smsp__inst_executed.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_xu.sum
for shape in 16,16,2048,64 4,16,4096,64; do
  n=$(echo "$shape" | cut -d, -f3)
  TORCH_ATTN_SHAPE=$shape python3 validation/probes/torch_gpt2_attention.py "$out" > "$out/console_n$n.txt" 2>&1
  TORCH_ATTN_SHAPE=$shape timeout 240 ncu --clock-control none --cache-control none --replay-mode application \
    --metrics "$metrics" --csv python3 validation/probes/torch_gpt2_attention.py --iterate dropout \
    > "$out/ncu_bytes_dropout_n$n.csv" 2> "$out/ncu_bytes_dropout_n$n.log"
  TORCH_ATTN_SHAPE=$shape timeout 240 ncu --clock-control none --replay-mode application --metrics "$insts" --csv \
    python3 validation/probes/torch_gpt2_attention.py --iterate dropout \
    > "$out/ncu_insts_dropout_n$n.csv" 2> "$out/ncu_insts_dropout_n$n.log"
done
for kind in causal none all; do
  timeout 120 ncu --clock-control none --cache-control none --kernel-name regex:^elementwise_kernel --metrics "$metrics" \
    --csv python3 validation/probes/torch_gpt2_attention.py --maskfill "$kind" > "$out/ncu_maskfill_$kind.csv" \
    2> "$out/ncu_maskfill_$kind.log"
done
cd "$out" && tar czf "$dest/torch_gpt2_more.tgz" ./*.csv ./*.txt ./*.log

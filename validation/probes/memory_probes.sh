#!/usr/bin/env bash
# Device run: the memory probes that give an arch file its HBM and L2 numbers, on whatever card the machine has
# (written for the H100, whose file took them from the H200 or from Luo2024 until the forty-fifth session): the idle
# load latencies of L2 and HBM and the CTA launch gap (`cta_launch.py`), one SM's copy latency while the others stream
# (`loaded_latency.py`), the HBM's rate per read/write mix (`hbm_mix.py`, ARRAY_MIB per array), and a sustained
# cuBLAS GEMM's clock and power (`gemm_clock.py`). Each probe's CSV keeps the name the H200 runs gave it; the GPU it
# ran on, each probe's exit status and time are in gpu.txt, the probes' printouts in console.txt.
# Usage on the device machine, from the repository root: bash validation/probes/memory_probes.sh DEST [ARRAY_MIB]
set -u
dest=$1
array_mib=${2:-1024}
mkdir -p "$dest"
export PYTHONPATH=.
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit,driver_version --format=csv
  nvidia-smi -q -d CLOCK | grep -A3 -i "applications clocks"
} > "$dest/gpu.txt" 2>&1
for probe in cta_launch loaded_latency "hbm_mix $array_mib" gemm_clock; do
  read -r name args <<< "$probe"
  start=$SECONDS
  echo "## $name" >> "$dest/console.txt"
  # shellcheck disable=SC2086  # args: none or one number
  python3 "validation/probes/$name.py" "$dest" $args >> "$dest/console.txt" 2>&1
  echo "$name: exit $? in $((SECONDS - start)) s" | tee -a "$dest/gpu.txt"
done
cat "$dest/hbm_mix_gpu.txt" >> "$dest/gpu.txt" && rm "$dest/hbm_mix_gpu.txt"

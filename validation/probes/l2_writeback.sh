#!/usr/bin/env bash
# Device run of validation/probes/l2_writeback.py: the timings, then the labelled sequence under Nsight Compute with
# one pass of DRAM read and write bytes, L2 bytes and the duration per kernel (caches and clocks left alone: each
# kernel meets what the one before left in L2), joined with the labels.
# Usage on the device machine, from the repository root: bash validation/probes/l2_writeback.sh DEST
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup l2_writeback
python3 validation/probes/l2_writeback.py time "$out" > "$out/time_console.txt" 2>&1
timeout 300 ncu --clock-control none --cache-control none --kernel-name regex:l2wb_ --csv --print-units base \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,gpu__time_duration.sum \
  python3 validation/probes/l2_writeback.py ncu-target "$out" > "$out/ncu.csv" 2> "$out/ncu_stderr.txt"
python3 validation/probes/l2_writeback.py parse "$out" > "$out/parse_console.txt" 2>&1
mkdir -p "$dest" && cp -r "$out" "$dest/"

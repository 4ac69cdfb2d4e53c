#!/usr/bin/env bash
# Device run of validation/probes/l2_writeback.py: the timings, then the labelled sequence under Nsight Compute with
# one pass of DRAM read and write bytes, L2 bytes and the duration per kernel (caches and clocks left alone: each
# kernel meets what the one before left in L2), joined with the labels.
# Usage on the device machine, from the repository root: bash validation/probes/l2_writeback.sh DEST [--capacity]
# (--capacity: only the re-read sequence of 24-64 MiB buffers).
set -u
dest=$1
source validation/probes/ncu_pages.sh
ncu_setup l2_writeback
profile() {  # profile MODE OUT_NAME: the probe's MODE sequence under ncu into $out/OUT_NAME.csv
  timeout 300 ncu --clock-control none --cache-control none --kernel-name regex:l2wb_ --csv --print-units base \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,gpu__time_duration.sum \
    python3 validation/probes/l2_writeback.py "$1" "$out" > "$out/$2.csv" 2> /dev/null
}
if [ "${2:-}" != "--capacity" ]; then
  python3 validation/probes/l2_writeback.py time "$out" > "$out/time_console.txt" 2>&1
  profile ncu-target ncu
  python3 validation/probes/l2_writeback.py parse "$out" > "$out/parse_console.txt" 2>&1
fi
profile capacity-target capacity
python3 validation/probes/l2_writeback.py parse-capacity "$out" > "$out/parse_capacity_console.txt" 2>&1
mkdir -p "$dest" && cp -r "$out" "$dest/"

#!/usr/bin/env bash
# On the device machine, from the repository root, with out/devwheels carried over (validation/device_wheels.sh):
# installs the wheels beside the device's Python, then runs `simgpu validate` for each NAME=MEASURED_CSV:JOBS
# argument at once, each into $OUT/report_NAME with its log (and wall seconds) in $OUT/NAME.log. Example:
#   bash validation/device_validate.sh standard=validation/h200/kernels_h200.csv:7 v1=validation/h200/kernels_h200.csv:9
set -u
pip install -q --no-index --no-deps --target /tmp/site out/devwheels/*.whl > "$OUT/pip.txt" 2>&1
export PYTHONPATH=.:/tmp/site
for spec in "$@"; do
  name=${spec%%=*} rest=${spec#*=}
  measured=${rest%%:*} jobs=${rest##*:}
  (
    t0=$(date +%s)
    python3 -m simgpu validate --measured "$measured" --algos "$name" -j "$jobs" --out "$OUT/report_$name" \
      > "$OUT/$name.log" 2>&1
    echo "$name rc=$? $(( $(date +%s) - t0 )) s" >> "$OUT/$name.log"
  ) &
done
wait
tail -n 3 "$OUT"/*.log

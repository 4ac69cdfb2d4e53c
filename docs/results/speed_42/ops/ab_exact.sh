#!/bin/bash
for r in 1 2 3; do
  for case in "h200 v1 fwd" "h200 standard fwd_bwd"; do
    for side in base new; do
      if [ $side = base ]; then d=/work/main; else d=/work/wt_ops; fi
      echo "$r $side $(cd $d && .venv/bin/python /tmp/ops/exact_time.py $case) load=$(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done

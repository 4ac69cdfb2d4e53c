#!/bin/bash
for r in 1 2 3; do
  for side in base new; do
    if [ $side = base ]; then d=/work/main; else d=/work/wt_ops; fi
    echo "$r $side fast: $(cd $d && .venv/bin/python /tmp/ops/fast_time.py) load=$(cut -d' ' -f1 /proc/loadavg)"
    echo "$r $side construct: $(cd $d && .venv/bin/python /tmp/ops/construct.py)"
  done
done

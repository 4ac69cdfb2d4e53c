#!/bin/bash
for c in "h200 v1 fwd" "h100 v1 fwd" "a100 v1 bwd" "h100 v1 bwd" "h200 v1 bwd" "b200 v1 bwd" "h100 standard fwd_bwd" "h200 standard fwd_bwd" "a100 standard fwd_bwd" "b200 standard fwd_bwd" "h100 v1 fwd_bwd" "h200 v1 fwd_bwd" "a100 v1 fwd_bwd" "b200 v1 fwd_bwd"; do
  echo "base $(cd /work/main && .venv/bin/python /tmp/exact/one.py $c) load=$(cut -d' ' -f1 /proc/loadavg)"
  echo "new  $(cd /work/wt_exact && .venv/bin/python /tmp/exact/one.py $c) load=$(cut -d' ' -f1 /proc/loadavg)"
done

#!/bin/bash
# Exact mode at issue 4's shape, the session's start (BASE checkout) and its end (NEW checkout) in turn, two rounds:
# `bash ab.sh BASE NEW`. Each line: checkout, case, CPU seconds, cycles, compiled.
one=$(dirname "$(readlink -f "$0")")/../../speed_43/exact/one.py  # the forty-third session's runner
for round in 1 2; do
  for c in "h200 v1 bwd" "h100 v1 bwd" "a100 v1 fwd_bwd" "h200 standard fwd_bwd"; do
    echo "base $(cd "$1" && .venv/bin/python "$one" $c) load=$(cut -d' ' -f1 /proc/loadavg)"
    echo "new  $(cd "$2" && .venv/bin/python "$one" $c) load=$(cut -d' ' -f1 /proc/loadavg)"
  done
done

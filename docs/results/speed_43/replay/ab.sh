#!/bin/bash
# usage: ab.sh ROUNDS N cases...   alternates base (/work/main) and new (/work/wt_replay)
R=$1; N=$2; shift 2
for r in $(seq $R); do
  (cd /work/main && .venv/bin/python /tmp/replay/t.py $N "$@" | sed 's/^/base /')
  (cd /work/wt_replay && .venv/bin/python /tmp/replay/t.py $N "$@" | sed 's/^/new  /')
done > /tmp/replay/ab_out.txt
python3 - <<'PY'
import json, statistics
from collections import defaultdict
d = defaultdict(lambda: defaultdict(list))
for l in open('/tmp/replay/ab_out.txt'):
    lab, rest = l[:4].strip(), l[5:]
    c, p, s, pl, sl, cyc, hbm = json.loads(rest)
    d[c][lab].append((p, s, cyc, hbm))
for c, v in d.items():
    b, n = v['base'], v['new']
    same = all(x[2:] == b[0][2:] for x in b + n)
    print(f"{c:8s} plan base {statistics.median(x[0] for x in b):6.1f} new {statistics.median(x[0] for x in n):6.1f}   sim base {statistics.median(x[1] for x in b):6.1f} new {statistics.median(x[1] for x in n):6.1f}  same={same}")
PY

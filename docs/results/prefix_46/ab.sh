# A session's speed A/B: simspeed on a base worktree (with its own compiled modules) and on main, alternating, twice;
# the forty-sixth session's by default (BASE=/work/base46, OUT=/tmp/s46), the forty-seventh's with BASE=/work/base47
# OUT=/tmp/s47. Copy the CSVs from OUT to the session's folder; compare.py (given that folder) reads them.
BASE=${BASE:-/work/base46}
OUT=${OUT:-/tmp/s46}
set -e
for round in 1 2; do
  for wt in $BASE /work/main; do
    name=$([ $wt = /work/main ] && echo end || echo base)
    cd $wt && PYTHONPATH=$wt /work/main/.venv/bin/python -m benchmarks.simspeed --out $OUT/ab_${name}_$round > $OUT/ab_${name}_$round.console 2>&1
    echo "$wt round $round done $(date)"
  done
done

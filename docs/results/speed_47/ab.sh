# The forty-seventh session's speed A/B: simspeed on 04642fb (the session's start, a worktree at /work/base47 with its own
# compiled modules) and on main, alternating, twice. Copy the CSVs from /tmp/s47 here; compare.py reads them.
set -e
for round in 1 2; do
  for wt in /work/base47 /work/main; do
    name=$([ $wt = /work/main ] && echo end || echo base)
    cd $wt && PYTHONPATH=$wt /work/main/.venv/bin/python -m benchmarks.simspeed --out /tmp/s47/ab_${name}_$round > /tmp/s47/ab_${name}_$round.console 2>&1
    echo "$wt round $round done $(date)"
  done
done

set -e
for round in 1 2; do
  for wt in /work/base46 /work/main; do
    name=$([ $wt = /work/main ] && echo end || echo base)
    cd $wt && PYTHONPATH=$wt /work/main/.venv/bin/python -m benchmarks.simspeed --out /tmp/s46/ab_${name}_$round > /tmp/s46/ab_${name}_$round.console 2>&1
    echo "$wt round $round done $(date)"
  done
done

#!/bin/bash
# Instructions of one fast-mode prediction (or, with SCRIPT, of one exact-mode one), the base and the change side by
# side under callgrind, PYTHONHASHSEED=0 (dictionaries' layouts, and so their costs, change with the hash seed):
# each checkout runs the case with 0 and with 2 predictions after its warm-up; half the difference is one prediction.
# Base: a worktree of 2d70328 at /tmp/wt_base, the change: a worktree at /tmp/wt_new, each with its own native build
# (`PYTHONPATH=DIR python build_native.py`) and the main checkout's .venv linked in.
# `docs/results/lines_62/callgrind_ab.sh CASE TAG >> docs/results/lines_62/callgrind_ab.txt` (CASE arch:algo:pass:seqlen,
# the speed benchmark's problem: 16k tokens, 16 heads, d = 128); exact mode:
# `SCRIPT=docs/results/lines_62/exact_case.py docs/results/lines_62/callgrind_ab.sh arch:algo:pass:b:h:n:d TAG`.
CASE=$1; TAG=$2; OUT=${OUT:-/tmp/cg}; mkdir -p "$OUT"
SCRIPT=${SCRIPT:-docs/results/alike_heads_61/callgrind_case.py}
for r in 0 2; do
  for tree in base new; do
    (cd /tmp/wt_$tree && PYTHONHASHSEED=0 PYTHONPATH=/tmp/wt_$tree valgrind --tool=callgrind \
      --callgrind-out-file=$OUT/${TAG}_${tree}_$r.out .venv/bin/python /work/main/$SCRIPT $CASE $r \
      > $OUT/${TAG}_${tree}_$r.log 2>&1) &
  done
  wait
done
count() { grep Collected "$OUT/${TAG}_$1_$2.log" | awk '{print $4}' | tr -d ,; }
python3 -c "b=($(count base 2)-$(count base 0))/2/1e6; n=($(count new 2)-$(count new 0))/2/1e6; print(f'$CASE: base {b:.1f}M new {n:.1f}M ({n/b-1:+.1%})')"

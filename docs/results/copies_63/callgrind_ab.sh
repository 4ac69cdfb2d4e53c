#!/bin/bash
# Instructions of one fast-mode prediction (or, with SCRIPT, of one exact-mode one), the base and the change side by
# side under callgrind, PYTHONHASHSEED=0: each checkout first runs the case once as is (so that its .pyc caches are
# written before the counted runs: a compile landing in only one of the two runs skews the difference), then under
# callgrind with 0 and with 2 predictions after its warm-up; half the difference is one prediction. One BLAS thread
# (OPENBLAS_NUM_THREADS=1): callgrind counts the instructions of idle BLAS threads spinning, which grow when another
# process keeps the machine busy.
# Base: the worktree at BASE (default /tmp/wt_base, of 003cb14), the change: the checkout at CHANGE (default
# /work/main); each with its own native build (`PYTHONPATH=DIR python build_native.py`) and the main checkout's .venv
# linked in. One change's own figures: BASE and CHANGE worktrees of the commits before and after it (`steps.txt`).
# `docs/results/copies_63/callgrind_ab.sh CASE >> docs/results/copies_63/callgrind_ab.txt` (CASE arch:algo:pass:seqlen,
# the speed benchmark's problem: 16k tokens, 16 heads, d = 128); exact mode:
# `SCRIPT=docs/results/lines_62/exact_case.py docs/results/copies_63/callgrind_ab.sh arch:algo:pass:b:h:n:d`.
CASE=$1; OUT=${OUT:-/tmp/cg}; BASE=${BASE:-/tmp/wt_base}; CHANGE=${CHANGE:-/work/main}; mkdir -p "$OUT"
SCRIPT=${SCRIPT:-docs/results/alike_heads_61/callgrind_case.py}
TAG=${CASE//:/_}
for tree in "$BASE" "$CHANGE"; do
  (cd "$tree" && PYTHONPATH="$tree" .venv/bin/python /work/main/$SCRIPT "$CASE" 0 > /dev/null 2>&1)
done
for r in 0 2; do
  for tree in base change; do
    dir=$([ $tree = base ] && echo "$BASE" || echo "$CHANGE")
    (cd "$dir" && OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 PYTHONPATH="$dir" valgrind --tool=callgrind \
      --callgrind-out-file=$OUT/ab_${TAG}_${tree}_$r.out .venv/bin/python /work/main/$SCRIPT "$CASE" $r \
      > $OUT/ab_${TAG}_${tree}_$r.log 2>&1) &
  done
  wait
done
count() { grep Collected "$OUT/ab_${TAG}_$1_$2.log" | awk '{print $4}' | tr -d ,; }
python3 -c "b=($(count base 2)-$(count base 0))/2/1e6; n=($(count change 2)-$(count change 0))/2/1e6; print(f'$CASE: base {b:.1f}M change {n:.1f}M ({n/b-1:+.1%})')"

# The measurements behind the forty-sixth session's note, "looked at and left" (run from the repository root on
# the development VM, compiled modules built; perf from linux-tools). Writes the .txt files here.
set -e
D=docs/results/prefix_46/looked_at
PY=.venv/bin/python
git rev-parse --short HEAD > $D/commit.txt
for arch in h100 h200; do echo "$arch v1 fwd_bwd exact: $($PY $D/measure.py exact $arch v1 fwd_bwd)"; done > $D/exact_v1.txt
perf record -q -o /tmp/la1.data --call-graph dwarf,8192 -F 300 $PY $D/measure.py exact h100 v1 fwd > /dev/null 2>&1
perf report -i /tmp/la1.data --children --sort symbol -g none 2>/dev/null | grep -E "CPyDef_(engine|sm)_" | head -12 \
  > $D/exact_v1_fwd_h100_children.txt
perf record -q -o /tmp/la2.data -F 500 -g $PY $D/measure.py exact h200 v1 fwd_bwd > /dev/null 2>&1
perf report -i /tmp/la2.data --no-children --sort symbol -g none 2>/dev/null | grep "%" | head -15 \
  > $D/exact_v1_fwd_bwd_h200_self.txt
perf record -q -o /tmp/la3.data --call-graph dwarf,16384 -F 400 $PY $D/measure.py loop h100 v3 bwd 16384 15 \
  > /dev/null 2>&1
perf report -i /tmp/la3.data --children --sort symbol -g none 2>/dev/null \
  | grep -E "CPyDef_fast_(costs___class_costs|bytes___replayed_bytes) " > $D/v3_bwd_children.txt
SIMGPU_NATIVE=0 $PY $D/measure.py runs h100 v3 bwd 16384 > $D/v3_bwd_engine_runs.txt
for round in 1 2; do
  echo "default: $($PY $D/measure.py fast b200 standard fwd 16384)"
  echo "OPENBLAS_NUM_THREADS=1: $(OPENBLAS_NUM_THREADS=1 $PY $D/measure.py fast b200 standard fwd 16384)"
done > $D/blas_threads.txt
perf record -q -o /tmp/la4.data -F 2000 -g $PY $D/measure.py loop b200 standard fwd 16384 15 > /dev/null 2>&1
perf report -i /tmp/la4.data --no-children --sort symbol -g none 2>/dev/null | grep "%" | head -5 >> $D/blas_threads.txt

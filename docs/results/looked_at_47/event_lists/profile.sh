# Where exact mode's time goes to float-keyed dict work: perf samples of an exact v1 forward+backward (H200 file,
# 1 x 16 heads, N = 4096, d = 64) whose top frame is a dict lookup or a float hash, by the first compiled frame
# below it. Run from the repository root with the compiled modules built (perf from linux-tools):
#   bash docs/results/looked_at_47/event_lists/profile.sh > docs/results/looked_at_47/event_lists/hash_profile.txt
set -e
.venv/bin/python -c "
from simgpu import Problem, load_arch, simulate
simulate(load_arch('h200'), 'v1', Problem(1, 16, 4096, 64, pass_='fwd_bwd'), mode='exact')
" > /dev/null &
perf record -q -o /tmp/hash_profile.data --call-graph dwarf,16384 -F 300 -p $! > /dev/null 2>&1 || true
wait
perf script -i /tmp/hash_profile.data 2>/dev/null | python3 docs/results/looked_at_47/event_lists/callers.py

import csv, sys
def stats(f):
    rows = list(csv.DictReader(open(f)))
    r = [abs(float(x['fast_over_exact']) - 1) for x in rows]
    return rows, f"{len(r)} cases: within 1% {sum(v <= .01 for v in r)}, 2.5% {sum(v <= .025 for v in r)}, 5% {sum(v <= .05 for v in r)}, mean {sum(r)/len(r)*100:.2f}%, max {max(r)*100:.1f}%, bytes equal {sum(x['bytes_equal']=='True' for x in rows)}"
a, sa = stats(sys.argv[1]); b, sb = stats(sys.argv[2])
print("before:", sa); print("after: ", sb)
for x, y in zip(a, b):
    if x['fast_over_exact'] != y['fast_over_exact']:
        print(f"  {x['arch']} {x['algo']} {x['pass']} causal={x['causal']} {x['batch']}x{x['heads']}x{x['seqlen_q']} d={x['headdim']}: {float(x['fast_over_exact']):.4f} -> {float(y['fast_over_exact']):.4f}")

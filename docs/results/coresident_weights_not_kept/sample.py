import numpy as np, sys, random
import simgpu.fast as F
orig=F._co_resident_weights
MODE={'m':'w'}
def spy(v,n):
    w=orig(v,n)
    return np.ones_like(w) if MODE['m']=='ones' else w
F._co_resident_weights=spy
from simgpu import Problem, load_arch, simulate
from simgpu.errors import SimgpuError
rng=random.Random(int(sys.argv[1]))
rows=[]
while len(rows)<int(sys.argv[2]):
    arch=rng.choice(["a100","h100"]); sms=rng.choice([8,16,32]); n=2048; nk=rng.randint(200,n-200)
    d=128; p=Problem(rng.randint(2,4),rng.randint(2,4),n,d,seqlen_k=nk,causal=True,pass_="fwd")
    o={"block_n":rng.choice([32,64])}
    a=load_arch(arch,{"sms":sms})
    try: e=simulate(a,"v2",p,o,mode="exact").cycles
    except SimgpuError: continue
    MODE['m']='ones'; f1=simulate(a,"v2",p,o).cycles
    MODE['m']='w'; f2=simulate(a,"v2",p,o).cycles
    rows.append((f1/e-1,f2/e-1))
    print(arch,sms,p.batch,p.heads,n,nk,o, f"ones {f1/e-1:+.3f} w {f2/e-1:+.3f}", flush=True)
r=np.array(rows); print(len(r), "mean|err| ones", np.abs(r[:,0]).mean(), "w", np.abs(r[:,1]).mean(), "within1%", (np.abs(r)<0.01).sum(0), "max", np.abs(r).max(0))

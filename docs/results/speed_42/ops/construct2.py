import time
from simgpu.ops import Piece, HashedKeys, Chain, Repeat, Mma, Store, Wait
wholes = HashedKeys([(0, 1, i) for i in range(64)])
body = lambda i: ()
res = []
for label, make in [
    ("Piece", lambda i: Piece((0, i), wholes)),
    ("Chain kw", lambda i: Chain(fma=2.0, shuffle=2.0)),
    ("Repeat", lambda i: Repeat(4, body)),
    ("Mma", lambda i: Mma(64, 128, 16, "bf16", arrive="m")),
    ("Store kw", lambda i: Store("O", (0, i), 128, engine="tma", arrive="o")),
    ("Wait", lambda i: Wait("x")),
]:
    best = []
    for _ in range(3):
        t = time.process_time()
        for i in range(100_000):
            make(i)
        best.append(time.process_time() - t)
    res.append(f"{label} {min(best):.4f}")
print(" | ".join(res))

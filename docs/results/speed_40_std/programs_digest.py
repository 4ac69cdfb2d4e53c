"""A digest of every tile program of standard attention's kernels (every op of every tile, loop bodies expanded,
each op's repr and the identity classes of the pieces' wholes), over the shapes of `docs/results/speed_39/
dump_standard.py` at one or two heads: run in two checkouts, equal digests say their schedules build equal ops.
`python docs/results/speed_40_std/programs_digest.py` prints one line per case and the digest of all."""

import hashlib
from dataclasses import replace

from algorithms.standard.schedule import schedule
from simgpu import Problem, load_arch
from simgpu.ops import Piece, Repeat

CASES = [
    ("h100", Problem(1, 2, 4096, 128), {}),
    ("h100", Problem(2, 1, 4096, 128, causal=True), {}),
    ("h200", Problem(1, 2, 2048, 128), {"framework": "pytorch"}),
    ("h200", Problem(2, 1, 1024, 64, causal=True), {"framework": "pytorch"}),
    ("a100", Problem(2, 2, 1024, 64), {"framework": "pytorch", "dropout": 0.1}),
    ("h100", Problem(1, 2, 3000, 128), {}),
    ("b200", Problem(1, 1, 5000, 64, seqlen_k=7777), {}),
    ("a100", Problem(2, 1, 999, 96, causal=True), {"framework": "pytorch"}),
    ("h100", Problem(1, 2, 2000, 64, seqlen_k=1500), {}),
    ("a100", Problem(1, 2, 700, 64, causal=True), {"block_m": 64, "block_n": 64}),
    (
        "h100",
        Problem(2, 1, 1000, 64, causal=True),
        {"block_m": 64, "block_n": 64, "softmax_warps": 3, "softmax_passes": 2},
    ),
]


def ops_of(program, out, wholes):
    for op in program:
        if type(op) is Repeat:
            out.append(f"Repeat({op.count})")
            for t in range(op.count):
                ops_of(op.body(t), out, wholes)
            continue
        out.append(repr(op))
        tile = getattr(op, "tile", None)
        if type(tile) is Piece:
            # The wholes kept alive with their number, so that no later tuple takes their id.
            out.append(str(wholes.setdefault(id(tile.wholes), (len(wholes), tile.wholes))[0]))


total = hashlib.sha256()
for arch, problem, options in CASES:
    digest = hashlib.sha256()
    for pass_ in ("fwd", "bwd"):
        for kernel in schedule(load_arch(arch), replace(problem, pass_=pass_), **options):
            wholes: dict[int, tuple[int, object]] = {}
            for tile in kernel.tiles:
                out: list[str] = []
                for role in kernel.roles:
                    ops_of(role.program(tile), out, wholes)
                digest.update("\n".join(out).encode())
    total.update(digest.digest())
    print(arch, problem.describe(), options, digest.hexdigest()[:16])
print("all", total.hexdigest())

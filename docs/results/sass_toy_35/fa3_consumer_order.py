"""Where ptxas puts the waits of our FA3 kernel's consumer loop (`cupy_kernels/v3/fwd.cu`, `fa3_fwd<D, 2, false,
PINGPONG, true>`: the intra-warpgroup overlap on).

The source's order per key tile j: issue S_j, rescale O, issue P_{j-1} V_{j-1}, wait for S_j (wait_group 1), the
softmax of S_j, wait for P_{j-1} V_{j-1} (wait_group 0), pack P. Prints, per variant, the consumer loop's events in
SASS order (a run of HGMMAs, a commit, a named barrier, WARPGROUP.DEPBAR.LE and its count, the first FMNMX and
MUFU of a run), and how many of the softmax's FMNMX and MUFU come before the wait for
P_{j-1} V_{j-1}. The masking block (taken only on the tiles at the sequence end) is skipped by a branch; it sits
between the first wait and the softmax. Needs nvcc and cuobjdump (see sass_loops.py). Run from the repository root:
`python docs/results/sass_toy_35/fa3_consumer_order.py [--cuobjdump PATH] > .../fa3_consumer_order.txt`.
"""

from __future__ import annotations

from sass_loops import ROOT, consumer_loop, cuobjdump, disassemble, instructions, mix, opcode

FWD = ROOT / "cupy_kernels/v3/fwd.cu"
VARIANTS = [(d, pingpong) for d in (64, 128) for pingpong in ("false", "true")]


def main() -> None:
    tool = cuobjdump(__doc__)
    extra = "\n".join(
        f"template __global__ void fa3_fwd<{d}, 2, false, {pingpong}, true>(const unsigned char*, u16*, float*, int,"
        " float);"
        for d, pingpong in VARIANTS
    )
    sass = disassemble(FWD, {}, extra, tool)
    for d, pingpong in VARIANTS:
        function = f"_Z7fa3_fwdILi{d}ELi2ELb0ELb{int(pingpong == 'true')}ELb1EEvPKhPtPfif"
        listing = instructions(sass, function)
        body = consumer_loop(listing)
        events: list[str] = []
        for address, text, _ in body:
            op, bare = opcode(text), text.split("@")[-1]
            name = {"HGMMA": "HGMMA" + (" commit" if "gsb0" in text else ""), "BAR": bare.split(",")[0]}.get(op, op)
            if op == "WARPGROUP" and "DEPBAR" in text:
                name = "wait_group " + text.split()[-1]
            elif op not in ("HGMMA", "BAR", "FMNMX", "MUFU"):
                continue
            if not events or events[-1].split(": ")[1] != name or "commit" in name:
                events.append(f"{address:05x}: {name}")
        waits = [n for n, (_, text, _) in enumerate(body) if "DEPBAR" in text]
        before = body[waits[0] : waits[-1]]
        print(f"fa3_fwd<{d}, 2, false, pingpong={pingpong}, overlap=true>: consumer loop of {len(body)} instructions")
        print("  " + " | ".join(events))
        print(
            f"  between the two waits: {mix(before)['FMNMX']} of {mix(body)['FMNMX']} FMNMX, "
            f"{mix(before)['MUFU']} of {mix(body)['MUFU']} MUFU"
        )


if __name__ == "__main__":
    main()

"""The command line the A/B benchmarks share: two checkouts to alternate, or a CSV to summarize."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def parse(
    doc: str | None,
    rounds: int,
    argv: list[str] | None,
    summary: Callable[[Path], str],
    repeats: int | None = None,
    grids: tuple[str, ...] = (),
) -> tuple[argparse.Namespace, list[list[str]]] | None:
    """`--a LABEL=DIR --b LABEL=DIR --out CSV [--rounds N]` (and `--repeats N` where `repeats` has a default,
    `--grid G` where `grids` names them, the first the default): the parsed arguments and the two (label, folder)
    pairs. With `--summary CSV` it prints that file's summary and gives None."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--a", help="LABEL=DIR of the first version")
    parser.add_argument("--b", help="LABEL=DIR of the second version")
    parser.add_argument("--rounds", type=int, default=rounds)
    if repeats is not None:
        parser.add_argument("--repeats", type=int, default=repeats)
    if grids:
        parser.add_argument("--grid", choices=grids, default=grids[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--summary", type=Path, help="only summarize this CSV")
    args = parser.parse_args(argv)
    if args.summary is not None:
        print(summary(args.summary), end="")
        return None
    if args.a is None or args.b is None or args.out is None:
        parser.error("--a, --b and --out are needed (or --summary)")
    return args, [args.a.split("=", 1), args.b.split("=", 1)]

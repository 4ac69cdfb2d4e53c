"""`simgpu sweep SPEC.yaml`: run a grid of configurations (see docs/sweeps.md) with a progress bar on stderr.

Registered on the `simgpu` group by `simgpu.cli`. Spec, output and executor errors are SimgpuErrors: `simgpu.cli.main`
prints them as one line and exits 2, before any point runs. Corrupt cache entries are one warning line. Ctrl-C stops
the sweep with status 130, keeping every finished point in the cache for the next run.
"""

from __future__ import annotations

import sys

import click
from tqdm import tqdm

from simgpu.sweep import execute, load_points, parse_executor, plan_sweep, prepare_output, write_table

INTERRUPTED = 130  # the shell's status for a process stopped by SIGINT


@click.command("sweep")
@click.argument("spec_path", metavar="SPEC.yaml")
@click.option(
    "-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes (or Dask workers)."
)
@click.option(
    "--out",
    "out_path",
    default="out/sweep.csv",
    show_default=True,
    help="CSV to write; the JSON lines go next to it (.jsonl), the cache into OUT.cache/.",
)
@click.option(
    "--executor",
    default="local",
    show_default=True,
    help="local (a process pool of -j workers), dask (a Dask LocalCluster of -j workers) or dask://ADDRESS "
    "(a running Dask scheduler; needs `pip install simgpu[dask]`).",
)
def sweep_command(spec_path: str, jobs: int, out_path: str, executor: str) -> None:
    """Simulate every point of a YAML grid; write one CSV row (and one JSON line) per point."""
    parse_executor(executor)
    points = load_points(spec_path)
    paths = prepare_output(out_path)
    plan = plan_sweep(points, paths.cache_dir)
    if plan.corrupt:
        first = plan.corrupt[0]
        click.echo(
            f"simgpu: warning: {len(plan.corrupt)} corrupt cache entries ignored and recomputed "
            f"(first: {first.path}: {first.reason})",
            err=True,
        )
    with tqdm(total=len(points), initial=len(plan.cached), desc="sweep", unit="point") as bar:
        try:
            table = execute(plan, executor, jobs, progress=lambda _: bar.update())
        except KeyboardInterrupt:
            bar.close()
            # Counted in the cache, not by the bar: the interrupt can land between a point's entry being written
            # and the bar's update.
            cached = len(plan_sweep(points, paths.cache_dir).cached)
            click.echo(
                f"simgpu: interrupted: {cached} of {len(points)} points are cached in {paths.cache_dir}; "
                "run the same command again to resume",
                err=True,
            )
            sys.exit(INTERRUPTED)
    write_table(table, paths)
    failed = sum(1 for row in table.rows if row["error"] is not None)
    computed = len(points) - len(plan.cached)
    click.echo(
        f"wrote {paths.csv} and {paths.jsonl}: {len(points)} points "
        f"({computed} computed, {len(plan.cached)} from cache, {failed} failed)"
    )

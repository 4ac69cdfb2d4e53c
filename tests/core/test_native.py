"""The engine compiled with mypyc (`simgpu.native`): a stale build never runs, and a fresh one predicts exactly
what the sources predict."""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import build_native
from simgpu import native

# Each case in exact mode (trace of SM 0 included) and in fast mode, on 8 SMs: every unit of the group runs.
SAME_PREDICTIONS = """
import json
from simgpu import GemmProblem, Problem, Trace, load_arch, native, simulate
cases = [
    ("h100", "v3", Problem(batch=2, heads=2, seqlen_q=1000, headdim=64, causal=True)),
    ("b200", "v4", Problem(batch=2, heads=2, seqlen_q=1024, headdim=128, pass_="bwd")),
    ("a100", "v1", Problem(batch=1, heads=2, seqlen_q=512, headdim=64, pass_="fwd_bwd")),
    ("h200", "standard", Problem(batch=1, heads=2, seqlen_q=512, headdim=128)),
    ("h100", "gemm", GemmProblem(m=1000, n=1024, k=512)),
]
out = {"compiled": native.compiled(), "results": []}
for arch, algo, problem in cases:
    chip = load_arch(arch, {"sms": 8})
    exact = simulate(chip, algo, problem, mode="exact", trace=Trace())
    fast = simulate(chip, algo, problem, mode="fast")
    spans = [[span.process, span.track, span.name, span.start_cycles, span.end_cycles] for span in exact.spans]
    out["results"].append([exact.to_dict(), spans, fast.to_dict()])
for result in out["results"]:
    for predicted in (result[0], result[2]):
        del predicted["sim_wall_s"]  # the one number that differs: the speed
print(json.dumps(out))
"""


def _run(code: str, native_on: bool) -> str:
    environment = dict(os.environ)
    environment.pop(native.ENVIRONMENT, None)
    if not native_on:
        environment[native.ENVIRONMENT] = "0"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, cwd=native.ROOT, check=True
    )
    return done.stdout


def test_the_digest_covers_every_source_of_the_package_not_only_the_compiled_ones(tmp_path: Path) -> None:
    shutil.copytree(native.ROOT / "simgpu", tmp_path / "simgpu", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    assert native.digest(tmp_path) == native.digest()
    kernel = tmp_path / "simgpu" / "kernel.py"  # not compiled, but the compiled modules take its types
    kernel.write_text(kernel.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert native.digest(tmp_path) != native.digest()


def test_switched_off_the_engine_runs_from_its_sources() -> None:
    code = "import simgpu.engine, simgpu.native as n; print(n.compiled(), simgpu.engine.__file__)"
    compiled, path = _run(code, native_on=False).split()
    assert compiled == "False"
    assert path.endswith("engine.py")


def test_a_build_from_other_sources_is_not_run(tmp_path: Path) -> None:
    # native.py loaded on its own, its digest file pointed at one that records other sources, activated before
    # the package is imported: the engine must come from its source, whatever is compiled beside it.
    recorded = tmp_path / "native.digest"
    recorded.write_text("0" * 64 + "\n", encoding="utf-8")
    code = f"""
import importlib.util
spec = importlib.util.spec_from_file_location("stale_check", {str(native.ROOT / "simgpu" / "native.py")!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
module.DIGEST_FILE = __import__("pathlib").Path({str(recorded)!r})
module.activate()
import simgpu.engine, simgpu.sm, simgpu.units.server
print(simgpu.engine.__file__, simgpu.sm.__file__, simgpu.units.server.__file__)
"""
    assert all(path.endswith(".py") for path in _run(code, native_on=True).split())


def test_switched_off_a_compiled_file_left_from_an_earlier_group_is_not_imported(tmp_path: Path) -> None:
    # A copy of the package with an extension file beside a module that is not in the group (as a build of an
    # earlier MODULES leaves one): Python would import it in preference to the source, and fail.
    shutil.copytree(native.ROOT / "simgpu", tmp_path / "simgpu", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    assert "simgpu.fast" not in native.MODULES
    (tmp_path / "simgpu" / f"fast{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"not a library")
    environment = {**os.environ, native.ENVIRONMENT: "0", "PYTHONPATH": str(tmp_path)}
    code = "import simgpu.fast; print(simgpu.fast.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, cwd=tmp_path, check=True
    )
    assert done.stdout.strip() == str(tmp_path / "simgpu" / "fast.py")


def test_a_rebuild_removes_every_compiled_file_of_the_package_not_only_the_groups(tmp_path: Path) -> None:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    made = [
        tmp_path / "simgpu" / f"engine{suffix}",  # in the group
        tmp_path / "simgpu" / f"fast{suffix}",  # from an earlier group
        tmp_path / "simgpu" / "units" / f"hbm{suffix}",
        tmp_path / f"{native.GROUP}__mypyc{suffix}",
    ]
    for path in made:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    (tmp_path / "simgpu" / "fast.py").write_text("", encoding="utf-8")  # sources are not build outputs
    assert sorted(build_native.built_files(native, tmp_path)) == sorted(made)


@pytest.mark.skipif(not native.fresh(), reason="no fresh mypyc build (make setup compiles one)")
def test_compiled_and_source_engines_give_the_same_predictions_traces_included() -> None:
    compiled = json.loads(_run(SAME_PREDICTIONS, native_on=True))
    source = json.loads(_run(SAME_PREDICTIONS, native_on=False))
    assert compiled["compiled"] is True
    assert source["compiled"] is False
    assert json.dumps(compiled["results"]) == json.dumps(source["results"])  # types too: 0.0 is not 0

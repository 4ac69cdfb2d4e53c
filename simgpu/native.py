"""The engine's modules compiled with mypyc: which ones, and whether their compiled form may run.

`make setup` compiles `MODULES` with mypyc, next to their sources (`build_native.py`): the event loop, the SM and
its units, where exact mode and fast mode's representative runs spend their time, fast mode's loop folding, L2
replay, class costs and list schedule, and the ops they all read (native attributes; a native `__init__` for the
ops fast mode's folds build by the thousand). It records a digest of the package's sources in `native.digest`.
Python imports a compiled module in preference to its source, so a build older than its sources would run old code:
`activate`, which `simgpu/__init__` calls before it imports anything else, makes every module of the group load from
its source unless the recorded digest is the sources' own (the group shares one native library: all of them or
none). `SIMGPU_NATIVE=0` in the environment loads the sources in any case.

mypyc runs the same Python semantics (the same float operations in the same order), so a prediction is the same
either way; `tests/core/test_native.py` compares them. Only the speed differs. What mypyc does not allow is
replacing a compiled function or class at run time (a test's monkeypatch). This module imports nothing from
`simgpu`: `build_native.py` loads it on its own, before any compiled module exists.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

MODULES = (
    "simgpu.engine",
    "simgpu.event_queue",
    "simgpu.sm",
    "simgpu.units.contention",
    "simgpu.units.fluid_l2",
    "simgpu.units.fma",
    "simgpu.units.hbm",
    "simgpu.units.issue",
    "simgpu.units.l2",
    "simgpu.units.mufu",
    "simgpu.units.server",
    "simgpu.units.smem",
    "simgpu.units.tensor_core",
    "simgpu.units.tma",
    "simgpu.units.tmem",
    "simgpu.lru_lines",
    "simgpu.replay",
    "simgpu.fast_bytes",
    "simgpu.tile_copies",
    "simgpu.fast_schedule",
    "simgpu.fast_costs",
    "simgpu.fold",
    "simgpu.ops",
)
PACKAGE = "simgpu"  # what the group's modules and every source the digest covers belong to
GROUP = "simgpu_native"  # the name of the group's shared library, `simgpu_native__mypyc`, beside the package
ROOT = Path(__file__).resolve().parent.parent  # the folder that holds the `simgpu` package
DIGEST_FILE = Path(__file__).resolve().with_name("native.digest")
ENVIRONMENT = "SIMGPU_NATIVE"  # "0": load the sources even where a fresh build exists


def source(name: str, root: Path = ROOT) -> Path:
    """The source file of module `name` under `root`."""
    return root.joinpath(*name.split(".")).with_suffix(".py")


def digest(root: Path = ROOT) -> str:
    """SHA-256 over the paths and contents of every source file of the package under `root`: what a build was
    compiled from. Every file, not only `MODULES`: mypyc compiles in the types and final constants the group
    imports from the package's other modules."""
    hasher = hashlib.sha256()
    package = root / PACKAGE
    for path in sorted(package.rglob("*.py")):
        hasher.update(path.relative_to(root).as_posix().encode())
        hasher.update(b"\0")
        hasher.update(path.read_bytes())
        hasher.update(b"\0")
    return hasher.hexdigest()


def fresh() -> bool:
    """Whether a build exists and was compiled from the sources as they are now."""
    try:
        recorded = DIGEST_FILE.read_text(encoding="utf-8").strip()
    except OSError:
        return False
    return recorded == digest()


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the package's modules as their `.py` sources, ahead of any compiled file beside them: the group's, and
    any other that a build of an earlier `MODULES` compiled (Python prefers an extension beside a source, and one left
    from another group fails to import: it names a library that no longer holds it). Packages (`__init__`) are left
    to the default finders."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(PACKAGE + "."):
            return None
        found = source(fullname)
        if fullname not in MODULES and not found.is_file():
            return None
        return importlib.util.spec_from_file_location(fullname, found)


def activate() -> None:
    """Let the compiled modules run only where they are fresh and not switched off; else load the sources."""
    if os.environ.get(ENVIRONMENT) != "0" and fresh():
        return
    if not any(isinstance(finder, _SourceFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())


def compiled() -> bool:
    """Whether the engine running in this process is the compiled one."""
    engine = importlib.import_module(MODULES[0])
    return any(str(engine.__file__).endswith(suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES)

"""Compile the engine's modules (`simgpu.native.MODULES`) with mypyc, in place; `make setup` runs it.

Does nothing when the build is fresh (its recorded digest is the sources'). Otherwise it removes the old build
first (a new file, not one rewritten under a process that has it mapped), compiles the group into
`build/native/`, puts each module beside its source and the group's library beside the package, then records the
sources' digest. Where compiling fails (no C compiler, no Python headers) it says so on one line and leaves
simgpu to run as Python: same results, exact mode about 2.4 times slower (`docs/results/exact_native_ab.txt`).

`python build_native.py [--force]`
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent
BUILD = ROOT / "build" / "native"


def load_native() -> ModuleType:
    """`simgpu/native.py` on its own: importing the package would load the modules this replaces."""
    spec = importlib.util.spec_from_file_location("_simgpu_native", ROOT / "simgpu" / "native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def built_files(native: ModuleType, root: Path = ROOT) -> list[Path]:
    """The compiled files now on disk under `root`: every extension module in the package (the group's, and any that
    a build of an earlier `MODULES` left, which a rebuild must remove too) and the group's shared library."""
    files: list[Path] = []
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        files += sorted((root / native.PACKAGE).rglob(f"*{suffix}"))
        files.append(root / f"{native.GROUP}__mypyc{suffix}")
    return [path for path in dict.fromkeys(files) if path.exists()]


def compile_group(native: ModuleType) -> None:
    from mypyc.build import mypycify
    from setuptools import setup

    paths = [str(native.source(name).relative_to(ROOT)) for name in native.MODULES]
    extensions = mypycify(paths, opt_level="3", group_name=native.GROUP, target_dir=str(BUILD / "c"))
    setup(
        name=native.GROUP,
        packages=[],
        py_modules=[],
        ext_modules=extensions,
        script_args=["-q", "build_ext", "--inplace", "--build-temp", str(BUILD / "temp")],
    )


def main(argv: list[str]) -> int:
    native = load_native()
    if "--force" not in argv and native.fresh() and len(built_files(native)) == len(native.MODULES) + 1:
        print(f"simgpu native: up to date ({len(native.MODULES)} modules compiled)")
        return 0
    native.DIGEST_FILE.unlink(missing_ok=True)
    for path in built_files(native):
        path.unlink()
    try:
        compile_group(native)
    except (Exception, SystemExit) as error:  # setuptools exits on a compiler error
        print(f"simgpu native: mypyc build failed ({error}); simgpu runs as Python", file=sys.stderr)
        return 0
    native.DIGEST_FILE.write_text(native.digest() + "\n", encoding="utf-8")
    print(f"simgpu native: compiled {len(native.MODULES)} modules with mypyc")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

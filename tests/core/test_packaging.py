"""A wheel built from the repository carries the arch files and finds them once installed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_carries_arch_files_and_algorithms(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("simgpu-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"simgpu/archs/{arch}.yaml" for arch in ("a100", "h100", "h200", "b200")} <= names
    assert "algorithms/gemm.py" in names
    # Installed, the loader looks next to the package first: unpack and load from there.
    zipfile.ZipFile(wheel).extractall(tmp_path / "site")
    probe = "from simgpu.arch import arch_dirs, load_arch; print(arch_dirs()[0]); print(load_arch('h200').sms)"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path / "site")},
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert out == [str(tmp_path / "site" / "simgpu" / "archs"), "132"]

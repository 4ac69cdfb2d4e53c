"""Shared by the SASS side checks (`v3_rescale_sass.py`, `v2_pv_interleave_sass.py`): compile a CUDA source's template
instantiations for sm_90a with nvcc and return cuobjdump's SASS (`CUOBJDUMP`, default `cuobjdump` on PATH) and the
compiler's build line."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][\w.]*)")


def sass(source: Path, instantiations: Sequence[str], flags: Sequence[str] = ()) -> tuple[str, str]:
    """(nvcc's build line, the SASS of `source` compiled with `instantiations`, one explicit instantiation each)."""
    with tempfile.TemporaryDirectory() as tmp:
        wrapper = Path(tmp) / "w.cu"
        wrapper.write_text(f'#include "{source}"\n' + "".join(f"{line}\n" for line in instantiations))
        cubin = Path(tmp) / "w.cubin"
        command = ["nvcc", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", *flags]
        subprocess.run([*command, "-o", str(cubin), str(wrapper)], check=True)
        dump = subprocess.run([os.environ.get("CUOBJDUMP", "cuobjdump"), "-sass", str(cubin)], check=True,
                              capture_output=True, text=True).stdout  # fmt: skip
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    return version, dump


def functions(dump: str) -> list[tuple[str, list[str]]]:
    """Per function of a SASS dump, its name and its instructions' opcodes in order."""
    return [
        (function.splitlines()[0], INSTRUCTION.findall(function))
        for function in re.split(r"\n\s+Function : ", dump)[1:]
    ]

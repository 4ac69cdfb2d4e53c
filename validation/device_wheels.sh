#!/usr/bin/env bash
# Builds out/devwheels/: simgpu's own wheel and its dependencies' wheels for the device machine's Python 3.12 (numpy
# left out: CuPy brings it there), so that `simgpu validate` can run on the device machine's 16 CPUs, which have no
# internet. Run here, from the repository root, after `make setup`; then pass `carry: ["out/devwheels"]` to the
# device run, which starts with validation/device_validate.sh.
set -eu
dest=out/devwheels
rm -rf "$dest" && mkdir -p "$dest"
.venv/bin/pip download -q --dest "$dest" --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
  pydantic pyyaml click tqdm ml_dtypes matplotlib
rm -f "$dest"/numpy-*.whl
.venv/bin/pip wheel -q --no-deps --no-build-isolation -w "$dest" .
du -sh "$dest"

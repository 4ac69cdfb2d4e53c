"""Tile keys that hash once: `HashedKeys`, a tuple subclass, which mypyc cannot compile as a native class (and
`mypy_extensions.mypyc_attr`, which would mark it non-native in `simgpu.ops`, is a build dependency only). So it
lives here, in a module that stays Python; `simgpu.ops` imports it for the ops' users."""

from __future__ import annotations

from collections.abc import Hashable, Iterable


class HashedKeys(tuple[Hashable, ...]):
    """Tile keys that hash once, to their tuple's hash: the wholes of `Piece`s, which many pieces share (a row block's
    hundreds of score tiles, in every row group of standard attention's softmax) and each piece hashes when made."""

    _hash: int

    def __new__(cls, keys: Iterable[Hashable]) -> HashedKeys:
        made = super().__new__(cls, keys)
        made._hash = tuple.__hash__(made)
        return made

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type[HashedKeys], tuple[tuple[Hashable, ...]]]:
        return HashedKeys, (tuple(self),)  # hashed again where unpickled: string hashes differ between processes

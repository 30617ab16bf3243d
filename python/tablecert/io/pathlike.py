"""Paths as Python users pass them: a ``str`` or ``os.PathLike`` (``pathlib.Path``), one or many.

A single string is one path, never a sequence of one-character paths.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypeAlias

from tablecert.errors import TableCertError
from tablecert.io.inputs import file_sha256

PathArg: TypeAlias = str | os.PathLike[str]
PathsArg: TypeAlias = PathArg | Iterable[PathArg]


def as_path(value: object, what: str = "path") -> Path:
    """One path from a ``str`` or ``os.PathLike``; anything else is an error naming it."""
    if isinstance(value, str | os.PathLike):
        path = os.fspath(value)
        if isinstance(path, str) and path:
            return Path(path)
    raise TableCertError(f"expected a {what} (str or os.PathLike), got {value!r}")


def as_paths(value: PathsArg, what: str = "path") -> tuple[Path, ...]:
    """One or many paths as a tuple (a single ``str`` or ``Path`` is one path)."""
    if isinstance(value, str | os.PathLike):
        return (as_path(value, what),)
    if isinstance(value, bytes | bytearray) or not isinstance(value, Iterable):
        raise TableCertError(f"expected a {what} or a list of them, got {value!r}")
    return tuple(as_path(v, what) for v in value)


def repeated_file(paths: Sequence[Path]) -> tuple[int, int, str] | None:
    """The first file named twice in ``paths`` (by path, by a link or another path to the same
    file, or as another file with the same bytes), as (index of its first name, index of the
    second, how); None when every file is distinct. Counting one file twice counts its
    evidence twice. Only files of equal size are hashed."""
    seen: dict[tuple[int, int], int] = {}
    by_size: dict[int, list[int]] = {}
    for i, path in enumerate(paths):
        try:
            st = path.stat()
        except OSError:
            continue  # the reader names a missing or unreadable file itself
        identity = (st.st_dev, st.st_ino)
        if identity in seen:
            first = seen[identity]
            same = os.path.abspath(paths[first]) == os.path.abspath(path)
            return first, i, "the same path" if same else "the same file under another name or link"
        seen[identity] = i
        if os.path.isfile(path):
            by_size.setdefault(st.st_size, []).append(i)
    for group in by_size.values():
        digests: dict[str, int] = {}
        for i in group if len(group) > 1 else ():
            digest = file_sha256(paths[i])
            if digest in digests:
                return digests[digest], i, f"the same bytes (SHA-256 {digest[:16]}...)"
            digests[digest] = i
    return None


def distinct_paths(paths: Sequence[Path], what: str = "file") -> tuple[Path, ...]:
    """``paths`` if no file is named twice (see :func:`repeated_file`); else an error naming
    both names."""
    repeated = repeated_file(paths)
    if repeated is not None:
        first, second, how = repeated
        raise TableCertError(
            f"{what} {paths[second]} is {paths[first]} again ({how}): name each file once"
        )
    return tuple(paths)

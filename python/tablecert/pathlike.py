"""Paths as Python users pass them: a ``str`` or ``os.PathLike`` (``pathlib.Path``), one or many.

A single string is one path, never a sequence of one-character paths.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TypeAlias

from tablecert.errors import TableCertError

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

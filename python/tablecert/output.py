"""Output files: checked before any work starts, written atomically, never left half-written.

``check_new_file`` refuses what cannot be written (an empty name, a folder or device, a missing
or non-folder parent, an existing file unless replacing it was asked for); ``atomic_file``
writes to a hidden temporary file beside the target and renames it into place only when
everything was written, so a failure (a full disk, an error half-way, Ctrl-C) leaves the
target as it was and nothing behind.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from tablecert.errors import OutputError


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def check_new_file(
    path: Path, *, replace: bool = False, create_parents: bool = False, what: str = "output"
) -> Path:
    """``path`` if it can be written as a new (or, with ``replace``, replacing) regular file."""
    if not str(path) or not path.name or path.name in (".", ".."):
        raise OutputError(f"{what} {str(path)!r}: not a file name")
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(f"{what} {path}: {exc.strerror}") from None
    if mode is not None:
        if stat.S_ISDIR(mode):
            raise OutputError(f"{what} {path}: is a folder, not a file")
        if not stat.S_ISREG(mode):
            raise OutputError(f"{what} {path}: exists and is not a regular file")
        if not replace:
            raise OutputError(f"{what} {path}: already exists (not overwritten)")
    parent = path.parent
    if create_parents:
        parent = _nearest_existing(parent)
    if not parent.exists():
        raise OutputError(f"{what} {path}: the folder {parent} does not exist")
    if not parent.is_dir():
        raise OutputError(f"{what} {path}: {parent} is not a folder")
    return path


def check_folder(path: Path, *, what: str = "output folder") -> Path:
    """``path`` if it is a folder or can be made as one (its parent exists)."""
    if not str(path):
        raise OutputError(f"{what} '': not a folder name")
    if path.exists():
        if not path.is_dir():
            raise OutputError(f"{what} {path}: exists and is not a folder")
        return path
    if not path.parent.is_dir():
        raise OutputError(f"{what} {path}: the folder {path.parent} does not exist")
    return path


@contextlib.contextmanager
def atomic_file(path: Path, *, what: str = "output") -> Iterator[BinaryIO]:
    """A binary handle whose bytes become ``path`` only if the block finishes; any error
    (an ``OSError`` becomes an ``OutputError`` naming ``path``) leaves nothing behind."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise OutputError(f"{what} {path}: cannot create: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise OutputError(f"{what} {path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str, *, what: str = "output") -> None:
    """Write UTF-8 text to ``path`` atomically."""
    with atomic_file(path, what=what) as handle:
        handle.write(text.encode("utf-8"))

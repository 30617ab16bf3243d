"""Writing result files: into a folder that exists, never over a file unless asked, and
atomically (a temporary file in the same folder, renamed into place only when complete)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from tablecert.errors import OutputError


def output_folder(
    directory: str | Path, names: Sequence[str], *, force: bool = False, create: bool = True
) -> Path:
    """Check that ``names`` can be written into ``directory``: the folder exists or its
    parent does (then it is created, unless ``create`` is false: a check before any work),
    it is a folder, and no file named there exists unless ``force``."""
    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder} exists and is not a folder")
    if not folder.exists():
        if not folder.parent.is_dir():
            raise OutputError(f"{folder}: the folder {folder.parent} does not exist")
        if not create:
            return folder
        try:
            folder.mkdir()
        except OSError as exc:
            raise OutputError(f"{folder}: cannot create the folder: {exc.strerror}") from exc
    for name in names:
        target = folder / name
        if target.is_dir() or (target.exists() and not force):
            raise OutputError(
                f"{target} exists" + ("" if target.is_dir() else " (--force to replace it)")
            )
    return folder


@contextmanager
def atomic_text(path: Path) -> Iterator[TextIO]:
    """A text file written to a temporary name beside ``path`` and renamed over it on
    success; on any error the temporary file is removed and ``path`` is left as it was."""
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            yield f
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError(f"{path}: cannot write: {exc.strerror}") from exc
        raise


def write_atomic(path: Path, data: bytes) -> Path:
    """Write a whole binary file atomically (see ``atomic_text``)."""
    with atomic_text(path) as f:
        f.flush()
        f.buffer.write(data)
    return path

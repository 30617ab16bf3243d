"""Writing result files: into a folder that exists, never over a file unless asked, and
atomically (a temporary file in the same folder, renamed into place only when complete).

``check_new_file`` and ``output_folder`` refuse, before any work starts, what cannot be
written (an empty name, a folder or device, a missing or non-folder parent, an existing file
unless replacing it was asked for); ``atomic_file`` writes to a hidden temporary file beside
the target and renames it into place only when everything was written, so a failure (a full
disk, an error half-way, Ctrl-C) leaves the target as it was and nothing behind."""

from __future__ import annotations

import io
import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO

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


@contextmanager
def atomic_file(path: Path, *, what: str = "output", mode: int | None = None) -> Iterator[BinaryIO]:
    """A binary handle whose bytes become ``path`` only if the block finishes; any error
    (an ``OSError`` becomes an ``OutputError`` naming ``path``) leaves nothing behind.
    ``mode``: the new file's permissions (default: 0o666 less the umask)."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise OutputError(f"{what} {path}: cannot create: {exc.strerror}") from None
    try:
        if mode is not None:
            os.fchmod(fd, mode)
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


@contextmanager
def atomic_text(path: Path) -> Iterator[TextIO]:
    """A UTF-8 text file written atomically (see ``atomic_file``)."""
    with atomic_file(path) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
        try:
            yield text
        finally:
            text.detach()  # flushes; atomic_file closes the file


def write_atomic(path: Path, data: bytes, *, what: str = "output") -> Path:
    """Write a whole binary file atomically (see ``atomic_file``)."""
    with atomic_file(path, what=what) as raw:
        raw.write(data)
    return path


def check_replaceable(path: Path, *, what: str = "output") -> int:
    """The permissions of ``path`` if it is a regular file that can be replaced in place: a
    symbolic link, device, FIFO or folder is refused before it is read or written (a signer
    run as root must never turn /dev/stdin into a file, nor a link into a copy)."""
    try:
        info = path.lstat()
    except OSError as exc:
        raise OutputError(f"{what} {path}: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise OutputError(f"{what} {path}: is a symbolic link; give the file it points to")
    if not stat.S_ISREG(info.st_mode):
        raise OutputError(f"{what} {path}: is not a regular file; not replacing it")
    return stat.S_IMODE(info.st_mode)


def replace_regular_file(path: Path, data: bytes, *, what: str = "output") -> Path:
    """Replace the regular file ``path`` with ``data`` atomically, keeping its permissions
    (see ``check_replaceable``)."""
    mode = check_replaceable(path, what=what)
    with atomic_file(path, what=what, mode=mode) as raw:
        raw.write(data)
    return path

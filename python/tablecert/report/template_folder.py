"""A lab's ``--template`` folder, read once into memory and digested, before anything runs.

The folder is untrusted input: every file in it (sub-folders included) must be a regular file
(a symbolic link, even one pointing inside, or a device is refused, so no file outside the
folder can be pulled into a report), the whole is bounded in size, and the report renders
from exactly the bytes read here. Its digest, recorded in the signed report, is the SHA-256
of a manifest with one line per file, ``<sha256 of the file>  <name>`` sorted by name (what
``find . -type f -printf '%P\\n' | LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum``
prints in the folder).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablecert.errors import ReportError

MAX_FILES = 200
MAX_BYTES = 8 << 20  # a letterhead, styles and a few partials; not a document store


@dataclass(frozen=True)
class TemplateFolder:
    """The files of a template folder (name relative to the folder -> text) and its digest."""

    path: Path
    files: dict[str, str]
    sha256: str

    def as_json(self) -> dict[str, Any]:
        """The ``template`` object of report.json: the folder's digest and its file names (no
        machine path)."""
        return {"sha256": self.sha256, "files": sorted(self.files)}


def _refuse(folder: Path, message: str) -> ReportError:
    return ReportError(f"--template {folder}: {message}")


def read_template_folder(folder: Path) -> TemplateFolder:
    """Every file of ``folder``, checked (regular files only, bounded, UTF-8) and digested."""
    try:
        mode = folder.stat().st_mode
    except OSError:
        mode = 0
    if not stat.S_ISDIR(mode):
        raise _refuse(folder, "not a folder")
    files: dict[str, str] = {}
    lines: list[str] = []
    total = 0
    pending = [Path()]
    while pending:
        relative = pending.pop()
        try:
            entries = sorted(os.scandir(folder / relative), key=lambda e: e.name)
        except OSError as exc:
            raise _refuse(folder, f"cannot list {relative.as_posix()}: {exc.strerror}") from None
        for entry in entries:
            name = (relative / entry.name).as_posix()
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                raise _refuse(
                    folder, f"{name!r} is a symbolic link; a template folder holds its own files"
                )
            if stat.S_ISDIR(mode):
                pending.append(relative / entry.name)
                continue
            if not stat.S_ISREG(mode):
                raise _refuse(folder, f"{name!r} is not a regular file")
            if len(files) >= MAX_FILES:
                raise _refuse(folder, f"more than {MAX_FILES} files")
            data = _read_regular(folder, Path(entry.path), name)
            total += len(data)
            if total > MAX_BYTES:
                raise _refuse(folder, f"more than {MAX_BYTES:,} bytes of files")
            try:
                files[name] = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _refuse(folder, f"{name!r} is not UTF-8 text (byte {exc.start})") from None
            lines.append(f"{hashlib.sha256(data).hexdigest()}  {name}\n")
    manifest = "".join(sorted(lines, key=lambda line: line[66:].encode("utf-8")))
    return TemplateFolder(folder, files, hashlib.sha256(manifest.encode("utf-8")).hexdigest())


def _read_regular(folder: Path, path: Path, name: str) -> bytes:
    """The bytes of ``path``, opened without following a link and checked regular once open
    (a file swapped for a link or a FIFO after the listing is refused, not followed)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise _refuse(folder, f"cannot read {name!r}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise _refuse(folder, f"{name!r} is not a regular file")
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise _refuse(folder, f"{name!r} is larger than {MAX_BYTES:,} bytes")
    return data

"""Reading small input files whole (rule files, plans, configurations, records, envelopes,
keys): only regular files, and at most ``MAX_INPUT_BYTES``. A device (``/dev/zero`` never
ends), a FIFO (it may never get a writer) or a folder is refused at once with an ``OSError``
whose ``strerror`` says why, so each caller's usual "cannot read" message names the file."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

MAX_INPUT_BYTES = 16 << 20
"""The largest input read whole (such files are kilobytes)."""


@contextmanager
def open_regular(path: Path) -> Iterator[BinaryIO]:
    """``path`` opened for reading if it is a regular file: checked before opening (opening a
    FIFO may block) and again on the open handle (the path may have been replaced meanwhile)."""

    def refuse(mode: int) -> OSError:
        if stat.S_ISDIR(mode):
            return IsADirectoryError(errno.EISDIR, "is a folder", str(path))
        return OSError(errno.EINVAL, "not a regular file (a device, FIFO or socket)", str(path))

    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):
        raise refuse(mode)
    with path.open("rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise refuse(mode)
        yield handle


def read_input(path: Path) -> bytes:
    """The bytes of a small regular file."""
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        # As many bytes as the file has (and one more, to see a file still growing), never a
        # buffer of the largest size allowed for a file of a few kilobytes.
        data = handle.read(min(size, MAX_INPUT_BYTES) + 1)
        if len(data) > size:  # it grew since: read on, up to the bound
            data += handle.read(MAX_INPUT_BYTES + 1 - len(data))
    if len(data) > MAX_INPUT_BYTES or size > MAX_INPUT_BYTES:
        raise OSError(errno.EFBIG, f"larger than {MAX_INPUT_BYTES:,} bytes", str(path))
    return data


def file_sha256(path: Path) -> str:
    """The SHA-256 of a regular file, read in blocks (a device or FIFO is refused: it may
    never end)."""
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()

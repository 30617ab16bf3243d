"""Reading small input files whole (rule files, plans, configurations, records, envelopes,
keys): only regular files, and at most ``MAX_INPUT_BYTES``. A device (``/dev/zero`` never
ends), a FIFO (it may never get a writer) or a folder is refused at once with an ``OSError``
whose ``strerror`` says why, so each caller's usual "cannot read" message names the file."""

from __future__ import annotations

import errno
import stat
from pathlib import Path

MAX_INPUT_BYTES = 16 << 20
"""The largest input read whole (such files are kilobytes)."""


def read_input(path: Path) -> bytes:
    """The bytes of a small regular file."""
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a regular file (a device, FIFO or socket)", str(path))
    with path.open("rb") as handle:
        data = handle.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise OSError(errno.EFBIG, f"larger than {MAX_INPUT_BYTES:,} bytes", str(path))
    return data

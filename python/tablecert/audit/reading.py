"""A log's bytes, as the reader sees them: regular files and pipes, plain or gzip.

gzip is recognised by its magic bytes, not the name, and decoded member by member (``cat a.gz
b.gz`` is one log); anything after the last member, even zero padding, is an error naming the
compressed byte, as is a truncated or corrupt member. A FIFO is read as a stream and opened
without waiting for a writer (with none, it reads as empty instead of hanging); directories,
devices and sockets are refused. Every failure is an ``AuditError`` naming the file.
"""

from __future__ import annotations

import os
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from tablecert.errors import AuditError

CHUNK = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"


def _kind(mode: int) -> str | None:
    """What a non-readable file is, or ``None`` for a regular file or a FIFO."""
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


class LogBytes:
    """An open log: iterate for decompressed chunks; ``consumed`` is the count of file bytes
    read so far and ``size`` the size on disk (``None`` for a pipe)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            mode = path.stat().st_mode
        except OSError as exc:
            raise AuditError(f"{path}: cannot open: {exc.strerror}") from None
        kind = _kind(mode)
        if kind is not None:
            raise AuditError(f"{path}: is {kind}, not a log file")
        fifo = stat.S_ISFIFO(mode)
        try:
            fd = os.open(path, os.O_RDONLY | (os.O_NONBLOCK if fifo else 0))
        except OSError as exc:
            raise AuditError(f"{path}: cannot open: {exc.strerror}") from None
        if fifo:
            os.set_blocking(fd, True)
        self._raw: BinaryIO = os.fdopen(fd, "rb")
        self.size = None if fifo else os.fstat(fd).st_size
        self.consumed = 0

    def __enter__(self) -> LogBytes:
        return self

    def __exit__(self, *_: object) -> None:
        self._raw.close()

    def _read(self, size: int = CHUNK) -> bytes:
        try:
            data = self._raw.read(size)
        except OSError as exc:
            raise AuditError(
                f"{self.path}: read error at byte {self.consumed}: {exc.strerror or exc}"
            ) from None
        return data or b""

    def __iter__(self) -> Iterator[bytes]:
        head = self._read()
        while 0 < len(head) < len(GZIP_MAGIC):  # a pipe may deliver one byte first
            more = self._read()
            if not more:
                break
            head += more
        if not head.startswith(GZIP_MAGIC):
            data = head
            while data:
                self.consumed += len(data)
                yield data
                data = self._read()
            return
        yield from self._gunzip(head)

    def _gunzip(self, pending: bytes) -> Iterator[bytes]:
        member: zlib._Decompress | None = None
        while True:
            if member is None:
                if not pending:
                    pending = self._read()
                    if not pending:
                        return  # every member ended, nothing after them
                if len(pending) < len(GZIP_MAGIC):
                    pending += self._read()
                if not pending.startswith(GZIP_MAGIC):
                    raise AuditError(
                        f"{self.path}: the bytes after the gzip data (from compressed byte "
                        f"{self.consumed}) are not a gzip member: trailing garbage or padding"
                    )
                member = zlib.decompressobj(wbits=31)
            if not pending:
                pending = self._read()
                if not pending:
                    out = self._decompress(member, b"")
                    if out:
                        yield out
                        continue
                    raise AuditError(
                        f"{self.path}: corrupt or truncated gzip data: the file ends inside a "
                        f"member at compressed byte {self.consumed}"
                    )
            before = len(pending)
            out = self._decompress(member, pending)
            if member.eof:
                pending = member.unused_data
                member = None
            else:
                pending = member.unconsumed_tail
            self.consumed += before - len(pending)
            if out:
                yield out

    def _decompress(self, member: zlib._Decompress, data: bytes) -> bytes:
        try:
            return member.decompress(data, CHUNK)
        except zlib.error as exc:
            raise AuditError(
                f"{self.path}: corrupt or truncated gzip data near compressed byte "
                f"{self.consumed}: {exc}"
            ) from None

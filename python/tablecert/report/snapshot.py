"""A snapshot of a certification's inputs: what is signed is what was analysed.

Before any section runs, certify copies every input file once into a private folder, hashing
the bytes as it copies them; the sections then read only those copies, so the SHA-256 in the
signed statement is the digest of exactly the bytes the analysis saw. After the sections ran,
each original is hashed again: a file that changed (or vanished) during the run fails the
certification, naming the file, instead of signing a report about a file that no longer exists.
"""

from __future__ import annotations

import hashlib
import os
import stat
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from tablecert.errors import ReportError
from tablecert.io.inputs import file_sha256, open_regular

_BLOCK = 1 << 20


class InputChangedError(ReportError):
    """An input file changed while the certification ran; nothing is certified."""


@dataclass(frozen=True)
class SnapshotFile:
    """One input: the original, the read-only copy the analysis reads, and their digest."""

    source: Path
    copy: Path
    sha256: str
    size: int


def _copy_hashing(source: Path, target: Path) -> tuple[str, int]:
    """Copy ``source`` to ``target`` (new file), returning the SHA-256 and size of the bytes
    written; the source must not change while it is read."""
    digest = hashlib.sha256()
    size = 0
    with ExitStack() as stack:
        try:  # a FIFO or device is refused before it is opened (its open may block)
            src = stack.enter_context(open_regular(source))
        except OSError as exc:
            raise ReportError(f"{source}: cannot read: {exc.strerror}") from exc
        before = os.fstat(src.fileno())
        try:
            with target.open("xb") as out:
                for block in iter(lambda: src.read(_BLOCK), b""):
                    digest.update(block)
                    out.write(block)
                    size += len(block)
        except OSError as exc:
            raise ReportError(
                f"{source}: cannot snapshot it into {target.parent}: {exc.strerror}"
            ) from exc
        after = os.fstat(src.fileno())
    if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns) or (
        size != after.st_size
    ):
        raise InputChangedError(f"{source}: changed while it was being read; nothing was certified")
    # Read-only; the owner's execute bit is kept (an evaluator may be run as a command).
    target.chmod(0o500 if before.st_mode & stat.S_IXUSR else 0o400)
    return digest.hexdigest(), size


class InputSnapshot:
    """Content-addressed copies of input files under ``root`` (``root/<sha256>/<file name>``:
    the file name is kept, since sections name what they read by it)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[Path, SnapshotFile] = {}
        self._staging = root / ".incoming"
        self._staging.mkdir(parents=True, exist_ok=False)

    def add(self, source: Path) -> SnapshotFile:
        """Copy and hash ``source`` (once; a second call returns the first copy)."""
        source = source.resolve()
        if source in self.files:
            return self.files[source]
        incoming = self._staging / f"{len(self.files)}"
        sha256, size = _copy_hashing(source, incoming)
        folder = self.root / sha256
        folder.mkdir(exist_ok=True)
        copy = folder / source.name
        if copy.exists():  # the same bytes under the same name, from another folder
            incoming.chmod(0o600)
            incoming.unlink()
        else:
            incoming.rename(copy)
        entry = SnapshotFile(source, copy, sha256, size)
        self.files[source] = entry
        return entry

    def moved(self) -> dict[str, str]:
        """Original path -> copy path, as strings (for ``PlanEntry.with_files``)."""
        return {str(f.source): str(f.copy) for f in self.files.values()}

    def original(self, path: Path) -> Path:
        """The original of a copy (or ``path`` itself when it is no copy)."""
        for entry in self.files.values():
            if entry.copy == path:
                return entry.source
        return path

    def show_originals(self, text: str) -> str:
        """``text`` (an error message) with every copy's path replaced by its original's."""
        for entry in self.files.values():
            text = text.replace(str(entry.copy), str(entry.source))
        return text

    def check_unchanged(self, extra: dict[Path, str] | None = None) -> None:
        """Hash every original again; a changed or missing one is an InputChangedError.
        ``extra``: further files (path -> SHA-256 when first read), e.g. the plan itself."""
        expected = {f.source: f.sha256 for f in self.files.values()}
        expected.update(extra or {})
        for source, sha256 in expected.items():
            try:
                now = file_sha256(source)
            except OSError as exc:
                raise InputChangedError(
                    f"{source}: {exc.strerror} after it was read: it changed during the "
                    "certification; nothing was certified"
                ) from exc
            if now != sha256:
                raise InputChangedError(
                    f"{source} changed during the certification (sha256 {sha256} when read, "
                    f"{now} now); nothing was certified: run certify again on stable inputs"
                )

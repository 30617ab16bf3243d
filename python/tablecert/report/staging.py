"""The output folder of a certification, written all at once or not at all.

Everything is written into a hidden work folder beside the target (same parent, so the same
file system) and renamed into place only when every file is complete. A target that already
holds a certificate is replaced whole; one holding anything else (another file, a folder
where a report file goes) is refused before any work starts. On any error the work folder is
removed: nothing that looks like a certificate is left behind.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from tablecert.errors import ReportError


@dataclass(frozen=True)
class Outputs:
    """The files a certification writes: ``names``, and files whose names match ``exports``
    (their names come from a plan: a rule file's exports), recognised only beside ``anchor``
    (the file every certificate holds), so that a folder of other files is never taken for one."""

    names: tuple[str, ...]
    exports: re.Pattern[str] | None = None
    anchor: str | None = None

    def of(self, folder: Path) -> set[str]:
        """The names of ``folder``'s entries that a previous certificate there may hold."""
        present = {item.name for item in folder.iterdir()}
        known = set(self.names) & present
        if self.exports is not None and self.anchor in present:
            known |= {name for name in present if self.exports.fullmatch(name)}
        return known


def check_target(target: Path, known: Iterable[str] | Outputs) -> None:
    """Refuse a target that is not a folder, or a folder holding anything but the regular
    files named ``known`` (a previous certificate, which certify replaces whole)."""
    if target.is_symlink():
        raise ReportError(f"output folder {target}: is a symbolic link; give the real folder")
    if not target.exists():
        return
    if not target.is_dir():
        raise ReportError(f"output folder {target}: exists and is not a folder")
    names = known.of(target) if isinstance(known, Outputs) else set(known)
    for item in sorted(target.iterdir()):
        mode = item.lstat().st_mode
        if item.name not in names:
            raise ReportError(
                f"output folder {target}: holds {item.name!r}, which certify did not write; "
                "not replacing it (give an empty or new folder)"
            )
        if not stat.S_ISREG(mode):
            raise ReportError(
                f"output folder {target}: {item.name} is not a regular file; "
                "not replacing it (give an empty or new folder)"
            )


def _normal(path: Path) -> Path:
    """``path`` absolute with ``.`` and ``..`` taken as written (no link followed)."""
    return Path(os.path.normpath(path.absolute()))


def check_outside(target: Path, inputs: Iterable[Path]) -> None:
    """Refuse an output folder that holds, or lies inside the tree of, any input: replacing
    the folder would destroy the input. Paths are compared as written (absolute) and resolved
    (an input reached through a symbolic link, or a target that is one)."""
    folders = {_normal(target), target.resolve()}
    for given in inputs:
        for path in {_normal(given), given.resolve()}:
            for folder in folders:
                if path == folder or path.is_relative_to(folder):
                    raise ReportError(
                        f"output folder {target}: holds the input {given}; certify would "
                        "replace it (give an output folder outside every input)"
                    )
                if folder.is_relative_to(path):
                    raise ReportError(
                        f"output folder {target}: is inside the input folder {given}; give "
                        "an output folder outside every input"
                    )


class StagedFolder:
    """``with StagedFolder(target, known) as stage:`` write into ``stage.out`` (and use
    ``stage.scratch`` for work files), then ``stage.commit()``; leaving the block without a
    commit, or with an error, removes everything written."""

    def __init__(self, target: Path, known: Iterable[str] | Outputs) -> None:
        self.target = target
        self.known = known if isinstance(known, Outputs) else tuple(known)
        check_target(target, self.known)
        self._work: Path | None = None

    def __enter__(self) -> StagedFolder:
        parent = self.target.absolute().parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.certify-", dir=parent))
        except OSError as exc:
            raise ReportError(
                f"output folder {self.target}: cannot create a folder in {parent}: {exc.strerror}"
            ) from exc
        self._work = work
        (work / "out").mkdir()
        (work / "scratch").mkdir()
        return self

    @property
    def work(self) -> Path:
        if self._work is None:
            raise ReportError("the output folder is used outside its with-block")
        return self._work

    @property
    def out(self) -> Path:
        """Where the outputs are written (renamed to the target on commit)."""
        return self.work / "out"

    @property
    def scratch(self) -> Path:
        """A folder for work files (the input snapshot), removed at the end."""
        return self.work / "scratch"

    def commit(self) -> None:
        """Move the written folder into place (replacing a previous certificate whole)."""
        check_target(self.target, self.known)  # it may have changed while the plan ran
        previous = self.work / "previous"
        if self.target.exists():
            self.target.rename(previous)
        try:
            self.out.rename(self.target)
        except OSError as exc:
            if previous.exists():
                previous.rename(self.target)
            raise ReportError(
                f"output folder {self.target}: cannot move the report into place: {exc.strerror}"
            ) from exc

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
            self._work = None

"""The documentation's examples, read from docs/ so that the test suite can run them.

Blocks that run:

- ```` ```console ````: lines ``$ COMMAND`` (continued by a trailing ``\\``) each followed by
  the output it prints. Every shown output line must appear, in order, among the lines the
  command prints (stdout then stderr, or stderr then stdout: progress goes to stderr first),
  with ``...`` inside a line standing for any text and a run of spaces for any spaces: an
  example may show an excerpt, never a line the command does not print. A last shown line
  ``(exit status N)`` states the exit status; without it the status must be 0.
  ``$ export NAME=VALUE`` sets a variable for the page's later commands.
- ```` ```pycon ````: a doctest session (``>>>`` lines and their printed results).
- ```` ```python ````: a script that must run without error.
- a block of any other language with ``title="NAME"`` (a file the page asks the reader to
  save) is written to ``NAME`` before the blocks after it run.

Every runnable block of a page runs in order in one fresh folder holding a link to the
source tree's ``fixtures/`` (so ``fixtures/...`` paths work as written in a source tree), and
later blocks see what earlier ones wrote. ``<!-- slow -->`` on the line before a block runs it
in the slow suite only. Shell blocks (``sh``, ``bash``, ``shell``) must be marked
``<!-- not run: REASON -->`` on the line before: they are set-up commands (building a wheel,
starting a cluster) that the suite cannot run on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

RUNNABLE = ("console", "pycon", "python")
SHELL = ("sh", "bash", "shell", "zsh")
_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w+-]*)(?P<info>.*)$")
_TITLE = re.compile(r'title="(?P<title>[^"/]+)"')
_MARK = re.compile(r"<!--\s*(?P<mark>slow|not run:[^>]*)\s*-->")
_STATUS = re.compile(r"^\(exit status (?P<status>\d)\)$")


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: its language, first line number, text and mark."""

    page: str
    line: int
    lang: str
    text: str
    mark: str
    title: str = ""


@dataclass(frozen=True)
class Command:
    """One ``$`` command of a console block and the output shown under it."""

    line: str
    shown: tuple[str, ...]
    status: int


def pages() -> list[Path]:
    """Every Markdown page of the documentation, sorted, then the README (its examples too)."""
    return [*sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts), ROOT / "README.md"]


def name(path: Path) -> str:
    """A page's name in messages: its path under docs/, or under the root for the README."""
    return str(path.relative_to(DOCS if DOCS in path.parents else ROOT))


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of ``path`` in page order (an unterminated fence is an error)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, start = len(m.group("indent")), i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].startswith(" " * indent + "```"):
            body.append(lines[i][indent:])
            i += 1
        if i == len(lines):
            raise ValueError(f"{name(path)}:{start + 1}: unterminated code block")
        prev = lines[start - 1] if start else ""
        mark = _MARK.search(prev)
        found.append(
            Block(
                page=name(path),
                line=start + 1,
                lang=m.group("lang"),
                text="\n".join(body) + "\n",
                mark=mark.group("mark") if mark else "",
                title=t.group("title") if (t := _TITLE.search(m.group("info"))) else "",
            )
        )
        i += 1
    return found


def commands(block: Block) -> list[Command]:
    """The commands of a console block, each with its shown output and exit status."""
    found: list[Command] = []
    current: list[str] | None = None
    shown: list[str] = []
    continued = False

    def close() -> None:
        if current is None:
            return
        status = 0
        if shown and (m := _STATUS.match(shown[-1].strip())):
            status = int(m.group("status"))
            shown.pop()
        found.append(Command(" ".join(current), tuple(shown), status))

    for raw in block.text.splitlines():
        if continued:
            assert current is not None
            current.append(raw.strip().removesuffix("\\").strip())
            continued = raw.rstrip().endswith("\\")
        elif raw.startswith("$ "):
            close()
            current, shown = [raw[2:].strip().removesuffix("\\").strip()], []
            continued = raw.rstrip().endswith("\\")
        elif current is None:
            if raw.strip():
                raise ValueError(f"{block.page}:{block.line}: output before any $ command")
        else:
            shown.append(raw)
    close()
    return found


def line_pattern(shown: str) -> re.Pattern[str]:
    """A shown output line as a pattern: ``...`` is any text, a run of spaces any spaces."""
    pieces = shown.strip().split("...")
    return re.compile(
        ".*".join(r"\s+".join(re.escape(w) for w in re.split(r"\s+", p)) for p in pieces)
    )


def missing_lines(shown: tuple[str, ...], printed: str) -> list[str]:
    """The shown lines that do not appear, in order, among the printed lines."""
    out = [line for line in printed.splitlines() if line.strip()]
    missing: list[str] = []
    at = 0
    for want in (s for s in shown if s.strip()):
        pattern = line_pattern(want)
        for j in range(at, len(out)):
            if pattern.search(out[j]):
                at = j + 1
                break
        else:
            missing.append(want)
    return missing

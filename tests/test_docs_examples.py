"""Every example in the documentation runs, and prints what the page shows
(tests/support/docs_examples.py says how a page writes them). A page's examples run in order in
a fresh folder; a block marked slow runs only in the slow suite."""

from __future__ import annotations

import doctest
import os
import runpy
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import docs_examples as dx

SLOW = bool(os.environ.get("TABLECERT_SLOW"))
BIN = Path(sys.executable).parent

RUN_PAGES = [p for p in dx.pages() if any(b.lang in dx.RUNNABLE for b in dx.blocks(p))]


def _environment() -> dict[str, str]:
    """The commands' environment: the venv's tablecert first, no colour, no key passphrase."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLECERT_KEY")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["NO_COLOR"] = "1"
    env.pop("COLUMNS", None)
    return env


def _run_console(block: dx.Block, cwd: Path, env: dict[str, str]) -> None:
    for command in dx.commands(block):
        where = f"{block.page}:{block.line}: $ {command.line}"
        if command.line.startswith("export "):
            name, _, value = command.line.removeprefix("export ").partition("=")
            env[name.strip()] = shlex.split(value)[0] if value else ""
            continue
        done = subprocess.run(
            ["bash", "-c", command.line],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        printed = done.stdout + done.stderr
        assert done.returncode == command.status, (
            f"{where}: exit status {done.returncode}, the page says {command.status}\n{printed}"
        )
        missing = min(
            dx.missing_lines(command.shown, done.stdout + done.stderr),
            dx.missing_lines(command.shown, done.stderr + done.stdout),
            key=len,
        )
        assert not missing, f"{where}: shown but not printed: {missing}\nprinted:\n{printed}"


def _run_pycon(block: dx.Block, globs: dict[str, object]) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block.text, globs, block.page, block.page, block.line)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    out: list[str] = []
    runner.run(test, out=out.append, clear_globs=False)
    assert runner.failures == 0, f"{block.page}:{block.line}:\n" + "".join(out)


def _run_python(block: dx.Block, cwd: Path, globs: dict[str, object]) -> None:
    script = cwd / f"_example_{block.line}.py"
    script.write_text(block.text, encoding="utf-8")
    globs.update(runpy.run_path(str(script), init_globals=globs, run_name="__main__"))


@pytest.mark.parametrize("page", RUN_PAGES, ids=dx.name)
def test_page_examples_run_as_shown(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's console, doctest and Python blocks run in order and print what is shown."""
    (tmp_path / "fixtures").symlink_to(dx.ROOT / "fixtures")
    env = _environment()
    monkeypatch.chdir(tmp_path)
    globs: dict[str, object] = {}
    ran = 0
    for block in dx.blocks(page):
        if block.title and block.lang not in dx.RUNNABLE:
            (tmp_path / block.title).write_text(block.text, encoding="utf-8")
            continue
        if block.lang not in dx.RUNNABLE:
            continue
        if block.mark == "slow" and not SLOW:
            continue
        if block.lang == "console":
            _run_console(block, tmp_path, env)
        elif block.lang == "pycon":
            _run_pycon(block, globs)
        else:
            _run_python(block, tmp_path, globs)
        ran += 1
    assert ran > 0 or not SLOW


def test_every_shell_block_runs_or_says_why_not() -> None:
    """No shell example escapes the suite unnoticed: a sh/bash block states why it is not run."""
    silent = [
        f"{b.page}:{b.line}"
        for p in dx.pages()
        for b in dx.blocks(p)
        if b.lang in dx.SHELL and not b.mark.startswith("not run:")
    ]
    assert silent == []


def test_collector_reads_commands_and_checks_lines() -> None:
    """The collector itself: commands, continuation, exit status, excerpts and wildcards."""
    block = dx.Block("x.md", 1, "console", "$ a \\\n  --b\nout 1\n(exit status 3)\n$ c\n", "")
    assert dx.commands(block) == [
        dx.Command("a --b", ("out 1",), 3),
        dx.Command("c", (), 0),
    ]
    printed = "first\nverdict:  PASS (45 of 45)\nlast\n"
    assert dx.missing_lines(("verdict: PASS (...)", "last"), printed) == []
    assert dx.missing_lines(("last", "first"), printed) == ["first"]
    assert dx.missing_lines(("verdict: FAIL ...",), printed) == ["verdict: FAIL ..."]

"""What a command does with the streams it is given: a closed standard output, one that cannot
encode Chinese, a terminal that says it is 0 columns wide, a passphrase prompt with nothing to
read. Each is a clear outcome (an answer, or one ``error:`` line and exit 2), never exit 4 and
never an answer silently lost. Run as a real process: the streams are the point."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

ENTRY = "from tablecert.entry import main; main()"


def _run(
    args: list[str], env: dict[str, str] | None = None, close_stdout: bool = False
) -> subprocess.CompletedProcess[bytes]:
    def close() -> None:
        os.close(1)

    return subprocess.run(
        [sys.executable, "-c", ENTRY, *args],
        env={**os.environ, **(env or {})},
        capture_output=not close_stdout,
        stderr=subprocess.PIPE if close_stdout else None,
        stdin=subprocess.DEVNULL,
        preexec_fn=close if close_stdout else None,
        timeout=120,
        check=False,
    )


def test_a_closed_stdout_is_an_input_error_not_a_lost_answer() -> None:
    for args in (["hands", "q-poker"], ["hands", "q-poker", "--json"]):
        run = _run(args, close_stdout=True)
        assert run.returncode == 2, run.stderr
        assert run.stderr.decode().splitlines() == [
            "error: standard output is closed: the answer could not be delivered"
        ]


def test_an_ascii_stdout_gets_escapes_and_the_same_json() -> None:
    ascii_run = _run(["hands", "q-poker", "--json"], env={"PYTHONIOENCODING": "ascii"})
    utf8_run = _run(["hands", "q-poker", "--json"], env={"PYTHONIOENCODING": "utf-8"})
    assert (ascii_run.returncode, utf8_run.returncode) == (0, 0), ascii_run.stderr
    ascii_run.stdout.decode("ascii")  # every byte is ASCII
    assert json.loads(ascii_run.stdout) == json.loads(utf8_run.stdout)
    text = _run(["hands", "q-poker"], env={"PYTHONIOENCODING": "ascii"})
    assert text.returncode == 0, text.stderr
    assert b"\\u" in text.stdout  # the articles, escaped


def test_columns_zero_on_a_terminal_still_prints() -> None:
    pid, fd = pty.fork()
    if pid == 0:  # the child: a real terminal as stdout, COLUMNS=0
        os.environ["COLUMNS"] = "0"
        os.execv(sys.executable, [sys.executable, "-c", ENTRY, "hands", "q-poker"])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert b"straight flush" in out


def test_no_passphrase_and_nothing_to_read_is_one_error_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TABLECERT_KEY_PASSPHRASE"}
    run = subprocess.run(
        [sys.executable, "-c", ENTRY, "keys", "generate", "-o", str(tmp_path / "lab")],
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2, run.stderr
    assert (
        "error: no passphrase: set $TABLECERT_KEY_PASSPHRASE, or type it on a terminal"
        in run.stderr.decode()
    )
    assert not (tmp_path / "lab").exists()

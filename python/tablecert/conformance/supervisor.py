"""The supervisor process between tablecert and a vendor's evaluator (run by ``isolation``).

Run as ``python -I -S supervisor.py CONFIG`` by path, importing nothing but the standard
library. It is started by tablecert in a session of its own, and it:

* starts the vendor's program (``CONFIG``'s ``argv``) as its child, in yet another session and
  process group, with the resource limits of ``CONFIG`` (address space, CPU time, open files, no
  core files), stdin, stdout and stderr inherited (tablecert's pipes: the protocol and the
  error output), every other descriptor closed;
* is that program's parent, so that a library calling ``kill(getppid(), SIGKILL)`` kills this
  supervisor, not tablecert; on Linux it is a child subreaper, so that the program's orphaned
  descendants (a daemon that called ``setsid``) are re-parented to it and can be found;
* writes one line per event on the ``status`` descriptor: ``started PID``, then at the end
  ``exited CODE``, ``signal NUMBER`` or ``stopped``; ``cannot-start MESSAGE`` if the program
  cannot be executed;
* when the program ends, or when tablecert closes the ``control`` descriptor (it wants the
  evaluator gone, or it died itself), kills the program's process group and every descendant
  left, reaps them, writes the last status line and exits.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import select
import signal
import subprocess
import sys
import time
from typing import Any

_PR_SET_CHILD_SUBREAPER = 36
_REAP_SECONDS = 5.0
_CPU_GRACE_S = 5


def _limits(config: dict[str, Any]) -> None:
    """Apply the resource limits in the child before it executes the vendor's program."""
    wanted = [
        (resource.RLIMIT_AS, config["memory_bytes"]),
        (resource.RLIMIT_CPU, config["cpu_seconds"]),
        (resource.RLIMIT_NOFILE, config["open_files"]),
        (resource.RLIMIT_CORE, 0),
    ]
    for which, value in wanted:
        _, hard = resource.getrlimit(which)
        # CPU time: SIGXCPU at the limit, SIGKILL a few seconds on if that is ignored.
        ceiling = value + _CPU_GRACE_S if which == resource.RLIMIT_CPU else value
        if hard != resource.RLIM_INFINITY:
            value, ceiling = min(value, hard), min(ceiling, hard)
        resource.setrlimit(which, (value, ceiling))


def _children() -> list[int]:
    """This process's children (its descendants re-parented to it included)."""
    me = os.getpid()
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{me}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{me}/task/{task}/children") as f:
                found.extend(int(p) for p in f.read().split())
    if found:
        return found
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                if int(fields[1]) == me:
                    found.append(int(entry))
    return found


def _kill_tree(group: int) -> None:
    """Kill the program's process group and every descendant of this process; reap them."""
    deadline = time.monotonic() + _REAP_SECONDS
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)
        for pid in _children():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        time.sleep(0.002)


def _say(fd: int, line: str) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, line.encode("utf-8", "replace") + b"\n")


def main() -> None:
    config = json.loads(sys.argv[1])
    control, status = int(config["control"]), int(config["status"])
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        child = subprocess.Popen(
            config["argv"],
            close_fds=True,
            start_new_session=True,
            preexec_fn=lambda: _limits(config),
        )
    except OSError as exc:
        _say(status, f"cannot-start {exc.strerror or exc}")
        return
    except subprocess.SubprocessError as exc:  # the limits could not be applied
        _say(status, f"cannot-start {exc}")
        return
    # The pipes are the program's and tablecert's alone: its output ends when it does.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    _say(status, f"started {child.pid}")
    try:
        waiter = os.pidfd_open(child.pid)
    except (AttributeError, OSError):
        waiter = -1
    ending = "stopped"
    while True:
        watched = [control] + ([waiter] if waiter >= 0 else [])
        ready, _, _ = select.select(watched, [], [], 0.05 if waiter < 0 else None)
        if control in ready and not os.read(control, 64):
            break
        code = child.poll()
        if code is not None:
            ending = f"exited {code}" if code >= 0 else f"signal {-code}"
            break
    _kill_tree(child.pid)
    _say(status, ending)


if __name__ == "__main__":
    main()

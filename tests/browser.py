"""Open a page in headless Debian chromium over the DevTools protocol (a pipe, no network).

Collects every console message, uncaught exception and browser log entry (failed loads
included) while the page loads, and evaluates an expression in it. Used by the HTML report
tests; `scripts/system-deps.sh` installs chromium.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Debian's /usr/bin/chromium is a shell launcher; the browser binary is beside its libraries.
CHROMIUM = next(
    (p for p in ("/usr/lib/chromium/chromium", shutil.which("chromium")) if p and Path(p).exists()),
    "/usr/bin/chromium",
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-pipe",
)


def available() -> bool:
    return Path(CHROMIUM).exists()


@dataclass
class PageLoad:
    """What happened while a page loaded, and the value of the evaluated expression."""

    value: Any
    problems: list[str] = field(default_factory=list)


class _Pipe:
    def __init__(self, to_browser: int, from_browser: int) -> None:
        self.out = os.fdopen(to_browser, "wb", buffering=0)
        self.inp = os.fdopen(from_browser, "rb", buffering=0)
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.out.write(json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def wait_for(self, method: str) -> None:
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._read())

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            chunk = self.inp.read(1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed


def load(page: Path, expression: str, width: int = 1200, height: int = 900) -> PageLoad:
    """Load ``page`` in a fresh profile; return the expression's value and any problems."""
    cmd_r, cmd_w = _high_pipe()
    res_r, res_w = _high_pipe()
    with tempfile.TemporaryDirectory(prefix="tablecert-chromium-") as profile:
        argv = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"]
        # The browser reads commands on fd 3 and writes replies on fd 4.
        shell = f'exec "$@" 3<&{cmd_r} 4>&{res_w} {cmd_r}<&- {res_w}>&-'
        proc = subprocess.Popen(
            ["bash", "-c", shell, "bash", *argv],
            pass_fds=(cmd_r, res_w),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(cmd_r)
        os.close(res_w)
        pipe = _Pipe(cmd_w, res_r)
        try:
            target = pipe.send("Target.createTarget", url="about:blank")["targetId"]
            session = pipe.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            for domain in ("Runtime", "Log", "Page"):
                pipe.send(f"{domain}.enable", session)
            pipe.send("Page.navigate", session, url=page.as_uri())
            pipe.wait_for("Page.loadEventFired")
            value = pipe.send(
                "Runtime.evaluate", session, expression=expression, returnByValue=True
            )["result"].get("value")
            problems = [_problem(e) for e in pipe.events if _problem(e)]
            with contextlib.suppress(RuntimeError):  # it may close the pipe before answering
                pipe.send("Browser.close")
        finally:
            pipe.out.close()
            pipe.inp.close()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return PageLoad(value, problems)


def _high_pipe() -> tuple[int, int]:
    """A pipe whose ends are numbered 10 or above, clear of the 3 and 4 the browser needs."""
    low = os.pipe()
    high = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in low)
    for fd in low:
        os.close(fd)
    return high[0], high[1]


def _problem(event: dict[str, Any]) -> str:
    method = event.get("method")
    params = event.get("params", {})
    if method == "Runtime.consoleAPICalled":
        args = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
        return f"console.{params.get('type')}: {args}"
    if method == "Runtime.exceptionThrown":
        return f"exception: {params['exceptionDetails'].get('text')}"
    if method == "Log.entryAdded":
        entry = params["entry"]
        return f"log {entry.get('level')}: {entry.get('text')} {entry.get('url', '')}".strip()
    return ""

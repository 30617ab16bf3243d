"""Headless Debian chromium over the DevTools protocol (a pipe, no network, no port).

``certify --pdf`` prints the HTML report with it (the one layout engine the report is checked
in), and the tests load pages with it. ``scripts/system-deps.sh`` installs chromium.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tablecert.errors import ReportError

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


class Pipe:
    """The DevTools pipe: commands out (NUL-terminated JSON), replies and events in."""

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


@contextlib.contextmanager
def page_session(
    page: Path, width: int = 1200, height: int = 900, domains: tuple[str, ...] = ("Page",)
) -> Iterator[tuple[Pipe, str]]:
    """A fresh browser profile with ``page`` loaded: yields the pipe and the page's session."""
    if not available():
        raise ReportError(f"chromium is not installed ({CHROMIUM}); run scripts/system-deps.sh")
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
        pipe = Pipe(cmd_w, res_r)
        try:
            target = pipe.send("Target.createTarget", url="about:blank")["targetId"]
            session = pipe.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            for domain in dict.fromkeys(("Page", *domains)):
                pipe.send(f"{domain}.enable", session)
            pipe.send("Page.navigate", session, url=page.resolve().as_uri())
            pipe.wait_for("Page.loadEventFired")
            yield pipe, session
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


def _high_pipe() -> tuple[int, int]:
    """A pipe whose ends are numbered 10 or above, clear of the 3 and 4 the browser needs."""
    low = os.pipe()
    high = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in low)
    for fd in low:
        os.close(fd)
    return high[0], high[1]


def print_pdf(
    page: Path,
    header: str,
    footer: str,
    fix: Callable[[bytes], bytes] = lambda pdf: pdf,
) -> bytes:
    """``page`` printed as PDF at its CSS page size (``@page size``), without backgrounds,
    with ``header`` and ``footer`` (HTML, Chromium's pageNumber/totalPages classes) on every
    page; ``fix`` post-processes the bytes."""
    import base64

    with page_session(page, domains=("Page", "Runtime")) as (pipe, session):
        # Every font the page falls back to (CJK included) is loaded before layout is printed.
        pipe.send(
            "Runtime.evaluate",
            session,
            expression="document.fonts.ready.then(() => document.fonts.size)",
            awaitPromise=True,
        )
        try:
            result = pipe.send(
                "Page.printToPDF",
                session,
                displayHeaderFooter=True,
                headerTemplate=header,
                footerTemplate=footer,
                printBackground=False,
                preferCSSPageSize=True,
                marginTop=0.79,
                marginBottom=0.71,
                marginLeft=0.55,
                marginRight=0.55,
            )
        except RuntimeError as exc:
            raise ReportError(f"chromium could not print {page.name}: {exc}") from exc
    return fix(base64.b64decode(result["data"]))

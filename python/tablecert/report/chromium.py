"""Headless Debian chromium over the DevTools protocol (a pipe, no network, no port).

The page it loads is untrusted (a lab's template made it): the browser gets the page's bytes
over the pipe, never its path; scripts are off (flag and DevTools); every request the page
makes is refused before it is sent (DevTools ``Fetch`` interception, behind a dead proxy),
and a Content-Security-Policy allows only inline styles and ``data:`` images.

``certify --pdf`` prints the HTML report with it (the one layout engine the report is checked
in), and the tests load pages with it. ``scripts/system-deps.sh`` installs chromium.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tablecert.errors import ReportError

# Debian's /usr/bin/chromium is a shell launcher; the browser binary is beside its libraries.
CHROMIUM = next(
    (p for p in ("/usr/lib/chromium/chromium", shutil.which("chromium")) if p and Path(p).exists()),
    "/usr/bin/chromium",
)
#: Where the page is served from: a name that resolves nowhere, answered by tablecert itself
#: over the DevTools pipe (the browser never opens the file; a page served over http cannot
#: load file: URLs).
DOCUMENT_URL = "http://tablecert-report.invalid/"
FLAGS = (
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--no-first-run",
    "--no-pings",
    "--blink-settings=scriptEnabled=false",
    # Behind the request interception, a second wall: every connection goes to a proxy
    # that does not exist (loopback included, which Chromium otherwise never proxies).
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--remote-debugging-pipe",
)


def flags() -> tuple[str, ...]:
    """The browser's flags: its sandbox is off only as root, where Chromium cannot start it."""
    return (*FLAGS, *(("--no-sandbox",) if os.geteuid() == 0 else ()))


def available() -> bool:
    return Path(CHROMIUM).exists()


Handler = Callable[[dict[str, Any]], None]


class Pipe:
    """The DevTools pipe: commands out (NUL-terminated JSON), replies and events in. An event
    with a handler is handled as it arrives (a handler may send commands of its own)."""

    def __init__(self, to_browser: int, from_browser: int) -> None:
        self.out = os.fdopen(to_browser, "wb", buffering=0)
        self.inp = os.fdopen(from_browser, "rb", buffering=0)
        self.buffer = b""
        self.next_id = 0
        self.replies: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.handlers: dict[str, Handler] = {}
        self.blocked: list[str] = []  # the URLs a contained page asked for, refused

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        ident = self.next_id
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.out.write(json.dumps(message).encode() + b"\0")
        while ident not in self.replies:
            self._pump()
        reply = self.replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def wait_for(self, method: str) -> None:
        while not any(e.get("method") == method for e in self.events):
            self._pump()

    def _pump(self) -> None:
        """Read one message: a reply is kept for its command, an event handled or kept."""
        message = self._read()
        if "id" in message:
            self.replies[message["id"]] = message
            return
        handler = self.handlers.get(message.get("method", ""))
        if handler is not None:
            handler(message)
        self.events.append(message)

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            chunk = self.inp.read(1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed


def _serve_only(pipe: Pipe, session: str, document: bytes) -> Handler:
    """The Fetch handler: the document's own URL is answered with ``document``; every other
    request (images, frames, fonts, styles, fetches) fails unsent and is listed in
    ``pipe.blocked``."""

    def paused(event: dict[str, Any]) -> None:
        params = event["params"]
        if params["request"]["url"] == DOCUMENT_URL:
            pipe.send(
                "Fetch.fulfillRequest",
                event.get("sessionId", session),
                requestId=params["requestId"],
                responseCode=200,
                responseHeaders=[
                    {"name": "Content-Type", "value": "text/html; charset=utf-8"},
                    {"name": "Content-Security-Policy", "value": _CSP},
                ],
                body=base64.b64encode(document).decode("ascii"),
            )
        else:
            pipe.blocked.append(params["request"]["url"])
            pipe.send(
                "Fetch.failRequest",
                event.get("sessionId", session),
                requestId=params["requestId"],
                errorReason="BlockedByClient",
            )

    return paused


#: The page may use its inline styles, inline SVG and data: images, and nothing else.
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
    "script-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
)


@contextlib.contextmanager
def page_session(
    page: Path, width: int = 1200, height: int = 900, domains: tuple[str, ...] = ("Page",)
) -> Iterator[tuple[Pipe, str]]:
    """A fresh browser profile with ``page`` loaded, contained: the browser is handed the
    page's bytes (it opens no file), runs none of its scripts and sends none of its requests.
    Yields the pipe (``pipe.blocked``: the URLs refused) and the page's session."""
    if not available():
        raise ReportError(f"chromium is not installed ({CHROMIUM}); run scripts/system-deps.sh")
    document = page.read_bytes()
    with browser(flags(), width, height) as pipe:
        target = pipe.send("Target.createTarget", url="about:blank")["targetId"]
        session = pipe.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        pipe.handlers["Fetch.requestPaused"] = _serve_only(pipe, session, document)
        pipe.send("Fetch.enable", session, patterns=[{"urlPattern": "*"}])
        pipe.send("Emulation.setScriptExecutionDisabled", session, value=True)
        for domain in dict.fromkeys(("Page", *domains)):
            pipe.send(f"{domain}.enable", session)
        pipe.send("Page.navigate", session, url=DOCUMENT_URL)
        pipe.wait_for("Page.loadEventFired")
        yield pipe, session


@contextlib.contextmanager
def browser(argv_flags: Sequence[str], width: int = 1200, height: int = 900) -> Iterator[Pipe]:
    """A headless Chromium with ``argv_flags`` in a fresh profile, driven over its DevTools
    pipe (it reads commands on fd 3 and writes replies on fd 4); closed and reaped at the end."""
    cmd_r, cmd_w = _high_pipe()
    res_r, res_w = _high_pipe()
    with tempfile.TemporaryDirectory(prefix="tablecert-chromium-") as profile:
        argv = [
            CHROMIUM,
            *argv_flags,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
        ]
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
            yield pipe
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

"""Open pages of the built documentation site in headless Debian chromium, with their scripts.

The report's browser (``tablecert.report.chromium``) is contained on purpose: it runs no
script and loads nothing but the one page. The documentation site needs its scripts (Material's
navigation and search) and its own assets, so this browser serves the whole site folder from
a name that resolves nowhere, answered over the DevTools pipe, and still sends nothing out:
every request outside the site is failed unsent and reported as a problem. It reuses the
report browser's pipe and flags, less the flag that turns scripts off.
"""

from __future__ import annotations

import base64
import contextlib
import mimetypes
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablecert.report import chromium
from tests.support.browser import _problem

SITE_URL = "http://tablecert-docs.invalid/"


@dataclass
class SitePage:
    """What happened while a page of the site loaded, and the evaluated expression's value."""

    value: Any
    problems: list[str] = field(default_factory=list)


def _file_for(root: Path, url: str) -> Path | None:
    """The site file a URL names (a folder's ``index.html``), or None outside the site."""
    if not url.startswith(SITE_URL):
        return None
    rel = url[len(SITE_URL) :].split("#", 1)[0].split("?", 1)[0]
    path = (root / rel).resolve()
    if path.is_dir():
        path = path / "index.html"
    if root.resolve() not in path.parents or not path.is_file():
        return None
    return path


def _serve_site(pipe: chromium.Pipe, root: Path, refused: list[str]) -> chromium.Handler:
    """The Fetch handler: site URLs answered from ``root``; anything else failed unsent."""

    def paused(event: dict[str, Any]) -> None:
        params = event["params"]
        url = params["request"]["url"]
        session = event.get("sessionId")
        path = _file_for(root, url)
        if path is None:
            refused.append(url)
            pipe.send(
                "Fetch.failRequest",
                session,
                requestId=params["requestId"],
                errorReason="BlockedByClient",
            )
            return
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        pipe.send(
            "Fetch.fulfillRequest",
            session,
            requestId=params["requestId"],
            responseCode=200,
            responseHeaders=[{"name": "Content-Type", "value": kind}],
            body=base64.b64encode(path.read_bytes()).decode("ascii"),
        )

    return paused


@contextlib.contextmanager
def _browser() -> Iterator[chromium.Pipe]:
    """A fresh chromium profile on a DevTools pipe, scripts allowed, network off."""
    argv_flags = [f for f in chromium.flags() if not f.startswith("--blink-settings")]
    with chromium.browser(argv_flags, 1400, 900) as pipe:
        yield pipe


def load(root: Path, page: str, expression: str) -> SitePage:
    """Load ``page`` (a path inside the site, e.g. ``"getting-started/lab/"``), let its scripts
    run, and evaluate ``expression`` (a promise is awaited). Problems: console messages,
    uncaught exceptions, browser log entries and every request outside the site."""
    refused: list[str] = []
    with _browser() as pipe:
        target = pipe.send("Target.createTarget", url="about:blank")["targetId"]
        session = pipe.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        pipe.handlers["Fetch.requestPaused"] = _serve_site(pipe, root, refused)
        pipe.send("Fetch.enable", session, patterns=[{"urlPattern": "*"}])
        for domain in ("Page", "Runtime", "Log"):
            pipe.send(f"{domain}.enable", session)
        pipe.send("Page.navigate", session, url=SITE_URL + page)
        pipe.wait_for("Page.loadEventFired")
        result = pipe.send(
            "Runtime.evaluate",
            session,
            expression=expression,
            returnByValue=True,
            awaitPromise=True,
        )
        problems = [p for e in pipe.events if (p := _problem(e))]
    problems += [f"request outside the site: {url}" for url in refused]
    if "exceptionDetails" in result:
        problems.append(f"expression failed: {result['exceptionDetails'].get('text')}")
    return SitePage(result["result"].get("value"), problems)

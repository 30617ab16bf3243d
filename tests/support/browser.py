"""Open a page in headless Debian chromium over the DevTools protocol (a pipe, no network).

Collects every console message, uncaught exception and browser log entry (failed loads
included) while the page loads, and evaluates an expression in it. Used by the HTML report
tests; `scripts/system-deps.sh` installs chromium. The browser driver itself is
``tablecert.report.chromium`` (certify --pdf prints with it).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablecert.report.chromium import available, page_session

__all__ = ["PageLoad", "available", "load", "screenshot"]


@dataclass
class PageLoad:
    """What happened while a page loaded, and the value of the evaluated expression."""

    value: Any
    problems: list[str] = field(default_factory=list)


def load(page: Path, expression: str, width: int = 1200, height: int = 900) -> PageLoad:
    """Load ``page`` in a fresh profile; return the expression's value and any problems."""
    with page_session(page, width, height, ("Runtime", "Log", "Page")) as (pipe, session):
        value = pipe.send("Runtime.evaluate", session, expression=expression, returnByValue=True)[
            "result"
        ].get("value")
        problems = [_problem(e) for e in pipe.events if _problem(e)]
    return PageLoad(value, problems)


def screenshot(page: Path, out: Path, width: int = 1200, height: int = 900) -> Path:
    """The first screen of ``page`` as a PNG (to look at it as a person would)."""
    with page_session(page, width, height) as (pipe, session):
        data = pipe.send("Page.captureScreenshot", session, format="png")["data"]
    out.write_bytes(base64.b64decode(data))
    return out


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

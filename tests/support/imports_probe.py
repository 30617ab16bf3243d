"""Which of some modules a piece of code imports, run in a fresh interpreter: how tests check
that a light path stays light (by ``sys.modules``, not by a timing)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence


def modules_imported(code: str, names: Sequence[str]) -> list[str]:
    """The ``names`` (modules) in ``sys.modules`` after ``code`` ran, sorted."""
    report = (
        f"\nimport sys, json; print(json.dumps(sorted(set({list(names)!r}) & set(sys.modules))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code + report], capture_output=True, text=True, check=True
    )
    found: list[str] = json.loads(out.stdout.splitlines()[-1])
    return found

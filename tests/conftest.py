"""Test-suite settings: under CI, hypothesis draws a fixed sequence of examples, so a run is
reproducible and a failure seen once is seen again (locally, examples stay random)."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

"""Certification plans a test writes for itself: the plan's text is the test's own, the file
is ``plan.toml`` in the folder the test gives (its relative paths are read from there)."""

from __future__ import annotations

from pathlib import Path


def write_plan(folder: Path, text: str) -> Path:
    """``text`` written as ``folder/plan.toml`` in UTF-8; the plan's path."""
    plan = folder / "plan.toml"
    plan.write_text(text, encoding="utf-8")
    return plan

"""Shared bench fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def load_printed() -> Iterator[None]:
    """The load average printed before and after a bench module (the machine is shared)."""
    print(f"\nload before: {os.getloadavg()}")
    yield
    print(f"\nload after: {os.getloadavg()}")

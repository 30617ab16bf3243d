"""Key building of two core builds side by side (e.g. before and after a change to the keys).

Run: .venv/bin/python benches/side_by_side_keys.py OLD/_core.abi3.so NEW/_core.abi3.so
Each build is loaded directly (no package import) and timed in alternation, three rounds:
all 2,598,960 five-card keys, all 22,100 three-card keys, and 1,000,000 random five-card
hands through ``strength_keys`` (medians of 7, 51 and 7 runs).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any


def _load(path: str) -> Any:
    loader = importlib.machinery.ExtensionFileLoader("_core", path)
    spec = importlib.util.spec_from_file_location("_core", path, loader=loader)
    assert spec is not None
    core = importlib.util.module_from_spec(spec)
    loader.exec_module(core)
    return core


def _median(run: Callable[[], object], times: int) -> float:
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def measure(path: str) -> str:
    core = _load(path)
    statute = core.TieBreaks(True)
    rng = random.Random(1)
    hands = b"".join(bytes(rng.sample(range(52), 5)) for _ in range(1_000_000))
    five = _median(lambda: core.all_strength_keys(5, statute), 7)
    three = _median(lambda: core.all_strength_keys(3, statute), 51)
    scattered = _median(lambda: core.strength_keys(hands, 5, statute), 7)
    return (
        f"{path}: all 5-card {five * 1e3:.1f} ms; all 3-card {three * 1e3:.2f} ms; "
        f"1 M random 5-card {scattered * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    if len(sys.argv) == 2:
        print(measure(sys.argv[1]))
    else:
        for _ in range(3):
            for build in sys.argv[1:]:
                subprocess.run([sys.executable, __file__, build], check=True)

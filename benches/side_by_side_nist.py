"""The NIST battery of two core builds side by side (before and after a change to a test).

Run: .venv/bin/python benches/side_by_side_nist.py OLD/_core.abi3.so NEW/_core.abi3.so
Each build is loaded directly (no package import) in its own process, in alternation, three
rounds: 20 sequences of 10^6 bits (seeded) through the spectral test alone and through all
fifteen tests (document parameters), best of 3 per process: process CPU and wall time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import numpy as np

from benches.side_by_side_keys import _load
from tablecert.audit.rng import TEST_NAMES, NistParameters

SEQUENCES = 20


def _best(core: Any, data: bytes, tests: list[str]) -> tuple[float, float]:
    kwargs, templates = NistParameters().core_args()
    walls, cpus = [], []
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        core.nist_run(data, 1_000_000, SEQUENCES, tests, kwargs, templates)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def measure(path: str) -> str:
    core = _load(path)
    data = np.random.default_rng(16).integers(0, 256, SEQUENCES * 125_000, np.uint8).tobytes()
    fft_wall, fft_cpu = _best(core, data, ["FFT"])
    all_wall, all_cpu = _best(core, data, list(TEST_NAMES))
    return (
        f"{path}: spectral test {fft_cpu / SEQUENCES * 1e3:.1f} ms CPU/sequence "
        f"({fft_wall:.2f} s wall); all fifteen {all_cpu / SEQUENCES * 1e3:.1f} ms CPU/sequence "
        f"({all_wall:.2f} s wall); load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    if len(sys.argv) == 2:
        print(measure(sys.argv[1]), flush=True)
    else:
        for _ in range(3):
            for build in sys.argv[1:]:
                subprocess.run(
                    [sys.executable, "-m", "benches.side_by_side_nist", build], check=True
                )

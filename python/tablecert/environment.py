"""Environment variables read before anything else is imported.

NumPy (through SciPy) reads ``SOURCE_DATE_EPOCH`` at import and crashes on a value that is not
a whole number; tablecert checks it first, so a bad value is one usage error naming it.
"""

from __future__ import annotations

import os
import re

LAST_EPOCH = 253_402_300_799  # 9999-12-31T23:59:59Z, the last second a timestamp can name


def source_date_epoch_problem() -> str | None:
    """Why ``$SOURCE_DATE_EPOCH`` is unusable, or ``None`` (unset or a usable value)."""
    value = os.environ.get("SOURCE_DATE_EPOCH")
    if value is None:
        return None
    if re.fullmatch(r"[0-9]{1,12}", value) and int(value) <= LAST_EPOCH:
        return None
    return (
        f"SOURCE_DATE_EPOCH={value[:40]!r}: expected whole seconds since 1970-01-01 UTC "
        f"(0 to {LAST_EPOCH})"
    )


def set_aside_bad_source_date_epoch() -> str | None:
    """Remove an unusable ``$SOURCE_DATE_EPOCH`` before the heavy imports; the problem is
    returned for the command line to report (nothing runs with it)."""
    problem = source_date_epoch_problem()
    if problem is not None:
        del os.environ["SOURCE_DATE_EPOCH"]
    return problem


def one_blas_thread() -> None:
    """Before NumPy is imported: OpenBLAS with one thread, unless ``$OPENBLAS_NUM_THREADS``
    says otherwise. At import OpenBLAS starts a thread per core that spins waiting for work:
    45-50 ms of CPU of every process that imports NumPy on 2 cores (``time.process_time``
    minus the main thread's ``time.thread_time`` after ``import numpy``: BENCHMARKS.md), and
    SciPy's own OpenBLAS as much again: 0.13 s of CPU taken from the core's reading threads
    of an ``audit shuffler`` run. Set for every command: tablecert's NumPy work is
    element-wise or on vectors too short to be cut among threads (no matrix product), so
    no figure depends on it. The local cluster's workers, started from this process, inherit
    it, as Dask gives its workers one thread anyway."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

"""The ``tablecert`` process's exit: what is alive at the end is left to the system (frozen
out of the interpreter's final collections), after every atexit handler and with the answer
delivered whole."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import atexit, gc, sys
# Registered before main(), so run after its handlers: is the heap frozen by then?
atexit.register(lambda: sys.stderr.write(f"frozen at exit: {gc.get_freeze_count() > 0}\\n"))
from tablecert.cli import main
sys.argv = ["tablecert", *sys.argv[1:]]
main()
"""


def test_the_heap_is_frozen_at_exit_and_the_answer_delivered() -> None:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, "hands", "caribbean-stud", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines()[-1] == "frozen at exit: True"
    data = json.loads(run.stdout)  # the whole answer, flushed
    assert sum(c["count"] for c in data["categories"]) == 2_598_960

"""The two ways a vendor's evaluator can fail, which the exit scheme keeps apart.

An evaluator that cannot be started, loaded or found is the lab's set-up (a path, a missing
interpreter, a shared library given as a program): an input error, exit 2, nothing judged.
One that started and then answered wrongly, crashed, exited or hung is evidence about the
vendor's code: the check it was answering fails.
"""

from __future__ import annotations

from tablecert.errors import TableCertError


class EvaluatorError(TableCertError):
    """The evaluator crashed, hung, exited or answered out of protocol (a failed check)."""


class EvaluatorStartError(TableCertError):
    """The evaluator could not be started, loaded or found: an input error, never a verdict
    (deliberately not an ``EvaluatorError``, which a crosscheck records as a failed check)."""

"""The RNG audit's data as JSON, built once: ``audit rng --json`` prints it and the report's
rng-audit section signs it, so the two cannot drift apart.

What is common to both: the battery's columns and parameters, the decision, the mode and the
input. Each caller names the files as it must (the CLI the paths it was given, the report
the file names only: nothing signed carries a machine path) and adds what only it shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablecert.audit import rng as nist
    from tablecert.audit.nist_tool import ToolColumn
    from tablecert.audit.rng_decision import RngDecision


def rng_audit_json(
    report: nist.NistReport,
    source: nist.BitSource,
    decision: RngDecision,
    tool_cols: Sequence[ToolColumn] | None,
    files: Sequence[str],
) -> dict[str, Any]:
    """The battery's JSON (:meth:`~tablecert.audit.rng.NistReport.as_json`) with the decision,
    the mode (``document`` or ``nist-tool``, whose columns are added), ``files``, the input's
    format and how many bits it held."""
    data: dict[str, Any] = {
        **report.as_json(),
        "mode": "nist-tool" if tool_cols is not None else "document",
        "files": list(files),
        "format": source.format,
        "total_bits": source.total_bits,
        "decision": decision.as_json(),
    }
    if tool_cols is not None:
        data["nist_tool_columns"] = [c.as_json() for c in tool_cols]
    return data

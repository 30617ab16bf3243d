"""The exceptions tablecert raises; each message names the offending value, file and line."""

from tablecert._core import CardError, NistError, RulesError, TileError


class TableCertError(Exception):
    """Base of tablecert's own (non-core) errors: a handled failure the CLI prints in one line."""


class RuleFileError(TableCertError, RulesError):
    """A rule file is missing, malformed or has a bad value; names the file, key and line."""


class RngAuditError(TableCertError):
    """RNG output or NIST battery parameters that cannot be tested; names the file or value."""


__all__ = [
    "CardError",
    "NistError",
    "RngAuditError",
    "RuleFileError",
    "RulesError",
    "TableCertError",
    "TileError",
]

"""The exceptions tablecert raises; each message names the offending value, file and line."""

from tablecert._core import CardError, RulesError, TileError


class TableCertError(Exception):
    """Base of tablecert's own (non-core) errors: a handled failure the CLI prints in one line."""


class RuleFileError(TableCertError, RulesError):
    """A rule file is missing, malformed or has a bad value; names the file, key and line."""


class AuditError(TableCertError):
    """A log cannot be read or an audit is misconfigured; names the file and position."""


__all__ = ["AuditError", "CardError", "RuleFileError", "RulesError", "TableCertError", "TileError"]

"""The exceptions tablecert raises; each message names the offending value, file and line."""

from tablecert._core import CardError, RulesError, TileError


class TableCertError(Exception):
    """Base of tablecert's own (non-core) errors: a handled failure the CLI prints in one line."""


class RuleFileError(TableCertError, RulesError):
    """A rule file is missing, malformed or has a bad value; names the file, key and line."""


class MahjongError(TableCertError):
    """A mahjong hand, context or game record the rules cannot score; names the problem."""


__all__ = [
    "CardError",
    "MahjongError",
    "RuleFileError",
    "RulesError",
    "TableCertError",
    "TileError",
]

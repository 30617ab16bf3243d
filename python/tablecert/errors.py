"""The exceptions tablecert raises; each message names the offending value, file and line."""

from __future__ import annotations

from collections.abc import Iterable

from tablecert._core import CardError, NistError, RulesError, TileError


class TableCertError(Exception):
    """Base of tablecert's own (non-core) errors: a handled failure the CLI prints in one line."""


class GameError(TableCertError, ValueError):
    """A game id tablecert does not know: ``unknown game 'x'; known: ...``."""

    @classmethod
    def unknown(cls, game: object, known: Iterable[str]) -> GameError:
        return cls(f"unknown game {game!r}; known: {', '.join(known)}")


class RuleFileError(TableCertError, RulesError):
    """A rule file is missing, malformed or has a bad value; names the file, key and line."""


class ReportError(TableCertError):
    """Report data that cannot be written exactly (a float, a non-string key, ...)."""


class PlanError(ReportError):
    """A certification plan is missing, malformed or names a bad value; names file, line, key."""


class SigningError(TableCertError):
    """A key cannot be created, read or unlocked (existing file, wrong passphrase, not Ed25519)."""


class AuditError(TableCertError):
    """A log cannot be read or an audit is misconfigured; names the file and position."""


class CrosscheckError(TableCertError):
    """A crosscheck that cannot be run as asked (a sample too large, a bad seed, a corpus of
    another game); names the value."""


class RoundLogError(AuditError):
    """A round log cannot be read: names the file, the line and the field."""


class EnvelopeError(TableCertError):
    """A signed envelope is not well-formed (bad JSON, missing field, bad base64, bad statement)."""


class MahjongError(TableCertError):
    """A mahjong hand, context or game record the rules cannot score; names the problem."""


class ClusterError(TableCertError):
    """A cluster cannot be used as asked (Dask missing, scheduler unreachable, bad options)."""


class OutputError(TableCertError):
    """An output cannot be written where asked (exists, missing folder, not a folder, I/O)."""


class RngAuditError(TableCertError):
    """RNG output or NIST battery parameters that cannot be tested; names the file or value."""


__all__ = [
    "AuditError",
    "CardError",
    "ClusterError",
    "CrosscheckError",
    "EnvelopeError",
    "GameError",
    "MahjongError",
    "NistError",
    "OutputError",
    "PlanError",
    "ReportError",
    "RngAuditError",
    "RuleFileError",
    "RulesError",
    "SigningError",
    "TableCertError",
    "TileError",
]

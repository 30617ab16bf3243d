"""The exceptions tablecert raises; each message names the offending value, file and line.

Every public exception is a `TableCertError`, those of the Rust core included: the core
imports the five classes below (`CardError`, `TileError`, `RulesError`, `LogError`,
`NistError`) rather than defining its own, so one ``except TableCertError`` catches a bad
card from the core as it catches a bad rule file. The errors about a value are also
`ValueError`. Classes defined beside the code that raises them derive from these and are
listed in `ELSEWHERE`. Three exceptions are deliberately not `TableCertError`, as they must
never be reported as a bad input: `judgement.JudgementError` (a verdict that breaks its own
invariants: a bug), `strict_json.StrictJsonError` (turned into the caller's error with the file
named) and `mahjong.replay.ViolationError` (a finding of the replay, caught inside it).
This module imports nothing of tablecert's: the core imports it.
"""

from __future__ import annotations

from collections.abc import Iterable


class TableCertError(Exception):
    """Base of every tablecert error: a handled failure the CLI prints in one line (exit 2)."""


class CardError(TableCertError, ValueError):
    """A card code, hand or card array is invalid; the message names the bad value."""


class TileError(TableCertError, ValueError):
    """A mahjong tile code, meld or tile multiset is invalid; the message names the bad value."""


class RulesError(TableCertError, ValueError):
    """A rule option passed to the core is not one it knows; the message names it."""


class LogError(TableCertError, ValueError):
    """A shuffler or round log cannot be read; the message names the file, line and byte."""


class NistError(TableCertError, ValueError):
    """A NIST SP 800-22 parameter, test name or input the battery cannot accept."""


class CoreArgumentError(TableCertError, ValueError):
    """tablecert's own code passed the core a value it cannot take (a buffer of the wrong
    shape, a bad range): a bug, not a bad input, so the CLI reports it as an internal error."""


class GameError(TableCertError, ValueError):
    """A game id tablecert does not know: ``unknown game 'x'; known: ...``."""

    @classmethod
    def unknown(cls, game: object, known: Iterable[str]) -> GameError:
        return cls(f"unknown game {game!r}; known: {', '.join(known)}")


class RuleFileError(RulesError):
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


#: Public exceptions defined beside the code that raises them (module, class), each deriving
#: from a class above.
ELSEWHERE = (
    ("tablecert.audit.shuffler", "InputOrderError"),
    ("tablecert.bundled", "BundledDataError"),
    ("tablecert.rules.submission", "ConfigurationError"),
    ("tablecert.conformance.evaluator_errors", "EvaluatorError"),
    ("tablecert.conformance.evaluator_errors", "EvaluatorStartError"),
    ("tablecert.games.common", "AnalysisError"),
    ("tablecert.games.par_export", "ExportError"),
    ("tablecert.report.dsse", "InputsAmbiguousError"),
    ("tablecert.report.dsse", "InvalidEnvelopeError"),
    ("tablecert.report.dsse", "NotCertificationError"),
    ("tablecert.report.snapshot", "InputChangedError"),
)

__all__ = [
    "AuditError",
    "CardError",
    "ClusterError",
    "CoreArgumentError",
    "CrosscheckError",
    "EnvelopeError",
    "GameError",
    "LogError",
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

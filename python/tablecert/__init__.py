"""tablecert: certify casino table games against the Macau statutes that govern them."""

from tablecert._core import __version__ as core_version
from tablecert.errors import CardError, GameError, RulesError, TableCertError
from tablecert.poker import Evaluation, compare, evaluate

__version__ = "0.1.0"

__all__ = [
    "CardError",
    "Evaluation",
    "GameError",
    "RulesError",
    "TableCertError",
    "__version__",
    "compare",
    "core_version",
    "evaluate",
]

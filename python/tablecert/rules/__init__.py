"""The statutes as data: loading and validating the TOML rule files (bundled in the package:
``tablecert/data/rules/``, in a source checkout ``fixtures/rules/``)."""

from tablecert.bundled import RULES_DIR, STATUTES_DIR
from tablecert.rules.loader import (
    RuleFile,
    RuleValue,
    bundled_rule_path,
    load_rules,
)

__all__ = [
    "RULES_DIR",
    "STATUTES_DIR",
    "RuleFile",
    "RuleValue",
    "bundled_rule_path",
    "load_rules",
]

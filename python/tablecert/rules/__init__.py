"""The statutes as data: loading and validating the TOML rule files in ``fixtures/rules/``."""

from tablecert.rules.loader import (
    RULES_DIR,
    STATUTES_DIR,
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

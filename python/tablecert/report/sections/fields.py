"""The plan keys several section kinds accept with the same meaning, defined once so that each
reads the same in every section's table of keys (``tablecert plan``, the docs) and a change
of wording reaches every section that takes it."""

from __future__ import annotations

from tablecert.report.entry import Field

#: The poker game a section judges.
POKER_GAME = Field("text", help="q-poker or caribbean-stud")
#: The game's statute rule file, wherever the section takes the statute as a whole.
RULE_FILE = Field("rules", help="the rule file (path or bundled name)")
#: The game's statute rule file, for the article on the equipment (shuffler, RNG).
EQUIPMENT_RULES = Field("rules", help="the game's rule file (its equipment article)")

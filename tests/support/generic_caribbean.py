"""Caribbean Stud's Macau statute file written in the generic layout of a described game.

The statute file's deal, ranking and ``[progressive]`` (with ``[progressive.fixed]``) are
taken as they are; its ``[play]`` (the statutes' ante/raise layout) is written as
``[qualifier]``, ``[decision]`` and ``[settlement]`` with the same values and articles;
``game.id`` is ``stud``, with a ``game.source`` for the statute's text and no ``[table]``. So
the copy is the statute's game described by data alone, and its figures can be compared with
the dedicated engine's on the statute file.
"""

from __future__ import annotations

from pathlib import Path

from tablecert.rules import RULES_DIR

STATUTE = RULES_DIR / "caribbean-stud.macau.toml"
#: Where the statute file's ante/raise layout and its progressive begin.
PLAY = "# Ante/raise (Art. 6, Art. 9)"
PROGRESSIVE = "# Progressive (Art. 10)"

SETTLEMENT = """
[qualifier]
category = { value = "high-card", article = "第九条(一)", note = "at least an A and a K" }
ranks = { value = ["A", "K"], article = "第九条(一)" }

[decision]
raises = { value = [2], article = "第六条(六)", note = "exactly twice the ante" }

[settlement]
fold = { value = -1, article = "第六条(七)" }
ties = { value = "push", article = "第八条", note = "cannot happen: suits decide every tie" }

[settlement.ante]
not_qualifying = { value = 1, article = "第九条(二)" }
win = { value = 1, article = "第九条(五)" }
loss = { value = -1, article = "第九条(四)" }

[settlement.raise]
not_qualifying = { value = 0, article = "第九条(二)" }
loss = { value = -1, article = "第九条(四)" }

[settlement.raise.win]
royal-flush = { value = 100, article = "第九条(五)(9)" }
straight-flush = { value = 50, article = "第九条(五)(8)" }
four-of-a-kind = { value = 20, article = "第九条(五)(7)" }
full-house = { value = 7, article = "第九条(五)(6)" }
flush = { value = 5, article = "第九条(五)(5)" }
straight = { value = 4, article = "第九条(五)(4)" }
three-of-a-kind = { value = 3, article = "第九条(五)(3)" }
two-pair = { value = 2, article = "第九条(五)(2)" }
one-pair = { value = 1, article = "第九条(五)(1)" }
high-card = { value = 1, article = "第九条(五)(1)" }

"""


def generic_caribbean_text(upcards: int = 1) -> str:
    """The copy's text; ``upcards = 0`` deals the dealer's cards all face down (a variant
    whose analysis is quick, with the statute's progressive unchanged)."""
    text = STATUTE.read_text(encoding="utf-8")
    head, rest = text.split(PLAY)
    progressive = PROGRESSIVE + rest.split(PROGRESSIVE)[1]
    head = head.replace(
        'id = { value = "caribbean-stud", article = "批示一" }',
        'id = { value = "stud", article = "批示一", note = "described by its file" }',
    ).replace(
        'upcards = { value = 1, article = "第七条"',
        f'upcards = {{ value = {upcards}, article = "第七条"',
    )
    # A described game names its source, not a statute text the statute engines read, and
    # has no [table] (what only the configuration check of the statute's game reads).
    head = "\n".join(
        'source = { value = "the Macau statute of 2004", article = "批示一" }'
        if line.startswith("statute = ")
        else line
        for line in head.splitlines()
        if not line.startswith(("[table]", "seats = ", "dealing = "))
    )
    return head + "\n" + SETTLEMENT + progressive


def generic_caribbean(folder: Path, upcards: int = 1, name: str = "") -> Path:
    """The copy written into ``folder`` (as ``caribbean-stud.generic.toml``, or ``name``)."""
    path = folder / (name or "caribbean-stud.generic.toml")
    path.write_text(generic_caribbean_text(upcards), encoding="utf-8")
    return path

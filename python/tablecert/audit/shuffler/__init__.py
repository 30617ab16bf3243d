"""Auditing a shuffler from its captured logs: stream every file through the core's reader and
tallies, check each deck, then judge the tallies with the battery.

:func:`audit_shuffler` checks the options and runs the audit in this process
(:mod:`~tablecert.audit.shuffler.local`) or one shard per file on an executor
(:mod:`~tablecert.audit.shuffler.sharded`); both end in
:func:`~tablecert.audit.shuffler.result.conclude`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablecert.audit.battery import DEFAULT_CONFIDENCE, check_levels
from tablecert.audit.dealing import WallDealer, poker_law
from tablecert.audit.decks import DECK_SIZES
from tablecert.audit.options import DEALINGS, DEFAULT_BATCH, INPUT_ORDERS
from tablecert.audit.shuffler.local import Progress, audit_local, stream_file
from tablecert.audit.shuffler.result import (
    InputOrderError,
    Integrity,
    ShufflerAudit,
    check_input_order,
    conclude,
)
from tablecert.errors import AuditError
from tablecert.io.pathlike import PathsArg, as_paths, distinct_paths
from tablecert.stats import DEFAULT_ALPHA, DealtLaw

if TYPE_CHECKING:
    from tablecert import poker
    from tablecert.audit.started import StartedRead
    from tablecert.distributed import Executor

# The poker rules (with a game), the mahjong dealer (mahjong decks) and the sharded audit
# (an executor) are imported where they are used: a plain card audit starts without them.

__all__ = [
    "DEFAULT_BATCH",
    "INPUT_ORDERS",
    "InputOrderError",
    "Integrity",
    "Progress",
    "ShufflerAudit",
    "audit_setup",
    "audit_shuffler",
    "check_input_order",
    "conclude",
    "stream_file",
]


def audit_setup(
    paths: Sequence[str | Path],
    deck: str,
    input_order: str,
    game: str | None,
    seats: int,
    dealing: str,
    rules: poker.RulesSource,
) -> tuple[DealtLaw | None, dict[str, Any]]:
    """Check the audit's options; the dealt-hand law (with ``game``) and the core's game
    arguments (``_core.ShuffleAudit`` keywords)."""
    if deck not in DECK_SIZES:
        raise AuditError(f"unknown deck {deck!r}: expected one of {', '.join(DECK_SIZES)}")
    if input_order not in INPUT_ORDERS:
        raise AuditError(f"input order {input_order!r}: expected one of {', '.join(INPUT_ORDERS)}")
    if dealing not in DEALINGS:
        raise AuditError(f"dealing {dealing!r}: expected one of {', '.join(DEALINGS)}")
    if not paths:
        raise AuditError("no log files given")
    if game is None:
        return None, {}
    if deck != "cards52":
        raise AuditError(f"{game} is dealt from a 52-card deck, not {deck}")
    from tablecert import poker

    order = poker.ordering(game, rules)
    limit = 52 // order.hand_size - 1
    if not 1 <= seats <= limit:
        raise AuditError(f"{game} deals {order.hand_size} cards: seats must be 1..{limit}")
    kwargs = {
        "hand_size": order.hand_size,
        "hands": seats + 1,
        "round_robin": dealing == "round-robin",
        "tie_breaks": order.tie_breaks,
    }
    return poker_law(game, seats, rules), kwargs


def audit_shuffler(
    paths: PathsArg,
    deck: str = "cards52",
    *,
    input_order: str = "auto",
    game: str | None = None,
    seats: int = 6,
    dealing: str = "packets",
    rules: poker.RulesSource = None,
    batch_size: int = DEFAULT_BATCH,
    alpha: float = DEFAULT_ALPHA,
    confidence: float = DEFAULT_CONFIDENCE,
    wall_dealer: WallDealer | None = None,
    wall_statistic: str | None = "types",
    progress: Progress | None = None,
    on_file: Callable[[Path], None] | None = None,
    executor: Executor | None = None,
    started: StartedRead | None = None,
) -> ShufflerAudit:
    """Read every log in one streaming pass and run the battery on all shuffles and on each
    full batch of ``batch_size`` shuffles (for the second-level check). Mahjong walls are
    dealt as Art. 3 deals them and each hand's ``wall_statistic`` tested (``None``: no dealt
    test) unless a ``wall_dealer`` is given.

    With an ``executor``, each file is one shard there instead (``audit.shuffler.sharded``;
    each file its own stream; no dealt test of mahjong walls) and ``progress`` is called with
    (files done, files). ``started``: the same logs already being read by the core
    (``tablecert.audit.started``), for an audit in this process of its settings."""
    paths = as_paths(paths, "log file")
    if started is None or started.paths != paths:  # a started read's were checked before it
        paths = distinct_paths(paths, "log file")
    check_levels(alpha, confidence)
    if not 1 <= batch_size < 2**63:
        raise AuditError(f"batch size {batch_size}: must be from 1 to 2**63 - 1")
    law, kwargs = audit_setup(paths, deck, input_order, game, seats, dealing, rules)
    if executor is not None:
        if started is not None:
            raise RuntimeError("a started read is audited in this process, not on a cluster")
        if wall_dealer is not None:
            raise AuditError("a wall dealer needs every order in one process: audit locally")
        from tablecert.audit.shuffler.sharded import audit_sharded

        options = (deck, input_order, game, batch_size)
        return audit_sharded(paths, executor, options, law, kwargs, (alpha, confidence), progress)
    if wall_dealer is not None and deck == "cards52":
        raise AuditError("a wall dealer deals mahjong walls: use --deck mahjong136 or mahjong112")
    if wall_dealer is None and wall_statistic is not None and deck != "cards52":
        from tablecert.audit.wall_dealing import mahjong_dealer

        wall_dealer = mahjong_dealer(deck, wall_statistic)
    return audit_local(
        paths,
        (deck, input_order, game),
        batch_size,
        law,
        kwargs,
        (alpha, confidence),
        wall_dealer,
        progress,
        on_file,
        started,
    )

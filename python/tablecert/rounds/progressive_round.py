"""One round's progressive as a simulated table settles it: every progressive bettor's net
result and the meter after the round, by ``Progressive.pay_round`` (the file's order of the
round's prizes, the meter's shares, restarts and contributions); and the meter hands a
simulator deals to exercise the meter's prizes. Shared by the dedicated games' simulator
(``rounds/simulate.py``), a described game's (``rounds/stud_simulate.py``) and the tests, so
that all settle the bet with one reading of the terms."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from tablecert.games.progressive import ROYAL, Progressive, RoundPayment, meter_hands


def settle_progressive(
    prog: Progressive, meter_before: Fraction, seats: Sequence[tuple[int, str, Fraction]]
) -> tuple[RoundPayment, list[Fraction]]:
    """The round's payment and each seat's net result on the progressive (the prize less the
    bet; 0 without a bet), in ``seats`` order. ``seats``: (seat number, category of the
    player's hand as the progressive names it, progressive bet) of every seat of the round
    whose ante was accepted."""
    bets = sum((bet for _, _, bet in seats), Fraction(0))
    payment = prog.pay_round(
        meter_before, [(number, category) for number, category, bet in seats if bet], bets
    )
    nets = []
    for number, _, bet in seats:
        won = payment.of(number) if bet else None
        nets.append((won.prize if won else Fraction(0)) - bet)
    return payment, nets


def disjoint_meter_hands(
    categories: Sequence[str], pick: Callable[[int], int]
) -> tuple[int, list[list[int]]]:
    """Disjoint hands of the given categories (``royal flush``, or any other: a straight
    flush), each the ``pick(n)``-th of its n hands, drawn again from the first until the
    hands share no card; returns their cards as one bitmask and each hand's card ids."""
    royals, flushes = meter_hands()
    while True:
        used, chosen = 0, []
        for category in categories:
            pool = royals if category == ROYAL else flushes
            mask = pool[pick(len(pool))]
            if mask & used:
                break
            used |= mask
            chosen.append([c for c in range(52) if mask >> c & 1])
        else:
            return used, chosen

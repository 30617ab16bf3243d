"""The Python API takes what Python users pass: paths as str or os.PathLike (one or many),
results that compare equal when their contents are equal, documented error classes whose
messages name the value, card text wherever card ids are accepted."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import tablecert
from tablecert import errors, mahjong
from tablecert.audit import audit_shuffler
from tablecert.audit import rng as nist
from tablecert.errors import GameError, TableCertError
from tablecert.games import q_poker
from tablecert.games.sweep import sweep
from tablecert.hand_arrays import strength_keys
from tablecert.poker import parse_hand
from tablecert.report.plan import load_plan
from tablecert.rules import load_rules

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "fixtures" / "logs" / "shuffler-sample.csv"
PI = ROOT / "fixtures" / "nist" / "pi.bin"


def test_a_path_is_one_path_whatever_its_type() -> None:
    """audit_shuffler("x.csv") once iterated the string ("cannot open /: Is a directory")."""
    by_str = audit_shuffler(str(LOG))
    assert by_str.integrity.records == 6
    assert by_str.integrity.files == (str(LOG),)
    assert audit_shuffler(LOG) == by_str
    assert audit_shuffler([LOG]) == by_str
    assert audit_shuffler((str(LOG),)) == by_str
    with pytest.raises(TableCertError, match=r"expected a log file \(str or os.PathLike\), got 7"):
        audit_shuffler([7])  # type: ignore[list-item]
    assert nist.read_bits(PI).total_bits == nist.read_bits(str(PI)).total_bits == 1_000_000
    assert load_rules(ROOT / "fixtures" / "rules" / "q-poker.macau.toml").game == "q-poker"
    assert load_plan(ROOT / "fixtures" / "plans" / "smoke.toml").title.startswith("Smoke plan")


def test_results_compare_equal_when_their_contents_are_equal() -> None:
    a = q_poker.analyze("q-poker.standard")
    b = q_poker.analyze("q-poker.standard")
    assert a is not b
    assert a == b
    assert a != q_poker.analyze("q-poker.macau")
    data = nist.read_bits(PI).data
    first = nist.run_nist(data, bits=100_000, sequences=2, tests=["Frequency", "Runs"])
    again = nist.run_nist(bytes(data), bits=100_000, sequences=2, tests=["Frequency", "Runs"])
    assert first == again
    assert first != nist.run_nist(data, bits=100_000, sequences=2, tests=["Frequency"])
    assert len({a, b}) == 1  # still hashable, consistently with ==


@pytest.mark.parametrize(
    ("call", "known"),
    [
        (lambda: tablecert.evaluate("blackjack", "As Ks Qs"), "q-poker, caribbean-stud"),
        (lambda: mahjong.parse_hand("riichi", "1m 2m 3m Gd Gd"), "mahjong-traditional, mahjong"),
        (lambda: sweep("baccarat", ["q-poker.macau"]), "q-poker, caribbean-stud"),
    ],
)
def test_an_unknown_game_is_a_game_error_naming_it(call: object, known: str) -> None:
    with pytest.raises(GameError, match=r"unknown game '\w+'; known: ") as info:
        call()  # type: ignore[operator]
    assert known in str(info.value)
    assert isinstance(info.value, ValueError)


def test_every_error_class_is_documented() -> None:
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert inspect.isclass(cls), name
        assert issubclass(cls, Exception), name
        assert (cls.__doc__ or "").strip(), f"{name} has no docstring"
        assert name in dir(errors)


def test_card_text_wherever_card_ids_are_accepted() -> None:
    hands = ["As Ks Qs", "2c 3d 4h", "9s 9h 5d"]
    ids = np.array([parse_hand(h) for h in hands])
    expected = strength_keys("q-poker", ids)
    assert strength_keys("q-poker", hands).tolist() == expected.tolist()
    codes = [h.split() for h in hands]
    assert strength_keys("q-poker", codes).tolist() == expected.tolist()
    assert strength_keys("q-poker", ids.tolist()).tolist() == expected.tolist()
    with pytest.raises(tablecert.CardError, match='unknown card code "Zz"'):
        strength_keys("q-poker", ["As Zz Qs"])
    with pytest.raises(tablecert.CardError, match="3 cards, got 2"):
        strength_keys("q-poker", ["As Ks"])

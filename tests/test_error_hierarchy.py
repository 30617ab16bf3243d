"""Every exception tablecert raises, the Rust core's included, is a `TableCertError`.

Each kind of core error is triggered through the bindings, so a binding that raised a bare
`ValueError` (or a class of its own) again would fail here; the CLI's exit code for each
family is checked through `run_app`.
"""

from __future__ import annotations

import importlib
import sys
from array import array
from collections.abc import Callable
from pathlib import Path

import pytest
import typer

from tablecert import _core, errors
from tablecert._core import _testing
from tablecert.cli.common import run_app
from tablecert.errors import (
    CardError,
    CoreArgumentError,
    LogError,
    NistError,
    RulesError,
    TableCertError,
    TileError,
)


def _unreadable_log(tmp_path: Path) -> None:
    _core.ShuffleAudit("cards52").read_file(str(tmp_path / "missing.jsonl"))


#: (what goes wrong, the call that raises it in the core, the class it must raise).
CORE_FAILURES: list[tuple[str, Callable[[Path], object], type[TableCertError]]] = [
    ("a bad card", lambda _: _core.parse_hand("Zz"), CardError),
    ("a duplicate card", lambda _: _core.colex_index([0, 0]), CardError),
    (
        "a ragged card array",
        lambda _: _core.strength_keys(b"\0" * 4, 5, _core.TieBreaks(False)),
        CardError,
    ),
    ("a bad tile", lambda _: _core.parse_tiles("9x"), TileError),
    ("a bad tile set", lambda _: _core.tile_types("mahjong7"), RulesError),
    ("a bad suit order", lambda _: _core.TieBreaks(True, suit_order="shcx"), RulesError),
    ("a bad deck", lambda _: _core.ShuffleAudit("tarot78"), RulesError),
    ("a bad shuffle model", lambda _: _core.ShuffleSimulator("no-such-model"), RulesError),
    ("an unreadable log", _unreadable_log, LogError),
    (
        "a bad NIST parameter",
        lambda _: _testing.dft_peak_counts(b"\0" * 8, 1, 1, "test"),
        NistError,
    ),
    ("a bad NIST test", lambda _: _core.nist_run(b"\0", 8, 1, ["no-such-test"], {}), NistError),
    (
        "a wrongly shaped buffer",
        lambda _: _core.KeyTable(3, _core.TieBreaks(False)).check_scores(array("i", [0, 0, 0])),
        CoreArgumentError,
    ),
]


@pytest.mark.parametrize(
    ("call", "kind"),
    [(call, kind) for _, call, kind in CORE_FAILURES],
    ids=[what for what, _, _ in CORE_FAILURES],
)
def test_each_core_error_is_a_tablecert_error(
    tmp_path: Path, call: Callable[[Path], object], kind: type[TableCertError]
) -> None:
    with pytest.raises(TableCertError) as caught:
        call(tmp_path)
    assert type(caught.value) is kind
    assert isinstance(caught.value, ValueError)
    assert type(caught.value).__module__ == "tablecert.errors"
    assert str(caught.value)  # the message names what was wrong


def test_except_tablecert_error_catches_a_bad_card() -> None:
    caught: TableCertError | None = None
    try:
        _core.parse_hand("As Zz")
    except TableCertError as exc:  # the clause a caller of tablecert writes
        caught = exc
    assert isinstance(caught, CardError)
    assert '"Zz"' in str(caught)


def test_the_cores_exception_attributes_are_the_errors_modules_classes() -> None:
    exported = {
        name: value
        for name, value in vars(_core).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    }
    assert exported == {
        "CardError": CardError,
        "LogError": LogError,
        "NistError": NistError,
        "RulesError": RulesError,
        "TileError": TileError,
    }


def test_every_public_exception_is_a_tablecert_error() -> None:
    listed = [getattr(errors, name) for name in errors.__all__ if name.endswith("Error")]
    elsewhere = [getattr(importlib.import_module(m), name) for m, name in errors.ELSEWHERE]
    assert len(listed) == 19
    assert len(elsewhere) == 11
    for cls in listed + elsewhere:
        assert issubclass(cls, TableCertError), cls


def _exit_code(
    error: Exception, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """The exit status and stderr of a command that raises `error`, run under `run_app`."""
    monkeypatch.setattr(sys, "argv", ["tablecert", "fail"])
    app = typer.Typer()

    @app.command()
    def fail() -> None:
        raise error

    @app.command()
    def other() -> None:
        """A second command, so that `fail` is named as in tablecert's tree."""

    with pytest.raises(SystemExit) as exited:
        run_app(app)
    assert isinstance(exited.value.code, int)
    return exited.value.code, capsys.readouterr().err


@pytest.mark.parametrize("kind", [CardError, TileError, RulesError, LogError, NistError])
def test_a_core_error_is_an_input_error(
    kind: type[TableCertError],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, err = _exit_code(kind("bad value 'x'"), monkeypatch, capsys)
    assert (code, err) == (2, "error: bad value 'x'\n")


def test_a_bad_call_into_the_core_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _exit_code(CoreArgumentError("3 scores for 4 hands"), monkeypatch, capsys)
    assert code == 4
    assert err.startswith("internal error: CoreArgumentError: 3 scores for 4 hands (a bug")

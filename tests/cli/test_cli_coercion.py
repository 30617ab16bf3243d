"""tablecert.cli.coercion converts a command-line value as Typer's pydantic adapter does.

On a grid of values for each parameter type it serves (``str``, ``bool``, ``int``, ``float``,
``Path`` with Typer's path checks, and lists of them, with bounds), the plain conversion and
Typer's own give the same value of the same type, or the same error; and the values a command
line usually carries are converted without the adapter (so without pydantic).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer._coercion import TypeDescriptor, build_runtime_param, resolve_type_descriptor
from typer.models import ArgumentInfo, OptionInfo

from tablecert.cli.coercion import PlainParam, is_plain, runtime_param


def outcome(descriptor: TypeDescriptor, value: Any, plain: bool) -> tuple[Any, ...]:
    param = runtime_param(descriptor) if plain else build_runtime_param(descriptor)
    try:
        got = param._coerce_value(value, param=None, ctx=None)  # type: ignore[arg-type]
    except Exception as exc:  # the error itself is compared
        return ("error", type(exc).__name__, str(exc))
    items = got if isinstance(got, list) else [got]
    return ("value", type(got), repr(got), [type(x) for x in items])  # repr: nan is nan


NUMBER_TEXTS = [
    *("0", "1", "-1", "7", "10", "11", "+1", "01", " 1", "1 ", "1_0", "1.0", "1.5", ".5"),
    *("5.", "-0", "-0.0", "0.1", "0.05", "0.01", "1e-2", "1E5", "2e+3", "1e400", "1e-400"),
    *("nan", "inf", "-inf", "x", "", "99999999999999999999", "123456789012345678.5"),
    *("0.30000000000000004", "3.141592653589793238", "1" * 18, "-" + "9" * 18),
]
NUMBER_VALUES: list[Any] = [*NUMBER_TEXTS, 0, 1, 5, -3, 2.0, 0.25, True, None, b"1"]

CASES: list[tuple[str, Any, Any, list[Any]]] = [
    ("str", str, OptionInfo(), ["", "a", " a ", "é", "-", "1", "a\0b", b"x", 1, True]),
    ("str argument", str, ArgumentInfo(), ["q-poker", "9s 9h 5d", ""]),
    ("str, path options", str, OptionInfo(path_type=str, allow_dash=True), ["-", "a", "", 1]),
    ("bool", bool, OptionInfo(), [True, False, "true", "1", "no", "", 1, 0]),
    ("int", int, OptionInfo(), NUMBER_VALUES),
    ("int min 1", int, OptionInfo(min=1), NUMBER_VALUES),
    ("int 1..10", int, OptionInfo(min=1, max=10), NUMBER_VALUES),
    ("int clamped", int, OptionInfo(min=1, max=10, clamp=True), NUMBER_VALUES),
    ("float", float, OptionInfo(), NUMBER_VALUES),
    ("float 0..1", float, OptionInfo(min=0, max=1), NUMBER_VALUES),
    ("float min 0.5", float, OptionInfo(min=0.5), NUMBER_VALUES),
]


@pytest.mark.parametrize(
    ("annotation", "info", "values"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_plain_values_are_typers(annotation: Any, info: Any, values: list[Any]) -> None:
    descriptor = resolve_type_descriptor(annotation, info)
    assert is_plain(descriptor)
    for value in values:
        assert outcome(descriptor, value, True) == outcome(descriptor, value, False), value
    listed = resolve_type_descriptor(list[annotation], info)
    assert is_plain(listed)
    for items in ([], values[:3], values, [values[0]], tuple(values[:2])):
        assert outcome(listed, items, True) == outcome(listed, items, False), items


def path_infos() -> list[Any]:
    return [
        OptionInfo(),
        ArgumentInfo(),
        OptionInfo(exists=True),
        OptionInfo(exists=True, dir_okay=False),
        OptionInfo(exists=True, file_okay=False),
        OptionInfo(dir_okay=False),
        OptionInfo(file_okay=False, exists=True, resolve_path=True),
        OptionInfo(allow_dash=True),
        OptionInfo(allow_dash=True, exists=True),
        OptionInfo(resolve_path=True),
        OptionInfo(writable=True, exists=True),
        OptionInfo(readable=False),
    ]


@pytest.mark.parametrize("info", path_infos(), ids=lambda i: repr(vars(i))[:60])
def test_plain_paths_are_typers(tmp_path: Path, info: Any) -> None:
    (tmp_path / "log.csv").write_text("x\n")
    (tmp_path / "sub").mkdir()
    values: list[Any] = [
        str(tmp_path / "log.csv"),
        str(tmp_path / "sub"),
        str(tmp_path / "missing.csv"),
        str(tmp_path / "sub") + "/",
        "log.csv",
        "-",
        "",
        "a\0b",
        tmp_path / "log.csv",
        tmp_path / "missing",
        1,
        None,
    ]
    descriptor = resolve_type_descriptor(Path, info)
    assert is_plain(descriptor)
    for value in values:
        assert outcome(descriptor, value, True) == outcome(descriptor, value, False), value
    listed = resolve_type_descriptor(list[Path], info)
    for items in ([], values[:2], values[:4], values):
        assert outcome(listed, items, True) == outcome(listed, items, False), items


def test_usual_values_need_no_adapter(tmp_path: Path) -> None:
    # What the light commands' lines carry is converted without Typer's adapter: pydantic is
    # neither imported nor built for them (tests/cli/test_cli_startup.py checks the import).
    log = tmp_path / "log.csv"
    log.write_text("x\n")
    usual: list[tuple[Any, Any, Any]] = [
        (str, OptionInfo(), "q-poker"),
        (int, OptionInfo(min=1), "100000"),
        (float, OptionInfo(), "0.01"),
        (float, OptionInfo(min=0, max=1), 0.99),
        (bool, OptionInfo(), False),
        (Path, ArgumentInfo(exists=True, dir_okay=False), str(log)),
        (list[Path], ArgumentInfo(exists=True), (str(log), str(log))),
        (list[str], OptionInfo(), ("Frequency", "Runs")),
    ]
    for annotation, info, value in usual:
        param = runtime_param(resolve_type_descriptor(annotation, info))
        assert isinstance(param, PlainParam)
        param._coerce_value(value, param=None, ctx=None)
        assert param._adapter == [], (annotation, value)


def test_other_types_keep_typers_adapter() -> None:
    # A parser, a choice or a type the plain conversion does not know: Typer's own.
    from enum import StrEnum

    class Deck(StrEnum):
        CARDS52 = "cards52"

    for annotation, info in [
        (str, OptionInfo(parser=str.upper)),
        (Deck, OptionInfo()),
        (list[Deck], OptionInfo()),
        (bytes, OptionInfo()),
    ]:
        descriptor = resolve_type_descriptor(annotation, info)
        assert not is_plain(descriptor)
        assert not isinstance(runtime_param(descriptor), PlainParam)

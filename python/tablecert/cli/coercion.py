"""Command-line values converted without pydantic where the conversion is plain.

Typer 0.29 converts every parameter's value with a pydantic ``TypeAdapter`` that it builds when
the command parses its arguments: importing pydantic and building the adapters cost a light
command (``audit rng``, ``check``, ``verify``, ...) about 50 ms of its start-up. Most values
need none of it: a ``str`` is itself, ``"10"`` is ``int("10")``, a path is ``Path(text)``
followed by Typer's own checks (:func:`typer._param_types.coerce_cli_path`).
:func:`plain_coercion` makes Typer use :class:`PlainParam` for the parameters whose type is
one of those (``str``, ``bool``, ``int``, ``float``, ``Path``, and lists of them, with no parser
of their own), which returns what Typer's adapter returns for a value it can convert plainly
(tests/cli/test_cli_coercion.py checks the two against each other on a grid) and hands every
other value, every bad one included, to Typer's adapter, so every error message is Typer's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import coerce_cli_path, routes_to_path
from typer.core import _TyperParameter
from typer.models import ParameterInfo

#: A value :func:`plain` does not convert (Typer's adapter does).
NOT_PLAIN: Any = object()

# Decimal text that int() and float() read exactly as pydantic does (no sign but "-", no
# spaces, underscores, leading zeros, "inf" or "nan": those go to the adapter).
_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?(?:[eE]-?[1-9][0-9]?)?")
_LEAVES = (str, bool, int, float, Path)


def _number(value: Any, kind: type[int] | type[float], info: ParameterInfo) -> Any:
    if info.clamp:
        return NOT_PLAIN
    text = type(value) is str and (_INT if kind is int else _FLOAT).fullmatch(value)
    if not (text or type(value) is kind or (kind is float and type(value) is int)):
        return NOT_PLAIN
    number = kind(value)
    if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
        return NOT_PLAIN  # the adapter says why
    return number


def plain(annotation: Any, info: ParameterInfo, value: Any, param: Any, ctx: Any) -> Any:
    """``value`` as Typer's adapter for ``annotation`` returns it, or :data:`NOT_PLAIN`."""
    if get_origin(annotation) is list:
        if not isinstance(value, list | tuple):
            return NOT_PLAIN
        items = [plain(get_args(annotation)[0], info, item, param, ctx) for item in value]
        return NOT_PLAIN if any(item is NOT_PLAIN for item in items) else items
    if annotation is str:
        return value if type(value) is str else NOT_PLAIN
    if annotation is bool:
        return value if type(value) is bool else NOT_PLAIN
    if annotation is int or annotation is float:
        return _number(value, annotation, info)
    if annotation is Path:
        if type(value) is str and value and "\0" not in value:
            value = Path(value)
        if type(value) is not type(Path()):
            return NOT_PLAIN
        try:
            return coerce_cli_path(value, info, path_type=Path, param=param, ctx=ctx)
        except Exception:  # a bad path: the adapter raises Typer's own error for it
            return NOT_PLAIN
    return NOT_PLAIN


def is_plain(descriptor: TypeDescriptor) -> bool:
    """Whether :class:`PlainParam` serves the parameter ``descriptor`` describes."""
    info = descriptor.parameter_info
    annotation: Any = descriptor.annotation
    if descriptor.file_annotation is not None or info.parser is not None:
        return False
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation) or (None,)
    if annotation not in _LEAVES:
        return False
    if annotation is Path:
        return info.path_type is None and routes_to_path(annotation, info)
    return not routes_to_path(annotation, info)


@dataclass(frozen=True)
class PlainParam(RuntimeParam):
    """A parameter's conversion: :func:`plain`, else Typer's adapter (built on first need)."""

    descriptor: TypeDescriptor | None = None
    _adapter: list[RuntimeParam] = field(default_factory=list, compare=False, repr=False)

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        got = plain(self.annotation, self.parameter_info, value, param, ctx)
        if got is not NOT_PLAIN:
            return got
        if not self._adapter:
            assert self.descriptor is not None
            self._adapter.append(build_runtime_param(self.descriptor))
        return self._adapter[0]._coerce_value(value, param=param, ctx=ctx)


def runtime_param(descriptor: TypeDescriptor) -> RuntimeParam:
    """The conversion of one parameter: :class:`PlainParam` where it serves, else Typer's."""
    if is_plain(descriptor):
        return PlainParam(
            parameter_info=descriptor.parameter_info,
            annotation=descriptor.annotation,
            descriptor=descriptor,
        )
    return build_runtime_param(descriptor)


def plain_coercion() -> None:
    """Make every Typer parameter convert its value with :func:`runtime_param`."""
    if getattr(_TyperParameter.get_runtime_param, "_tablecert", False):
        return

    def get_runtime_param(self: _TyperParameter) -> RuntimeParam:
        if self._runtime_param is None:
            self._runtime_param = runtime_param(self.type_descriptor)
        return self._runtime_param

    get_runtime_param._tablecert = True  # type: ignore[attr-defined]
    _TyperParameter.get_runtime_param = get_runtime_param  # type: ignore[method-assign]

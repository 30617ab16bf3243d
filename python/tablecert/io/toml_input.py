"""TOML text parsed as input: the parser's one failure that is not a ``TOMLDecodeError``.

``tomllib`` converts integers with ``int()``, which refuses more digits than
``sys.get_int_max_str_digits()`` with a plain ``ValueError``; here that is an input error
naming the file and line, like every other malformed value.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Callable
from typing import Any

_DIGITS = re.compile(r"[0-9][0-9_]*")


def loads(
    text: str,
    source: object,
    error: Callable[[str], Exception],
    *,
    parse_float: Callable[[str], Any] = float,
) -> dict[str, Any]:
    """``tomllib.loads``; a ``TOMLDecodeError`` propagates (callers word it), an integer
    too long to convert is ``error("SOURCE:LINE: ...")``."""
    try:
        return tomllib.loads(text, parse_float=parse_float)
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:
        limit = sys.get_int_max_str_digits()
        for number, line in enumerate(text.splitlines(), start=1):
            for run in _DIGITS.findall(line):
                digits = len(run.replace("_", ""))
                if digits > limit:
                    raise error(
                        f"{source}:{number}: a number of {digits} digits: longer than "
                        f"tablecert reads ({limit} digits)"
                    ) from None
        raise error(f"{source}: a number longer than tablecert reads ({limit} digits)") from None

"""Text from outside made visible: the characters that move a terminal's cursor, reorder or hide
text, shown as escapes (``\\x1b``, ``\\u202e``) wherever tablecert prints or renders them.

One set of characters for every output: the terminal (``plain``), the HTML and PDF report
(``controls_escaped``) and the certificate's identification fields, which refuse them (``hidden``).
A log's device id ``B\\u202eLIAF`` cannot make a page read "FAIL" backwards, nor an ESC
sequence recolour a line, nor a zero-width or soft-hyphen character make two names look alike.
"""

from __future__ import annotations

import re

#: C0 controls, DEL, C1 controls, and the Unicode format characters that reorder or hide text:
#: the Arabic letter mark, the soft hyphen, zero-width space, joiners and direction marks,
#: line and paragraph separators, bidirectional embeddings, overrides and isolates, the word
#: joiner and invisible operators, the Mongolian vowel separator, the byte-order mark and the
#: interlinear annotation characters.
SHOWN_AS_ESCAPES = frozenset(
    (
        *range(0x20),
        0x7F,
        *range(0x80, 0xA0),
        0xAD,
        0x61C,
        0x180E,
        *range(0x200B, 0x2010),
        0x2028,
        0x2029,
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2065),
        *range(0x2066, 0x206A),
        0xFEFF,
        *range(0xFFF9, 0xFFFC),
    )
)
_PATTERN = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(SHOWN_AS_ESCAPES)) + "]")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}
_NAMED_ESCAPES_BUT_BACKSLASH = {k: v for k, v in _NAMED_ESCAPES.items() if k != "\\"}


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plain(value: object, backslashes: bool = True) -> str:
    """``value`` as text that a terminal shows literally: backslashes doubled, newlines, tabs,
    escape sequences and other control or text-direction characters written as ``\\n``,
    ``\\x1b``, ``\\u202e``. Use it for every string read from outside before printing it.
    ``backslashes=False`` leaves backslashes single: for a message that quotes an outside
    value already escaped (its ``repr``), which doubling would escape twice."""
    text = value if isinstance(value, str) else str(value)
    if not (_PATTERN.search(text) or (backslashes and "\\" in text)):
        return text
    named = _NAMED_ESCAPES if backslashes else _NAMED_ESCAPES_BUT_BACKSLASH
    return "".join(named.get(ch) or (_escape(ch) if _PATTERN.match(ch) else ch) for ch in text)


def controls_escaped(text: str, keep: str = "\n\t") -> str:
    """``text`` with every character of the set except those in ``keep`` written as an escape,
    backslashes left as they are: for an HTML page (newlines and tabs are its white space) and
    the consoles' second line of defence behind ``plain``."""
    if not _PATTERN.search(text):
        return text
    return _PATTERN.sub(lambda m: m.group() if m.group() in keep else _escape(m.group()), text)


def hidden(text: str, allowed: str = "\t") -> str | None:
    """The first character of the set in ``text`` other than those in ``allowed``, or None."""
    for match in _PATTERN.finditer(text):
        if match.group() not in allowed:
            return match.group()
    return None

"""Par sheets as spreadsheets: what labs and casinos exchange (``.xlsx``, or ``.csv``).

Made from a par sheet's JSON (``QPokerAnalysis.as_json()``, ``CaribbeanAnalysis.as_json()``,
or a described stud game's ``StudAnalysis.as_json()``), so the file says exactly what
``--json`` says: a Summary sheet (game, the rule file and its SHA-256, every bet's house edge
and element of risk, exact and decimal, the optimal strategy), one sheet per bet with its
return table (outcome, article, pays "n to 1", units won, combinations, probability, return; a
totals row: every combination, probability 1, the expected value) and, for Caribbean Stud, a
Progressive sheet (its terms, returns and pay table) and a Royal option sheet (the house edge
at each royal payout the house may choose); for a described game, a Strategy sheet (the
decisions by the player's category) and, when computed, a Cap curve sheet (the house edge at
each per-round maximum payout). The sheets of every game are written by the same writer.
Text from the rule file (its name, title, articles) is never a formula: a string cell in the
workbook, and in the CSV a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a CR is
prefixed with ``'`` (OWASP's rule). In the workbook the combinations are integers and the
decimals (units won too) numbers (the exact fractions stay text beside them); in the CSV every
cell is the JSON's text, each row led by its sheet's name. Both files are byte-identical for
the same par sheet (fixed timestamps, sorted archive), so a certification can sign them.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path, PurePath
from typing import Any

from tablecert.errors import OutputError, TableCertError
from tablecert.exact import exact_json
from tablecert.io.outputs import check_new_file, output_folder, write_atomic

Cell = str | int | Decimal
Sheet = tuple[str, list[list[Cell]]]
FORMATS = (".xlsx", ".csv")
RETURN_HEADER = [
    "outcome",
    "article",
    "pays",
    "units won",
    "units won (exact)",
    "combinations",
    "probability",
    "probability (exact)",
    "return",
    "return (exact)",
]
_EPOCH = (1980, 1, 1, 0, 0, 0)  # the zip format's first representable moment
_CORE_DATE = "2000-01-01T00:00:00Z"


class ExportError(TableCertError):
    """A par-sheet export that cannot be written (format, path)."""


#: The schema of a described stud game's par sheet (``games.stud.StudAnalysis.as_json()``).
STUD_SCHEMA = "tablecert.stud-analysis/1"
#: The files ``analyze game FILE --export DIR`` writes (``export_folder``).
FOLDER_FILES = ("par-sheet.xlsx", "par-sheet.csv", "strategy.csv")
#: The bet against the dealer of a described game, as its sheet is named.
AGAINST_THE_DEALER = "Against the dealer"


def bets(data: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(sheet name, the bet's JSON) of every bet of a par sheet (a side bet's sheet is named
    by the bet, made a valid and distinct sheet name)."""
    if data.get("schema") == STUD_SCHEMA:
        out: list[tuple[str, Mapping[str, Any]]] = [(AGAINST_THE_DEALER, data)]
        taken = {"summary", "strategy", "cap curve", AGAINST_THE_DEALER.lower()}
        for bet in data["side_bets"]:
            name = sheet_name(str(bet["name"]), taken)
            taken.add(name.lower())
            out.append((name, bet))
        return out
    if data["game"] == "q-poker":
        return [("Pair Plus", data["pair_plus"]), ("Ante-Play", data["play"])]
    if data["game"] == "caribbean-stud":
        return [("Ante-Raise", data)]
    raise ExportError(f"no par-sheet export for the game {data['game']!r}")


def _number(value: Mapping[str, str]) -> Decimal:
    return Decimal(value["decimal"])


def _exact(value: Mapping[str, str]) -> Fraction:
    return Fraction(value["exact"])


def _total(label: str, values: Sequence[Fraction]) -> list[Cell]:
    """A total's decimal and exact cells, as the JSON writes an exact value."""
    exact = exact_json(sum(values, Fraction(0)))
    return [label, Decimal(exact["decimal"]), exact["exact"]]


def _return_rows(bet: Mapping[str, Any]) -> list[list[Cell]]:
    """A bet's return table: one row per outcome (units won a number, its exact fraction
    beside it), then the totals: every combination, probability 1 and the expected value."""
    rows: list[list[Cell]] = [list(RETURN_HEADER)]
    for r in bet["rows"]:
        rows.append(
            [
                r["event"],
                r["article"],
                r["pays"],
                _number(r["value"]),
                r["value"]["exact"],
                int(r["count"]),
                _number(r["probability"]),
                r["probability"]["exact"],
                _number(r["return"]),
                r["return"]["exact"],
            ]
        )
    probability = _total("", [_exact(r["probability"]) for r in bet["rows"]])
    ev = _total("", [_exact(r["return"]) for r in bet["rows"]])
    count = sum(int(r["count"]) for r in bet["rows"])
    rows.append(["total (expected value)", "", "", "", "", count, *probability[1:], *ev[1:]])
    return rows


PRIZE_HEADER = [
    "category",
    "article",
    "combinations",
    "probability",
    "probability (exact)",
    "fixed prize",
    "fixed prize (exact)",
    "meter share",
    "meter share (exact)",
    "prize at the meter",
    "prize at the meter (exact)",
]


def progressive_rows(prog: Mapping[str, Any]) -> list[list[Cell]]:
    """Caribbean Stud's progressive (Art. 10): its terms and returns, then its pay table per
    category (probability, fixed prize, meter share, the prize at the rule file's meter)."""

    def line(label: str, value: Mapping[str, str]) -> list[Cell]:
        return [label, _number(value), value["exact"]]

    rows: list[list[Cell]] = [
        ["term", "value", "value (exact)"],
        line("bet", prog["bet"]),
        line("meter", prog["meter"]),
        line("seed", prog["seed"]),
        line("contribution per bet", prog["contribution"]),
        line("return at the meter", prog["return_at_meter"]),
        line("return at the seed", prog["return_at_seed"]),
        line("break-even meter", prog["break_even_meter"]),
    ]
    run = prog["long_run"]
    if "return" in run:
        rows.append(line(f"long-run return ({run['players']} players)", run["return"]))
        if run["player_advantage"]:
            rows.append(["PLAYER ADVANTAGE", "the prizes exceed the bets in the long run"])
    else:
        rows.append(["long-run return", "not computed", run["not_computed"]])
    rows += [[], list(PRIZE_HEADER)]
    for p in prog["prizes"]:
        rows.append(
            [
                p["category"],
                p["article"],
                int(p["count"]),
                *line("", p["probability"])[1:],
                *line("", p["fixed"])[1:],
                *line("", p["meter_share"])[1:],
                *line("", p["prize_at_meter"])[1:],
            ]
        )
    probability = _total("", [_exact(p["probability"]) for p in prog["prizes"]])
    count = sum(int(p["count"]) for p in prog["prizes"])
    rows.append(["total (paying hands)", "", count, *probability[1:]])
    return rows


#: What a sheet's name may not hold (the workbook format's rule), and its longest length.
_SHEET_FORBIDDEN = re.compile(r"[\[\]:*?/\\\x00-\x1f]")
_SHEET_LENGTH = 31


def sheet_name(text: str, taken: set[str]) -> str:
    """A valid sheet name for ``text`` (a rule file's bet name: untrusted): forbidden
    characters replaced, at most 31 characters, distinct (case-free) from ``taken``."""
    base = _SHEET_FORBIDDEN.sub("-", text).strip().strip("'") or "Side bet"
    name = base[:_SHEET_LENGTH]
    n = 2
    while name.lower() in taken:
        suffix = f" ({n})"
        name = base[: _SHEET_LENGTH - len(suffix)] + suffix
        n += 1
    return name


def _header(data: Mapping[str, Any]) -> list[list[Cell]]:
    """The Summary's first lines: what was analysed, under which rule file."""
    if data.get("schema") == STUD_SCHEMA:
        return [
            ["par sheet", data["title"]],
            ["game", "described by its rule file"],
            ["rule file", PurePath(data["rules"]).name],
            ["rule file SHA-256", data["rules_sha256"]],
            ["situations", int(data["situations"])],
            ["dealer completions per situation", int(data["completions_per_situation"])],
            *_cap_line(data.get("per_round_cap")),
        ]
    return [
        ["par sheet", data["title"]],
        ["game", data["game"]],
        ["rule file", PurePath(data["rules"]).name],
        ["rule file SHA-256", data["rules_sha256"]],
        ["hand ordering", data["ordering"]],
    ]


def _cap_line(cap: Mapping[str, Any] | None) -> list[list[Cell]]:
    """The per-round maximum payout a described game's sheet was computed under, if any."""
    if cap is None:
        return []
    covers = f"{', '.join(cap['bets'])} on {', '.join(cap['categories'])}"
    return [
        [
            "per-round maximum payout",
            f"{cap['maximum_payout']} against an ante of {cap['ante']} "
            f"({cap['antes']['exact']} antes): {covers}",
            cap["article"],
        ]
    ]


def _strategy_lines(data: Mapping[str, Any]) -> list[str]:
    """The optimal strategy in words (a described game's: how often each decision is taken;
    its table by category is the Strategy sheet)."""
    if data.get("schema") == STUD_SCHEMA:
        return [
            f"{d['decision']}: {d['situations']} situations (probability "
            f"{d['probability']['exact']} = {d['probability']['decimal']})"
            for d in data["decisions"]
        ]
    if data["game"] == "q-poker":
        return [data["play"]["strategy"]["description"]]
    return list(data["strategy"])


def stud_strategy_rows(data: Mapping[str, Any]) -> list[list[Cell]]:
    """A described game's strategy by the player's category: situations per decision."""
    names = [d["decision"] for d in data["decisions"]]
    rows: list[list[Cell]] = [["category", *(f"situations: {n}" for n in names), "indifferent"]]
    for s in data["strategy"]:
        rows.append(
            [s["category"], *(int(s["situations"][n]) for n in names), int(s["indifferent"])]
        )
    return rows


def cap_rows(curve: Sequence[Mapping[str, Any]]) -> list[list[Cell]]:
    """The house edge at each per-round maximum payout (0 = none), and how it was computed."""
    rows: list[list[Cell]] = [
        [
            "maximum payout",
            "house edge",
            "house edge (exact)",
            "element of risk",
            "element of risk (exact)",
            "method",
        ]
    ]
    for p in curve:
        edge, risk = p["house_edge"], p["element_of_risk"]
        rows.append(
            [
                str(p["maximum_payout"]),
                _number(edge),
                edge["exact"],
                _number(risk),
                risk["exact"],
                p["method"],
            ]
        )
    return rows


def sheets(data: Mapping[str, Any]) -> list[Sheet]:
    """The Summary sheet and one return table per bet, cells as the JSON gives them (decimal
    strings as ``Decimal``, counts as ``int``), and the game's own sheets."""
    summary: list[list[Cell]] = [
        *_header(data),
        [],
        [
            "bet",
            "house edge",
            "house edge (exact)",
            "element of risk",
            "element of risk (exact)",
        ],
    ]
    for name, bet in bets(data):
        row: list[Cell] = [name, _number(bet["house_edge"]), bet["house_edge"]["exact"]]
        risk = bet.get("element_of_risk")
        if risk is not None:  # the 多寶 bet has no later stake: no element of risk
            row += [_number(risk), risk["exact"]]
        summary.append(row)
    summary += [[], ["optimal strategy"]]
    summary += [[line] for line in _strategy_lines(data)]
    out: list[Sheet] = [("Summary", summary)]
    out += [(name, _return_rows(bet)) for name, bet in bets(data)]
    if data.get("schema") == STUD_SCHEMA:
        out.append(("Strategy", stud_strategy_rows(data)))
    if data.get("cap_curve"):
        out.append(("Cap curve", cap_rows(data["cap_curve"])))
    if "progressive" in data:
        out.append(("Progressive", progressive_rows(data["progressive"])))
    if data.get("royal_curve"):
        out.append(("Royal option", royal_rows(data["royal_curve"])))
    return out


def royal_rows(curve: Sequence[Mapping[str, Any]]) -> list[list[Cell]]:
    """Caribbean Stud's royal option (the raise's royal payout the house may choose): the house
    edge at each payout, and how it was computed."""
    rows: list[list[Cell]] = [["royal pays (to 1)", "house edge", "house edge (exact)", "method"]]
    for p in curve:
        edge = p["house_edge"]
        rows.append([int(p["royal_pays"]), _number(edge), edge["exact"], p["method"]])
    return rows


def write_par_sheet(data: Mapping[str, Any], path: Path, *, replace: bool = False) -> Path:
    """Write the par sheet to ``path`` (.xlsx or .csv by its suffix), atomically; an existing
    file is replaced only with ``replace``, and never a link, folder or device."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ExportError(f"{path}: a par sheet is written as {' or '.join(FORMATS)}")
    try:
        check_new_file(path, replace=replace, what="par sheet")
        content = xlsx_bytes(sheets(data)) if suffix == ".xlsx" else csv_bytes(sheets(data))
        write_atomic(path, content, what="par sheet")
    except OutputError as exc:
        raise ExportError(str(exc)) from None
    return path


#: What a spreadsheet program takes as the start of a formula (or of a cell it rewrites):
#: OWASP's CSV-injection characters.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:/[0-9]+)?")


def inert(text: str) -> str:
    """A text cell for the CSV: one that a spreadsheet would read as a formula is prefixed
    with a single quote (a negative number written as text, such as an exact "-1/20", is a
    number and stays as it is)."""
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_bytes(tables: Sequence[Sheet]) -> bytes:
    """Every sheet's rows, each led by the sheet's name (one file, UTF-8 with a BOM so that
    spreadsheet programs read the Chinese articles); text cells are made inert (``inert``)."""
    return table_csv_bytes([name, *row] for name, rows in tables for row in rows)


def table_csv_bytes(rows: Iterable[Sequence[Cell]]) -> bytes:
    """Rows as one CSV file (UTF-8 with a BOM, CRLF), text cells made inert (``inert``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        writer.writerow([inert(c) if isinstance(c, str) else str(c) for c in row])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def check_folder(folder: Path, *, replace: bool = False) -> None:
    """Refuse an export folder before the analysis runs: not a folder (or no parent to make
    it in), or holding one of the files already (replaced only with ``replace``; a link,
    folder or device never)."""
    try:
        output_folder(folder, FOLDER_FILES, force=replace, create=False)
        for name in FOLDER_FILES:
            if (folder / name).exists() or (folder / name).is_symlink():
                check_new_file(folder / name, replace=replace, what="export")
    except OutputError as exc:
        raise ExportError(str(exc)) from None


def export_folder(
    data: Mapping[str, Any], strategy: Sequence[Sequence[Cell]], folder: Path, *, replace: bool
) -> list[Path]:
    """Write a described game's par sheet (``par-sheet.xlsx``, ``par-sheet.csv``) and its
    strategy by hand class (``strategy.csv``, rows as given) into ``folder``, each file
    atomically; an existing file is replaced only with ``replace``."""
    check_folder(folder, replace=replace)
    tables = sheets(data)
    contents = (xlsx_bytes(tables), csv_bytes(tables), table_csv_bytes(strategy))
    try:
        out = output_folder(folder, FOLDER_FILES, force=replace)
        paths = []
        for name, content in zip(FOLDER_FILES, contents, strict=True):
            path = check_new_file(out / name, replace=replace, what="export")
            paths.append(write_atomic(path, content, what="export"))
    except OutputError as exc:
        raise ExportError(str(exc)) from None
    return paths


def xlsx_bytes(tables: Sequence[Sheet]) -> bytes:
    """The workbook, byte-identical for the same sheets (fixed dates, zip entries in order)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    book = Workbook()
    book.remove(book.active)
    for name, rows in tables:
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append([float(c) if isinstance(c, Decimal) else c for c in row])
            for cell, value in zip(sheet[sheet.max_row], row, strict=False):
                if isinstance(value, str):  # text stays text: never a formula cell
                    cell.data_type = "s"
        widths: dict[int, int] = {}
        for row in rows:
            for i, cell in enumerate(row, start=1):
                widths[i] = max(widths.get(i, 0), min(60, len(str(cell)) + 2))
        for i, width in widths.items():
            sheet.column_dimensions[get_column_letter(i)].width = width
        for at in range(1, len(rows) + 1):  # headings: the first row, any after a gap
            if at == 1 or not rows[at - 2]:
                for cell in sheet[at]:
                    cell.font = Font(bold=True)
        if name != "Summary":
            sheet.freeze_panes = "A2"  # the header stays in view
        if rows and rows[-1] and str(rows[-1][0]).startswith("total"):
            for cell in sheet[len(rows)]:
                cell.font = Font(bold=True)
        formats = _column_formats(rows)
        for at, row in enumerate(sheet.iter_rows(), start=1):
            for cell in row:
                if isinstance(cell.value, float | int) and (at, cell.column) in formats:
                    cell.number_format = formats[at, cell.column]
                elif isinstance(cell.value, float):
                    cell.number_format = "0.000000000"
                elif isinstance(cell.value, int):
                    cell.number_format = "#,##0"
    raw = io.BytesIO()
    book.save(raw)
    return _normalized_zip(raw.getvalue())


#: Number formats of the columns under these headings (the cells keep the exact number): rates
#: as percentages, as a par sheet shows them (5.2241%), units won as they are (201, -0.5).
HEADING_FORMATS = {"house edge": "0.0000%", "element of risk": "0.0000%", "units won": "General"}


def _column_formats(rows: Sequence[Sequence[Cell]]) -> dict[tuple[int, int], str]:
    """The number format of each (row, column), 1-based, under a ``HEADING_FORMATS`` heading
    (a sheet's first row, or a row after a gap), down to the next gap."""
    out: dict[tuple[int, int], str] = {}
    columns: dict[int, str] = {}
    for at, row in enumerate(rows, start=1):
        if not row:
            columns = {}
        elif at == 1 or not rows[at - 2]:
            columns = {
                i: HEADING_FORMATS[c]
                for i, c in enumerate(row, start=1)
                if isinstance(c, str) and c in HEADING_FORMATS
            }
        else:
            out |= {(at, i): f for i, f in columns.items()}
    return out


def _normalized_zip(data: bytes) -> bytes:
    """The archive with every entry's time fixed and the core properties' dates fixed."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            content = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                content = _fixed_dates(content)
            entry = zipfile.ZipInfo(info.filename, date_time=_EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            target.writestr(entry, content)
    return out.getvalue()


def _fixed_dates(core: bytes) -> bytes:
    return re.sub(
        rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)",
        lambda m: m.group(1) + _CORE_DATE.encode() + m.group(3),
        core,
    )


def read_xlsx(path: Path) -> list[tuple[str, list[list[Any]]]]:
    """The workbook's sheets as rows of cell values (trailing empty cells dropped)."""
    from openpyxl import load_workbook

    book = load_workbook(path, read_only=True, data_only=True)
    out = []
    for sheet in book.worksheets:
        rows = []
        for row in sheet.iter_rows(values_only=True):
            cells = list(row)
            while cells and cells[-1] is None:
                cells.pop()
            rows.append(["" if c is None else c for c in cells])
        out.append((sheet.title, rows))
    book.close()
    return out

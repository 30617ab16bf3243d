"""Rule files: what tablecert can compute from one, and what it refuses and why.

``tablecert rules check FILE``: the file read strictly, then each engine of its game prepares
what it would compute (ranking, settlement, par sheet, progressive, fan and payment tables).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from tablecert.cli import common, conventions
from tablecert.cli.common import JsonOption, emit_json, plain, stdout
from tablecert.cli.tables import Column, print_table

app = typer.Typer(
    cls=conventions.CaseFreeGroup, no_args_is_help=True, help=conventions.summary(__doc__)
)


@app.command("check")
def check_rules(
    file: Annotated[str, typer.Argument(help="The rule file (path or bundled name).")],
    json_out: JsonOption = False,
) -> None:
    """Say what the rule file lets tablecert compute, and what it refuses and why.

    Exit status: 0 every engine of the game can compute from the file; 2 the file cannot be
    read, or an engine refuses it (each refusal names the key and its line).
    """
    from tablecert.conformance.rule_file_check import check_rule_file
    from tablecert.rules import load_rules

    result = check_rule_file(load_rules(file))
    if json_out:
        emit_json(result.as_json())
    else:
        stdout.print(
            Text.assemble(
                (plain(result.title), "bold"),
                f" ({plain(result.file)}, game {result.game}): {len(result.values)} values",
            )
        )
        for label, keys in (
            ("readings (ours, configurable)", result.keys_with("reading")),
            ("house choices", result.keys_with("house_choice")),
            ("duties", result.keys_with("duty")),
        ):
            stdout.print(f"{label}: {plain(', '.join(keys)) if keys else 'none'}")
        print_table(
            [Column("computes", wrap=True), Column("from", wrap=True), Column("result", wrap=True)],
            [
                [plain(c.name), plain(c.needs), plain(c.refused) if c.refused else "computable"]
                for c in result.capabilities
            ],
        )
    if not result.computable:
        refused = [c.name for c in result.capabilities if c.refused]
        raise common.fail(f"{result.file}: refused for {'; '.join(refused)}")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="rules")

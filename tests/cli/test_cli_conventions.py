"""One name per concept across commands (docs/cli/conventions.md), old spellings
kept as hidden deprecated aliases, and help without broken metavars."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tablecert.cli import app

runner = CliRunner()


def _commands() -> list[list[str]]:
    """Every command path of the app (hidden ones excluded)."""
    root = typer.main.get_command(app)
    found: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        found.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            if not getattr(sub, "hidden", False):
                walk(sub, [*path, name])

    walk(root, [])
    return found


def test_every_command_help_has_no_bool_metavar_and_one_output_spelling() -> None:
    commands = _commands()
    assert len(commands) > 20
    for path in commands:
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (path, result.output)
        assert "<bool>" not in result.stdout, path
        assert "--out " not in result.stdout, path
        assert "--decks" not in result.stdout, path
        assert "file:RESULTS" not in result.stdout, path


def test_game_is_the_first_argument(tmp_path: Path) -> None:
    for path in (["hands"], ["compare"], ["crosscheck", "poker"], ["mahjong", "score"]):
        usage = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).stdout
        assert "GAME" in usage.upper().split("[OPTIONS]")[1].split()[0], (path, usage)
    assert [p for p in _commands() if p[:2] == ["mahjong", "analyze"]] == []


def test_deprecated_spellings_still_work(tmp_path: Path) -> None:
    out = tmp_path / "log.csv"
    old = runner.invoke(
        app, ["simulate", "shuffler", "--model", "fair", "--decks", "3", "-o", str(out)]
    )
    assert old.exit_code == 0, old.output
    assert "--decks is deprecated; use --shuffles" in old.stderr
    assert len(out.read_text().splitlines()) == 4
    # The same output file again: replacing it takes --force (simulate never overwrites).
    new = runner.invoke(
        app,
        ["simulate", "shuffler", "--model", "fair", "--shuffles", "2", "-o", str(out), "--force"],
    )
    assert new.exit_code == 0, new.output
    assert "is deprecated" not in new.stderr
    assert len(out.read_text().splitlines()) == 3
    scored = runner.invoke(
        app, ["mahjong", "score", "1m 2m 3m Gd Gd", "--game", "mahjong-simple", "--json"]
    )
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.stdout)["fan"] == 1
    assert "deprecated" in scored.stderr


def test_missing_output_is_a_usage_error() -> None:
    result = runner.invoke(app, ["certify", "smoke"])
    assert result.exit_code == 2
    assert "--output" in result.output


@pytest.mark.parametrize("confidence", ["0.99", "0.95"])
def test_rng_confidence_is_per_test(confidence: str, tmp_path: Path) -> None:
    data = tmp_path / "bits.bin"
    data.write_bytes(bytes(range(256)) * 8)
    result = runner.invoke(
        app,
        [
            "audit",
            "rng",
            str(data),
            "--bits",
            "1000",
            "-t",
            "Frequency",
            "--confidence",
            confidence,
            "--json",
        ],
    )
    assert result.stdout, result.output
    alpha = json.loads(result.stdout)["alpha"]
    assert alpha == {"0.99": "0.01", "0.95": "0.05"}[confidence]


def test_stderr_is_not_hard_wrapped_off_a_terminal_and_markup_keeps_text(tmp_path: Path) -> None:
    """grep must see whole lines: a long message on stderr (redirected, at COLUMNS=40) is one
    line, and a TOML table name in brackets is printed, not taken for markup."""
    import os
    import subprocess
    import sys

    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "log.csv"
    deep.parent.mkdir(parents=True)
    env = {**os.environ, "COLUMNS": "40"}
    cmd = [sys.executable, "-m", "tablecert"]
    wrote = subprocess.run(
        [*cmd, "simulate", "shuffler", "--model", "fair", "--shuffles", "2", "-o", str(deep)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert wrote.returncode == 0, wrote.stderr
    assert f"wrote 2 shuffles (fair) to {deep}\n" in wrote.stderr
    config = tmp_path / ("configuration-with-a-long-name-" * 3 + ".toml")
    config.write_text("[pair_plus]\nstraight = 6\n", encoding="utf-8")
    refused = subprocess.run(
        [*cmd, "check", str(config)], capture_output=True, text=True, env=env, check=False
    )
    assert refused.returncode == 2
    lines = refused.stderr.splitlines()
    assert len(lines) == 1, refused.stderr
    assert "[submission]" in lines[0]
    assert str(config) in lines[0]

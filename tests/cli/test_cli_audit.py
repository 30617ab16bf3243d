"""``tablecert simulate shuffler`` and ``tablecert audit shuffler`` through Typer's runner."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from xml.etree import ElementTree

from typer.testing import CliRunner

from tablecert.cli import app
from tests.support.cli_support import tablecert_process

runner = CliRunner()
LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"


def simulate(tmp_path: Path, model: str, decks: int, seed: int = 1) -> Path:
    out = tmp_path / f"{model.replace(':', '-')}.csv.gz"
    result = runner.invoke(
        app,
        ["simulate", "shuffler", "--model", model, "--shuffles", str(decks), "-o", str(out),
         "--seed", str(seed)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_simulated_log_has_the_documented_format(tmp_path: Path) -> None:
    log = simulate(tmp_path, "riffle:4", 3)
    lines = gzip.decompress(log.read_bytes()).decode().splitlines()
    assert lines[0] == "device_id,timestamp,shuffle_id,output,input"
    assert len(lines) == 4
    device, _, shuffle, output, first_input = lines[1].split(",")
    assert (device, shuffle) == ("SIM-1", "1")
    assert first_input.split()[:3] == ["2d", "2c", "2h"]  # a new deck's order
    assert sorted(output.split()) == sorted(first_input.split())
    assert lines[2].split(",")[4] == output  # the next shuffle starts from this output


def test_fair_device_passes(tmp_path: Path) -> None:
    log = simulate(tmp_path, "fair", 3_000)
    result = runner.invoke(
        app, ["audit", "shuffler", str(log), "--input-order", "logged", "--game", "q-poker",
              "--seats", "6", "--batch-size", "250", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "pass"
    assert data["shuffles"] == 3_000
    assert data["batches"] == 12
    keys = [t["key"] for t in data["tests"]]
    assert {"position", "rising", "guessing", "dealt", "second-level"} <= set(keys)
    assert data["holm_rejected"] == []
    for svg in data["plots_svg"].values():
        root = ElementTree.fromstring(svg)  # well-formed, embeddable as is
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
    heatmap = ElementTree.fromstring(data["plots_svg"]["position_residuals"])
    svg = "{http://www.w3.org/2000/svg}"
    cells = heatmap.find(f".//{svg}g[@id='cells']")
    assert cells is not None
    assert len(cells.findall(f"{svg}rect")) == 52 * 52
    texts = [t.text or "" for t in heatmap.iter(f"{svg}text")]
    labels = [t.text for t in heatmap.iter(f"{svg}text") if t.get("font-size") == "9"]
    assert len(labels) == len(set(labels)) == 52  # every card labelled
    assert {"2d", "Ts", "As"} <= set(labels)
    assert "residual (sd)" in texts  # the colour scale
    assert "position in the shuffled order (1 = first dealt)" in texts
    rising = ElementTree.fromstring(data["plots_svg"]["rising_sequences"])
    axis = [t.text or "" for t in rising.iter(f"{svg}text")]
    assert "share of shuffles" in axis
    assert "0%" in axis
    assert any(t.endswith("%") and t != "0%" for t in axis)  # y-axis ticks
    assert "exact law for a uniform shuffle (Eulerian numbers)" in axis


def test_riffled_device_fails_with_a_table(tmp_path: Path) -> None:
    log = simulate(tmp_path, "riffle:3", 300)
    svg_dir = tmp_path / "svg"
    result = runner.invoke(
        app, ["audit", "shuffler", str(log), "--input-order", "logged", "--svg-dir", str(svg_dir)]
    )
    assert result.exit_code == 1, result.output
    assert "verdict: FAIL (randomness)" in result.stdout
    assert "rising" in result.stdout
    assert (svg_dir / "position_residuals.svg").read_text().startswith("<svg")


def test_integrity_failure_is_reported(tmp_path: Path) -> None:
    result = runner.invoke(app, ["audit", "shuffler", str(LOGS / "shuffler-bad.csv")])
    assert result.exit_code == 1
    assert "integrity: 5 bad records" in result.stdout
    assert "shuffler-bad.csv:3: output order: 51 items, expected 52; missing 8d" in result.stdout


def test_unreadable_log_is_one_line_exit_2(tmp_path: Path) -> None:
    data = gzip.compress((LOGS / "shuffler-sample.csv").read_bytes())
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(data[:-30])
    proc = tablecert_process(["audit", "shuffler", str(cut)])
    assert proc.returncode == 2
    assert "cut.csv.gz: corrupt or truncated gzip" in " ".join(proc.stderr.split())
    assert proc.stdout == ""
    usage = runner.invoke(app, ["audit", "shuffler"])
    assert usage.exit_code == 2

"""`symattn latex` on the command line: outputs, files, exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from symattn.cli import main

ROOT = Path(__file__).resolve().parents[1]
SPEC = str(ROOT / "examples" / "000-self-attention.toml")


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True,
                          text=True, input=stdin, timeout=300, cwd=ROOT)


def test_markdown_to_stdout_one_step(capsys):
    assert main(["latex", SPEC, "--step", "Q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Self-attention")
    assert r"&= \left[0.8 \cdot 1.0 + 1.2 \cdot 0.1,\ 0.8 \cdot 0.2 + 1.2 \cdot 0.9\right] \\" in out
    assert "## K" not in out


def test_bundled_example_by_name_and_options(capsys):
    assert main(["latex", "002-causal-mask", "--step", "Em", "--rows", "first", "--digits", "2"]) == 0
    out = capsys.readouterr().out
    assert r"E_{m,\text{1番目}}" in out and r"E_{m,\text{2番目}}" not in out
    assert main(["latex", "000-self-attention", "--step", "E", "--digits", "2"]) == 0
    assert r"\left[2.27,\ 3.32,\ 3.30,\ 4.54\right]" in capsys.readouterr().out


def test_output_file_never_overwritten_without_force(tmp_path, capsys):
    out = tmp_path / "doc.tex"
    assert main(["latex", SPEC, "-o", str(out), "--corrections"]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith(r"\documentclass")               # .tex → the standalone document
    assert r"\cancel{0.3383}" in text
    assert "printed numbers corrected" in capsys.readouterr().err
    out.write_text("mine", encoding="utf-8")
    assert main(["latex", SPEC, "-o", str(out)]) == 2
    assert "exists already" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "mine"
    assert main(["latex", SPEC, "-o", str(out), "--force", "--format", "markdown"]) == 0
    assert out.read_text(encoding="utf-8").startswith("# ")


def test_errors_are_one_line_exit_2():
    for args, needle in ((["latex", "missing.toml"], "no such file"),
                         (["latex", SPEC, "--step", "nope"], "no step named 'nope'"),
                         (["latex", SPEC, "--digits", "-3"], "--digits")):
        r = run(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert needle in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "Traceback" not in r.stderr


def test_exact_shows_a_too_large_closed_form_in_decimals_with_a_note():
    r = run("latex", str(ROOT / "examples" / "003-ch7-multihead-layer.toml"), "--exact",
            "--step", "F_pre")
    assert r.returncode == 0 and r.stderr == ""
    assert "Note: Shown in certified decimals: its closed form would be too large" in r.stdout
    assert r"&\approx \left[-0.3451,\ 0.6713,\ 1.6876,\ -1.3614,\ -0.6876,\ -0.6549\right]" in r.stdout


def test_exact_closed_forms_on_the_command_line():
    r = run("latex", "003-ch4-single-head", "--exact", "--step", "A")
    assert r.returncode == 0, r.stderr
    assert r"\frac{e^{\frac{\sqrt{2}}{2}}}{1 + e^{\frac{\sqrt{2}}{2}}}" in r.stdout

"""Numbers that are no claim, and names that are not the step's: an SVG figure drawn in
Markdown places and colours its cells with numbers (``fill-opacity:0.24``) that print no
entry, while its ``<text>`` nodes and its ``aria-label`` print the weights; a lone number
whose equation names another entry (``A_{22} = 19.453 / 34.647 = 0.562``) is no claim on the
one-number step of a near value named otherwise (``A_11``); ``logits`` abbreviate no
logarithm.

Truths: mpmath at 30 digits and ``decimal`` half-up rounding, never symattn."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal

import mpmath

from symattn.article.quiet import mark
from symattn.article.source import Line
from symattn.article.tokens import numbers_in

mpmath.mp.dps = 30


def test_an_svg_cell_reads_its_text_and_the_label_for_a_reader_not_its_attributes():
    cell = ('<rect x="410" y="72" width="42" style="fill-opacity:0.24;stroke-width:.8"/>'
            '<text x="431.0" y="92.0" text-anchor="middle">0.266</text>')
    label = '<svg viewBox="0 0 560 276" aria-label="weights 0.266, 0.280, 0.454" style="max-width:100%">'
    got = [n.text for n in numbers_in(mark([Line(1, cell, "text")])[0])]
    assert got == ["0.266"]
    got = [n.text for n in numbers_in(mark([Line(1, label, "text")])[0])]
    assert got == ["0.266", "0.280", "0.454"]
    code = [n.text for n in numbers_in(mark([Line(1, "if a<b and c>0.5: x = 0.25", "code")])[0])]
    assert "0.25" in code                       # code compares, it draws no tag


SPEC = """
[example]
id = "rows"
source = "post.md"
[inputs]
x = { value = [[1.391, 1.554]] }
[[steps]]
name = "A_10"
expr = "exp(x[0, 0]) / (exp(x[0, 0]) + exp(x[0, 1]))"
[[steps]]
name = "A_11"
expr = "exp(x[0, 1]) / (exp(x[0, 0]) + exp(x[0, 1]))"
"""

POST = """# Row by row

- $A_{10} = 4.019 / 8.749 = \\mathbf{0.459}$
- $A_{11} = 4.730 / 8.749 = \\mathbf{0.541}$

The next row:

- $A_{22} = 19.453 / 34.647 = \\mathbf{0.562}$
"""


def test_an_equation_named_for_another_entry_is_no_claim_on_a_near_step(tmp_path):
    e = [mpmath.exp(mpmath.mpf(v)) for v in ("1.391", "1.554")]
    a11 = e[1] / sum(e)
    assert Decimal(mpmath.nstr(a11, 20)).quantize(Decimal("0.001"), ROUND_HALF_UP) == Decimal("0.541")
    assert abs(mpmath.mpf("0.562") - a11) / a11 < mpmath.mpf("0.05")     # as near as a slip is
    (tmp_path / "ex.toml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "post.md").write_text(POST, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "ex.toml", "--article", "post.md",
                        "--json"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    claims = json.loads(r.stdout)["claims"]
    got = {(c["line"], c["step"], c["printed"], c["verdict"]) for c in claims}
    assert (4, "A_11", "0.541", "correct") in got
    assert not [c for c in claims if c["line"] == 8]


def test_logits_are_no_abbreviation_of_a_logarithm(tmp_path):
    """``logits ≈ [-0.05, 0.02, …]`` names logits, not the step ``-log(0.97)`` worked later
    (``log`` is no abbreviation of ``logits``): its numbers are no claims on it, while the
    written ``-log(0.97) ≈ 0.03`` is judged (right: 0.0305)."""
    from conftest import check_post
    assert f"{float(-mpmath.log(mpmath.mpf('0.97'))):.2f}" == "0.03"
    post = "\n".join(["# Training", "", "The logits $[2.0, 1.0, 0.1]$ give the probabilities "
                      "$[0.659, 0.242, 0.099]$.", "", "```", "Epoch 0:",
                      "  logits ≈ [-0.05, 0.02, -0.01, 0.03, ..., 0.01]", "", "Epoch 200:",
                      "  probabilities ≈ [0.00, 0.01, 0.97, ..., 0.00]", "", "Loss:",
                      "  -log(0.97) ≈ 0.03", "```", ""])
    out = check_post(tmp_path, post)
    assert not [c for c in out["claims"] if c["line"] == 7 and c["verdict"] != "correct"]
    got = [c for c in out["claims"] if c["line"] == 13]
    assert [(c["printed"], c["verdict"]) for c in got] == [("0.03", "correct")]
    assert abs(mpmath.mpf(got[0]["exact"]) + mpmath.log(mpmath.mpf("0.97"))) < mpmath.mpf("1e-18")


def test_a_form_that_matches_only_within_its_operands_rounding_is_no_derivation(tmp_path):
    """Positional encodings of five positions (d = 2), then the slow pair of a wide model
    (``[0.0001, 1.0000]``, ``[0.0003, 1.0000]``, …: right, but of dimensions not printed): RoPE of
    the printed encodings gives exactly [0, 1] (sin·cos − cos·sin), within the printed
    encodings' rounding of every such print, yet that slack is many times the size of a
    0.0001. No derivation: no number of the slow pair is called wrong."""
    from conftest import check_post
    fast = [(mpmath.sin(p), mpmath.cos(p)) for p in range(5)]
    slow = [(mpmath.sin(p / mpmath.power(10000, mpmath.mpf(62) / 64)),
             mpmath.cos(p / mpmath.power(10000, mpmath.mpf(62) / 64))) for p in range(5)]

    def fixed(x, places):
        return str(Decimal(mpmath.nstr(x, 25)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))
    fast_rows = [f"- Position {p}: [{fixed(s, 3)}, {fixed(c, 3)}]" for p, (s, c) in enumerate(fast)]
    slow_rows = [f"- Position {p}: [{fixed(s, 4)}, {fixed(c, 4)}]" for p, (s, c) in enumerate(slow)]
    assert fixed(slow[1][0], 4) == "0.0001" and fixed(slow[4][0], 4) == "0.0005"
    post = "\n".join(["# Positional encoding", "", "Low dimensions (PE(pos, 0), PE(pos, 1)):", "", *fast_rows, "",
                      "High dimensions (PE(pos, 62), PE(pos, 63)):", "", *slow_rows, ""])
    out = check_post(tmp_path, post)
    slow_lines = range(10, 15)
    assert not [c for c in out["claims"] if c["line"] in slow_lines and c["verdict"] == "wrong"]

"""Inference on articles of the seeds' kind: a long illustrated post in sections, whose later
section prints a table of results and then, just after it, the weights that make it again
(unnamed: the article reading leaves such a repeat out), the weights' first print being
sections before (beyond the nearest blocks the search takes as operands).
Truths are computed here with fractions, not by symattn."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F

H = [[F("1.02"), F("0.91")], [F("0.88"), F("1.02")], [F("1.14"), F("0.86")]]
W_K = [[F("0.5"), F("0.1")], [F("-0.4"), F("1.1")]]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          timeout=300)


def bmatrix(rows) -> str:
    return r"\begin{bmatrix}" + r" \\ ".join(" & ".join(str(x) for x in r) for r in rows) + r"\end{bmatrix}"


def keys():
    return [[sum(h[k] * W_K[k][j] for k in range(2)) for j in range(2)] for h in H]


def sectioned_post() -> str:
    """W_K named in section 1; 17 unrelated matrices between; section 3: X, K = X W_K, then
    ``$W_K$`` and its matrix again, unnamed."""
    fillers = [[[F(7 * k + 3, 4), F(11 * k + 1, 8)], [F(13 * k + 5, 16), F(17 * k + 9, 2)]]
               for k in range(17)]
    parts = ["# Section 1", "", "W_K=" + bmatrix(W_K), "", "# Section 2", ""]
    for k, f in enumerate(fillers):
        parts += [f"Figure {k}:", "", bmatrix([[float(x) for x in r] for r in f]), ""]
    parts += ["# Section 3", "", "The input X, three tokens:", "", bmatrix(H), "",
              "Their keys K:", "", bmatrix(keys()), "", "How were the keys made? The weight:", "",
              "$W_K$", "", bmatrix(W_K), ""]
    return "\n".join(parts)


def test_a_weight_shown_again_after_the_table_it_makes_is_its_operand(tmp_path):
    path = tmp_path / "sections.md"
    path.write_text(sectioned_post(), encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    steps = [s for ex in d["inferred"] for s in ex["steps"]]
    assert any("@" in s["expr"] and "W_K" in s["expr"] for s in steps), steps
    truths = {str(x) for row in keys() for x in row}
    claims = [c for c in d["claims"] if c["printed"] in truths and c["line"] > 50]
    assert len(claims) >= 6 and all(c["verdict"] == "correct" for c in claims)
    for c in claims:
        assert F(c["exact"]) == F(c["printed"])
    assert not any(c["verdict"] == "wrong" for c in d["claims"])

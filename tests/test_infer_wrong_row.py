"""A matrix with one row worked wrong: the others reproduced entry by entry are enough to
derive it (``Search._accepts``, two thirds of its rows whole), so the wrong row is judged
rather than the whole matrix left an unchecked input. Blocks of a few magnitudes (0, 0.5,
1) are not derived so: their rows coincide too easily.

Truths: softmax worked out with ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

import mpmath
from conftest import check_post

mpmath.mp.dps = 30

SCALED = [["0.5", "0.5", "1.0"], ["1.0", "0.0", "0.5"], ["0.8", "0.2", "0.3"]]


def _softmax(row):
    e = [mpmath.exp(mpmath.mpf(x)) for x in row]
    return [x / sum(e) for x in e]


def _post(weights):
    rows = lambda m: ",\n           ".join("[" + ", ".join(r) + "]" for r in m)
    return "\n".join(["# Weights", "", "Scaled scores:", "", "```", f"Scaled = [{rows(SCALED)}]", "```", "",
                      "Apply softmax to each row:", "", "```", f"Weights = [{rows(weights)}]", "```", ""])


def test_one_row_worked_wrong_is_flagged_the_others_correct(tmp_path):
    right = [[mpmath.nstr(w, 2, strip_zeros=False) for w in _softmax(r)] for r in SCALED]
    shown = [list(r) for r in right]
    shown[1] = ["0.24", "0.65", "0.11"]                      # a row made up: softmax is 0.51 0.19 0.31
    assert right[1] == ["0.51", "0.19", "0.31"]
    out = check_post(tmp_path, _post(shown))
    claims = [c for c in out["claims"] if 14 <= c["line"] <= 16]
    assert len(claims) == 9
    for c in claims:
        i, j = int(c["at"][0]), int(c["at"][1])
        assert abs(mpmath.mpf(c["exact"]) - _softmax(SCALED[i])[j]) < mpmath.mpf("1e-20")
        assert c["verdict"] == ("wrong" if i == 1 else "correct"), c


def test_rows_of_halves_and_ones_are_not_derived_by_their_rows(tmp_path):
    """[[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.5, 0.5, 0.5]] printed where the product is
    [[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.5, 0.5, 1.0]]: too few magnitudes to tell."""
    text = "\n".join(["# Halves", "", "```", "A = [[1, 0], [0, 1], [0.5, 0.5]]", "B = [[1, 0, 0.5], [0, 1, 0.5]]",
                      "```", "", "The product A B:", "", "```", "C = [[1.0, 0.0, 0.5],", "     [0.0, 1.0, 0.5],",
                      "     [0.5, 0.5, 0.5]]", "```", ""])
    import json
    import subprocess
    import sys
    (tmp_path / "post.md").write_text(text, encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(tmp_path / "post.md")],
                       capture_output=True, text=True)
    assert p.returncode in (0, 1, 2), p.stderr
    claims = json.loads(p.stdout)["claims"] if p.returncode != 2 else []
    assert not [c for c in claims if c["verdict"] in ("wrong", "carried")]

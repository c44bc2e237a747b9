"""A list in code that a caption opens (``exp: [3.145, 2.489, 1.562]``) is a printed block
of its own, derived and judged like a named one (a row of exps: each the exp of a row of the scores);
a caption that shares only a number with a
step's name (``Row 3:`` and ``exp_3``) names nothing, so the row printed under it is not
claimed as that step's.

Truths: worked out here with ``fractions`` and ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F

import mpmath
from conftest import check_post

mpmath.mp.dps = 30

Q = [["0.9", "1.15"], ["0.8", "0.85"], ["0.35", "0.3"]]
K = [["0.65", "0.9"], ["0.6", "0.65"], ["0.45", "0.2"]]


def fixed(x, places: int) -> str:
    """``x`` (a Fraction or an mpf) to ``places`` decimals, half up."""
    d = Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, F) else Decimal(mpmath.nstr(x, 25))
    return str(d.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))


def bm(rows):
    return "\\begin{bmatrix} " + " \\\\ ".join(" & ".join(r) for r in rows) + " \\end{bmatrix}"


def test_exp_lists_under_their_caption_are_judged_and_row_captions_name_no_step(tmp_path):
    scores = [[sum(F(a) * F(b) for a, b in zip(q, k)) for k in K] for q in Q]
    scaled = [[mpmath.mpf(s.numerator) / s.denominator / mpmath.sqrt(2) for s in r] for r in scores]
    exps = [[mpmath.exp(s) for s in r] for r in scaled]
    shown = [[fixed(s, 3) for s in r] for r in scaled]
    code = []
    for i in range(3):
        e = [fixed(x, 3) for x in exps[i]]
        code += [f"Row {i + 1}: [{', '.join(shown[i])}]", f"exp: [{', '.join(e)}]", ""]
    post = "\n".join(["# Softmax by hand", "", f"$$Q = {bm(Q)}, \\quad K = {bm(K)}$$", "",
                      "Divide by $\\sqrt{2}$:", "", f"$$\\frac{{QK^T}}{{\\sqrt{{2}}}} = {bm(shown)}$$", "",
                      "```", *code, "```", ""])
    out = check_post(tmp_path, post)
    lines = {i: 11 + 3 * i for i in range(3)}                  # the exp: lines
    for i, line in lines.items():
        got = [c for c in out["claims"] if c["line"] == line]
        assert len(got) == 3
        for c in got:
            j = int(c["at"][-1])
            assert abs(mpmath.mpf(c["exact"]) - exps[i][j]) < mpmath.mpf("1e-18")
            assert c["verdict"] == "correct" and c["step"].startswith("exp")
    rows = [c for c in out["claims"] if c["line"] in (10, 13, 16)]    # the Row N: lines: the
    assert all(c["verdict"] == "correct" for c in rows)             # scores' rows, never an exp
    assert all(abs(mpmath.mpf(c["exact"]) - scaled[(c["line"] - 10) // 3][int(c["at"][-1])]) < 1e-18
               for c in rows)

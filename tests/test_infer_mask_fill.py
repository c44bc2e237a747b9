"""A causal mask printed with ``-10^9`` for −∞ (PyTorch's ``masked_fill(mask, -1e9)``).

A LaTeX cell ``-10^9`` is the number -1e9. A printed block holding one large negative
number (at most ``BIG_MASK``) exactly where a causal mask hides the future is read as that
mask: the mask alone is ``causal_mask(n, fill=-1e9)`` and the masked scores are the scores
plus it, so each ``-10^9`` is checked as printed, not taken for a wrong score or a reprint
of the scores. Truths: fractions and mpmath, never symattn."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from conftest import check_post
from symattn.errors import SymattnError
from symattn.spec.latex_cells import cell_value

S = [["0.038568", "0.024259", "0.027975"], ["0.021078", "0.019394", "0.024710"],
     ["0.040464", "0.019575", "0.028899"]]


def bmatrix(rows) -> str:
    return "\\begin{bmatrix}\n" + "\\\\\n".join(" & ".join(r) for r in rows) + "\n\\end{bmatrix}"


def masked(rows, slip=None):
    out = [[v if j <= i else "-10^9" for j, v in enumerate(r)] for i, r in enumerate(rows)]
    if slip:
        (i, j), v = slip
        out[i][j] = v
    return out


def weights():
    out = []
    for i, r in enumerate(S):
        e = [mpmath.exp(mpmath.mpf(v)) for v in r[:i + 1]]
        out.append([f"{float(x / sum(e)):.6f}" for x in e] + ["0.000000"] * (len(r) - i - 1))
    return out


def post(slip=None) -> str:
    mask = [[("-10^9" if j > i else "0") for j in range(3)] for i in range(3)]
    return ("Scaled scores:\n\n$$\nS=\n" + bmatrix(S) + "\n$$\n\n"
            "The causal mask (the upper triangle is $-10^9$, almost $-\\infty$):\n\n$$\nM=\n"
            + bmatrix(mask) + "\n$$\n\nMasked scores:\n\n$$\n\\tilde{S}=\n" + bmatrix(masked(S, slip))
            + "\n$$\n\nAfter softmax:\n\n$$\nA=\n" + bmatrix(weights()) + "\n$$\n")


def test_a_power_of_ten_is_a_latex_cell():
    assert cell_value("-10^9")[0] == F(-10 ** 9)
    assert cell_value("10^{-4}")[0] == F(1, 10 ** 4)
    with pytest.raises(SymattnError):
        cell_value("10^{99999999}")


def test_a_mask_filled_with_minus_ten_to_the_nine_is_checked_as_printed(tmp_path):
    out = check_post(tmp_path, post())
    fills = [c for c in out["claims"] + out.get("restated", []) if c["printed"] == "-1e9"]
    truth = [F(-10 ** 9)] * 3 + [F(S[i][j]) - 10 ** 9 for i in range(3) for j in range(3) if j > i]
    assert sorted(F(c["exact"]) for c in fills) == sorted(truth)
    assert all(c["verdict"] == "correct" for c in fills)
    assert not [c for c in out["claims"] if c["verdict"] == "wrong"]
    steps = " ".join(s["expr"] for ex in out["inferred"] for s in ex["steps"])
    assert "causal_mask(3, fill=-1000000000)" in steps


def test_a_slip_in_the_masked_scores_blames_no_weights(tmp_path):
    """The masked print with a slip (0.012078 for 0.021078) is taken as printed (its own
    split scores: the slip is not flagged yet), and the weights after it, worked from the
    scores the text printed first (-1e9 in the text says masked), are all right."""
    out = check_post(tmp_path, post(slip=((1, 0), "0.012078")))
    assert not [c for c in out["claims"] if c["verdict"] == "wrong"]
    row = [c for c in out["claims"] if c["printed"] in weights()[1][:2]]
    assert len(row) == 2 and all(c["verdict"] == "correct" for c in row)

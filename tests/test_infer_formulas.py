"""A matrix the text labels with a formula (``QK^T = \\begin{bmatrix}…``), checked with no
spec: derived as the label writes it, whatever its numbers, so whole-number scores with
slips (which no search can tell from chance) are judged, and a softmax labelled
``softmax(QK^T/√d_k)`` is judged from them.

Truths: worked out here with ``fractions`` and ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
from conftest import check_post
import pytest

from symattn.infer.formulas import formula

mpmath.mp.dps = 30


@pytest.mark.parametrize("label, expected", [
    ("QK^T", ("Q @ K.T", ["Q", "K"], 1)),          # QK read as Q times K: a guess
    ("Q K^{\\top}", ("Q @ K.T", ["Q", "K"], 0)),
    ("XW_Q", ("X @ W_Q", ["X", "W_Q"], 1)),
    ("X_{pe} W_Q", ("X_pe @ W_Q", ["X_pe", "W_Q"], 0)),
    ("\\frac{QK^T}{\\sqrt{d_k}}", ("((Q @ K.T) / sqrt(4))", ["Q", "K"], 1)),
    ("\\text{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right)V", ("softmax((Q @ K.T) / sqrt(4)) @ V", ["Q", "K", "V"], 1)),
    ("\\frac{1}{2} \\times", None),           # a factor before a matrix: no formula
    ("Q", None),                              # one name: no formula
    ("QZ^T", None),                           # Z is no block
])
def test_a_label_read_as_a_formula_over_the_blocks_before_it(label, expected):
    blocks = dict.fromkeys(["Q", "K", "V", "X", "X_pe", "W_Q"])
    assert formula(label, blocks, "with $d_k = 4$ here") == expected


def test_a_block_printed_as_the_label_says_is_that_block():
    assert formula("\\text{softmax}(QK^T / 2)", dict.fromkeys(["Q", "K", "QK_T"]), "") == \
        ("softmax(QK_T / 2)", ["QK_T"], 0)


def bm(rows):
    return "\\begin{bmatrix} " + " \\\\ ".join(" & ".join(str(x) for x in r) for r in rows) + " \\end{bmatrix}"


def test_whole_scores_labelled_qkt_with_four_slips_are_judged_and_so_is_their_softmax(tmp_path):
    Q = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
    K = [[1, 1, 0, 0], [0, 1, 1, 0], [1, 0, 0, 1]]
    S = [[sum(a * b for a, b in zip(q, k)) for k in K] for q in Q]   # [[1,1,1],[1,1,1],[2,1,1]]
    shown = [r[:] for r in S]
    shown[0][1], shown[1][1], shown[1][2], shown[2][0] = 0, 2, 0, 1   # four slips: no search
                                                                      # takes 5 of 9 for a product
    e = [[mpmath.exp(mpmath.mpf(x) / 2) for x in r] for r in shown]   # the author's softmax
    W = [[x / mpmath.fsum(r) for x in r] for r in e]
    post = "\n".join([
        "# Attention, by hand", "", f"$$Q = {bm(Q)}, \\quad K = {bm(K)}$$", "", "With $d_k = 4$:", "",
        "$$", f"QK^T = {bm(shown)}", "$$", "", "$$",
        "\\text{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right) = "
        + bm([[f"{float(x):.2f}" for x in r] for r in W]), "$$", ""])
    out = check_post(tmp_path, post)
    steps = {d["name"]: d["expr"] for e in out["inferred"] for d in e["steps"]}
    assert steps["QK_T"] == "Q @ K.T"
    scores = [c for c in out["claims"] if c["step"] == "QK_T"]
    assert len(scores) == 9
    wrong = {(int(c["at"][0]), int(c["at"][1])) for c in scores if c["verdict"] == "wrong"}
    assert wrong == {(0, 1), (1, 1), (1, 2), (2, 0)}
    assert all(F(c["exact"]) == S[int(c["at"][0])][int(c["at"][1])] for c in scores)
    soft = [c for c in out["claims"] if c["step"] != "QK_T"]
    true = [[mpmath.exp(mpmath.mpf(x) / 2) for x in r] for r in S]
    true = [[x / mpmath.fsum(r) for x in r] for r in true]
    assert len(soft) == 9
    for c in soft:
        i, j = int(c["at"][0]), int(c["at"][1])
        assert abs(float(c["exact"]) - float(true[i][j])) < 1e-15
        assert (c["verdict"] == "correct") == (f"{float(true[i][j]):.2f}" == c["printed"])


def test_a_code_line_that_writes_the_formula_of_its_list_is_derived_so(tmp_path):
    """``q₁ = x₁ × W^Q = [0.31, 0.33, 0.29]``: all three wrong (no search could take it),
    each flagged against x₁ W^Q; a later vector captioned "… for q₁" is no print of q₁."""
    x = [F("0.2"), F("0.5"), F("0.1"), F("0.3")]
    W = [[F("0.2"), F("0.3"), F("0.1")], [F("0.4"), F("0.2"), F("0.5")],
         [F("0.1"), F("0.6"), F("0.3")], [F("0.3"), F("0.1"), F("0.4")]]
    q = [sum(x[i] * W[i][j] for i in range(4)) for j in range(3)]       # 0.34, 0.25, 0.42
    printed = ["0.31", "0.33", "0.29"]
    assert all(f"{float(v):.2f}" != p for v, p in zip(q, printed))
    rows = ",\n       ".join("[" + ", ".join(str(float(v)) for v in r) + "]" for r in W)
    post = "\n".join(["# Queries", "", "```", f"W^Q = [{rows}]", "",
                      "For x₁ = [0.2, 0.5, 0.1, 0.3]:", f"q₁ = x₁ × W^Q = [{', '.join(printed)}]", "```", "",
                      "```", "Attention weights for q₁: [0.332, 0.337, 0.331]", "```", ""])
    out = check_post(tmp_path, post)
    got = {c["printed"]: c for c in out["claims"]}
    for p, v in zip(printed, q):
        assert got[p]["verdict"] == "wrong" and F(got[p]["exact"]) == v
    assert not any(c["printed"] in ("0.332", "0.337", "0.331") for c in out["claims"])

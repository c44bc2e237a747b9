"""A plain-text walkthrough checked with no spec: weights printed side by side in one code
block (``Wq:    Wk:`` over two lists abreast) are two matrices, and a softmax worked row by
row after the text writes its operand out (``softmax([0.485, 0.344, …])``) takes that row
of the scores table, even with a slip in it: the weights then follow from the slip.

Truths: worked out here with ``fractions`` and ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
from conftest import check_post

from symattn.article.matrices import find
from symattn.article.source import Line

mpmath.mp.dps = 30


def lines(text: str, kind: str = "code") -> list[Line]:
    return [Line(k + 1, t, kind) for k, t in enumerate(text.splitlines())]


def test_two_lists_abreast_are_two_matrices():
    text = ("Wq (query projection, 2x2):        Wk (key projection, 2x2):\n"
            "[[0.60, 0.40],                      [[0.50, 0.30],\n"
            " [0.20, 0.50]]                       [0.10, 0.40]]\n")
    got = [(p.line, p.values) for p in find(lines(text))]
    assert got == [(2, ((F("0.60"), F("0.40")), (F("0.20"), F("0.50")))),
                   (2, ((F("0.50"), F("0.30")), (F("0.10"), F("0.40"))))]


def test_three_lists_abreast_and_a_caption_beside_a_vector():
    text = ("A:          B:          b:\n"
            "[[1, 2],    [[5, 6],    [9, 9]\n"
            " [3, 4]]     [7, 8]]\n")
    got = sorted(p.values for p in find(lines(text)) if len(p.values) == 2)
    assert got == [((1, 2), (3, 4)), ((5, 6), (7, 8))]


def test_one_list_spaced_out_on_its_line_stays_one_matrix():
    got = [p.values for p in find(lines("W = [[1, 2],     [3, 4]]\n"))]
    assert got == [((1, 2), (3, 4))]


def mat(rows, places=3):
    return "[" + ",\n ".join("[" + ", ".join(f"{float(x):.{places}f}" for x in r) + "]" for r in rows) + "]"


def vec(r, places=3):
    return "[" + ", ".join(f"{float(x):.{places}f}" for x in r) + "]"


X = [[F("1.0"), F("1.5")], [F("1.041"), F("0.84")], [F("1.009"), F("-0.316")], [F("0.341"), F("-0.59")]]
WQ = [[F("0.60"), F("0.40")], [F("0.20"), F("0.50")]]
WK = [[F("0.50"), F("0.30")], [F("0.10"), F("0.40")]]
TOKENS = ["cat", "sat", "on", "mat"]


def matmul(a, b):
    return [[sum(x * y for x, y in zip(r, c)) for c in zip(*b)] for r in a]


def rounded(x, places=3):
    return mpmath.mpf(f"{float(x):.{places}f}")


def test_a_softmax_worked_row_by_row_takes_the_row_the_text_writes(tmp_path):
    Q, K = matmul(X, WQ), matmul(X, WK)
    S = [[mpmath.mpf(x.numerator) / x.denominator / mpmath.sqrt(2) for x in r]
         for r in matmul(Q, [list(c) for c in zip(*K)])]
    shown = [[rounded(x) for x in r] for r in S]
    shown[2][0] += mpmath.mpf("0.08")                    # the slip: row "on" of the table
    body = ["# Attention by hand\n", "```", "X (4x2):", mat(X), "", "Wq (2x2):          Wk (2x2):"]
    body += [f"{a:<20}{b}" for a, b in zip(mat(WQ, 2).split("\n"), mat(WK, 2).split("\n"))]
    body += ["```", "", "Q = X @ Wq:", "```", mat(Q), "```", "K = X @ Wk:", "```", mat(K), "```", "",
             "Scaled scores S / sqrt(2):", "", "| | cat | sat | on | mat |", "|---|---|---|---|---|"]
    body += [f"| {t} | " + " | ".join(f"{float(x):.3f}" for x in r) + " |" for t, r in zip(TOKENS, shown)]
    weights = []
    for t, r, exact in zip(TOKENS, shown, S):
        e = [mpmath.exp(x) for x in (r if t == "on" else exact)]    # "on": from the slip
        w = [x / mpmath.fsum(e) for x in e]
        weights.append(w)
        body += ["", f"Row ({t}): softmax({vec(r)})", "```", f"A_{t} = {vec(w)}", "```"]
    out = check_post(tmp_path, "\n".join(body) + "\n")
    steps = {d["name"]: d["expr"] for e in out["inferred"] for d in e["steps"]}
    table = _table(steps)
    assert [steps.get(f"A_{t}") for t in TOKENS] == [f"softmax({table}[{i}])" for i in range(4)]
    flagged = {(c["step"], c["printed"]) for c in out["claims"] if c["verdict"] in ("wrong", "carried")}
    assert (table, f"{float(shown[2][0]):.3f}") in flagged
    assert not any(s.startswith("A_") and s != "A_on" for s, _ in flagged)
    true_on = [x / mpmath.fsum(mpmath.exp(y) for y in S[2]) for x in (mpmath.exp(y) for y in S[2])]
    wrong_on = {f"{float(x):.3f}" for x, y in zip(weights[2], true_on) if f"{float(x):.3f}" != f"{float(y):.3f}"}
    assert wrong_on and wrong_on <= {p for s, p in flagged if s == "A_on"}


def _table(steps: dict) -> str:
    """The name the scaled scores table got (the step computed as Q Kᵀ/√2)."""
    return next(name for name, expr in steps.items() if expr.endswith("/ sqrt(2)"))


def test_lists_abreast_each_named_where_it_begins():
    text = ("Q = [ [1, 0, 1, 0],      K = [ [1, 1, 0, 0],      V = [ [2, 1, 0, 1],\n"
            "      [0, 1, 0, 1],            [0, 1, 1, 0],            [1, 2, 1, 0],\n"
            "      [1, 1, 0, 0] ]           [1, 0, 0, 1] ]           [0, 1, 2, 1] ]\n")
    got = {p.name: p.values for p in find(lines(text))}
    assert got == {"Q": ((1, 0, 1, 0), (0, 1, 0, 1), (1, 1, 0, 0)),
                   "K": ((1, 1, 0, 0), (0, 1, 1, 0), (1, 0, 0, 1)),
                   "V": ((2, 1, 0, 1), (1, 2, 1, 0), (0, 1, 2, 1))}


def test_a_result_printed_right_of_the_arithmetic_that_makes_it():
    text = ("Q · Kᵀ = [[1×1+0×1, 1×0+0×0],   [[1, 0],\n"
            "           [0×1+1×1, 0×0+1×1],  = [1, 1]]\n")
    assert [p.values for p in find(lines(text))] == [((1, 0), (1, 1))]


def test_a_note_after_a_row_is_no_number_of_it():
    text = ("Weights = [[0.27, 0.27, 0.45],    ← \"The\" attends most to \"sat\"\n"
            "           [0.38, 0.38, 0.23]]    <- the second row\n")
    assert [p.values for p in find(lines(text))] == [((F("0.27"), F("0.27"), F("0.45")),
                                                      (F("0.38"), F("0.38"), F("0.23")))]


def test_a_shape_noted_after_the_first_row_leaves_the_matrix_whole():
    """``W1 = [[0.2, 0.3, 0.1],      (4 × 3 matrix)`` over three more rows: one 4 × 3 matrix,
    not its rows read two and two (the note had hidden the list from the nested-list lines)."""
    text = ("W1 = [[0.2, 0.3, 0.1],      (4 × 3 matrix)\n"
            "      [0.4, -0.1, 0.5],\n"
            "      [0.1, 0.2, -0.3],\n"
            "      [-0.2, 0.4, 0.2]]\n")
    rows = [["0.2", "0.3", "0.1"], ["0.4", "-0.1", "0.5"], ["0.1", "0.2", "-0.3"], ["-0.2", "0.4", "0.2"]]
    assert [(p.name, p.values) for p in find(lines(text))] == \
        [("W1", tuple(tuple(F(x) for x in r) for r in rows))]

"""Matrices whose formula the text writes, checked with no spec, wrong numbers included:

- ``Q = X \\cdot W_q =`` on the line above ``\\begin{bmatrix}``: Q is X times W_q as
  written, even with most entries wrong (the search alone would not derive it);
- a program statement written inline just above a block whose label its name ends with
  (```attention_scores = Q @ K.T``` over ``\\text{Scores} =``): the block is that
  statement, and later statements take the block by the program's name
  (```softmax(attention_scores / sqrt(d_k))```); ``d_k`` unstated is the one width every
  matrix has;
- a statement whose name does not end with the block's label names nothing.

Truths: ``fractions`` and ``mpmath`` at 30 digits, never symattn.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath

from conftest import check_post

mpmath.mp.dps = 30

X = [["1.0", "0.5"], ["0.0", "2.0"]]
W = [["0.5", "1.0"], ["1.5", "0.0"]]


def matmul(a, b):
    return [[sum(F(a[i][k]) * F(b[k][j]) for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def bmatrix(rows):
    return "\\begin{bmatrix}\n" + " \\\\\n".join(" & ".join(r) for r in rows) + "\n\\end{bmatrix}"


def article(q, scores, weights, code="attention_scores"):
    return (f"Input:\n\n$$\nX = {bmatrix(X)}\n$$\n\nWeights:\n\n$$\nW_q = {bmatrix(W)}\n$$\n\n"
            f"**Queries:**\n$$\nQ = X \\cdot W_q =\n{bmatrix(q)}\n$$\n\n"
            f"### Step 1\n`{code} = Q @ Q.T`\n\n$$\n\\text{{Scores}} =\n{bmatrix(scores)}\n$$\n\n"
            f"### Step 2\n`attention_weights = softmax({code} / sqrt(d_k))`\n\n"
            f"$$\n\\text{{Weights}} =\n{bmatrix(weights)}\n$$\n")


def truths():
    q = matmul(X, W)
    s = [[sum(a * b for a, b in zip(r, c)) for c in q] for r in q]
    w = []
    for row in s:
        e = [mpmath.exp(mpmath.mpf(v.numerator) / v.denominator / mpmath.sqrt(2)) for v in row]
        w.append([v / sum(e) for v in e])
    return q, s, w


def test_a_formula_above_the_matrix_and_statements_in_code_derive_wrong_prints(tmp_path):
    q, s, w = truths()
    assert q == [[F(5, 4), F(1)], [F(3), F(0)]]
    assert s == [[F(41, 16), F(15, 4)], [F(15, 4), F(9)]]
    assert [f"{float(v):.2f}" for v in w[0]] == ["0.30", "0.70"]
    assert [f"{float(v):.2f}" for v in w[1]] == ["0.02", "0.98"]
    # Q's first row and every score but one printed wrong; one weight wrong
    d = check_post(tmp_path, article([["1.50", "1.00"], ["3.00", "0.00"]],
                                [["2.56", "3.75"], ["3.75", "9.50"]],
                                [["0.30", "0.70"], ["0.10", "0.98"]]))
    got = {(c["step"], tuple(c["at"])): (c["printed"], c["verdict"]) for c in d["claims"]}
    assert got[("Q", ("0", "0"))] == ("1.50", "wrong")
    assert got[("Q", ("1", "0"))] == ("3.00", "correct")
    assert got[("Scores", ("0", "0"))] == ("2.56", "correct")
    assert got[("Scores", ("1", "1"))] == ("9.50", "wrong")
    assert got[("Weights", ("0", "1"))] == ("0.70", "correct")
    assert got[("Weights", ("1", "0"))][1] in ("wrong", "carried")


def test_a_statement_whose_name_is_not_the_blocks_label_names_nothing(tmp_path):
    """Scores printed all wrong under ```logits = Q @ Q.T```: nothing says the block is
    those logits, so it is not judged as them (with ``scores`` it is, all four wrong)."""
    scores = [["2.00", "3.00"], ["3.00", "9.50"]]
    weights = [["0.30", "0.70"], ["0.02", "0.98"]]
    q = [["1.25", "1.00"], ["3.00", "0.00"]]
    d = check_post(tmp_path, article(q, scores, weights, code="logits"))
    assert not [c for c in d["claims"] if c["step"] == "Scores"]
    d = check_post(tmp_path, article(q, scores, weights))
    assert [c["verdict"] for c in d["claims"] if c["step"] == "Scores"] == ["wrong"] * 4


def test_a_statement_names_an_earlier_block_by_its_labels_words(tmp_path):
    """```softmax(masked_scores / sqrt(d_k))``` over ``\\text{Causal Weights}`` takes the
    block labelled ``\\text{Masked Scores}``; its weights printed wrong are flagged."""
    s = [["1.0", "2.0"], ["3.0", "1.0"]]
    e = [mpmath.exp(mpmath.mpf(v) / mpmath.sqrt(2)) for v in s[1]]
    w = [v / sum(e) for v in e]
    assert [f"{float(v):.2f}" for v in w] == ["0.80", "0.20"]
    text = (f"$$\n\\text{{Scores}} =\n{bmatrix(s)}\n$$\n\n"
            "$$\n\\text{Mask} =\n\\begin{bmatrix}\n0 & -\\infty \\\\\n0 & 0\n\\end{bmatrix}\n$$\n\n"
            "`masked_scores = attention_scores + mask`\n\n"
            "$$\n\\text{Masked Scores} =\n\\begin{bmatrix}\n1.0 & -\\infty \\\\\n3.0 & 1.0\n"
            "\\end{bmatrix}\n$$\n\n`attention_weights = softmax(masked_scores / sqrt(d_k))`\n\n"
            "$$\n\\text{Causal Weights} =\n\\begin{bmatrix}\n1.00 & 0.00 \\\\\n0.70 & 0.30\n"
            "\\end{bmatrix}\n$$\n")
    d = check_post(tmp_path, text)
    got = {tuple(c["at"]): (c["printed"], c["verdict"]) for c in d["claims"] if c["step"] == "CausalWeights"}
    assert got[("0", "0")] == ("1.00", "correct")
    assert got[("1", "0")] == ("0.70", "wrong")
    assert got[("1", "1")] == ("0.30", "wrong")

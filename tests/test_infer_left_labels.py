"""Rows printed one a line with their token on the left (``From: cat  [ 1.14  1.90  -inf ]``)
under a caption that says softmax with an aside (``After softmax (rows sum to 1):``): the
masked scores are read as a matrix, the weights as their softmax, and a wrong row of
weights is flagged against the exact masked softmax. Truths: mpmath (conftest), never
symattn."""

from __future__ import annotations

import mpmath

from conftest import causal_softmax, check_post

SCORES = [["1.55", "0.20", "0.70"], ["1.14", "1.90", "0.30"], ["0.81", "1.11", "1.71"]]
TOKENS = ["The", "cat", "sat"]


def post(weights) -> str:
    def rows(cells):
        return "".join(f"From: {t:<4} [ " + "  ".join(f"{c:>5}" for c in r) + " ]\n" for t, r in zip(TOKENS, cells))
    masked = [[c if j <= i else "-inf" for j, c in enumerate(r)] for i, r in enumerate(SCORES)]
    return ("```\nApplied to scores BEFORE softmax:\n             To: The    To: cat    To: sat\n" + rows(masked)
            + "\nAfter softmax (rows sum to 1):\n             To: The    To: cat    To: sat\n" + rows(weights) + "```\n")


def printed(w, slip=None):
    out = [[f"{float(x):.2f}" for x in r] for r in w]
    if slip:
        out[slip[0]] = slip[1]
    return out


def test_rows_labelled_on_the_left_are_a_matrix_and_its_softmax(tmp_path):
    truth = causal_softmax(SCORES)
    assert [f"{float(x):.2f}" for x in truth[1]] == ["0.32", "0.68", "0.00"]
    out = check_post(tmp_path, post(printed(truth)))
    weights = [c for c in out["claims"] if c["line"] >= 10]
    assert len(weights) == 9 and all(c["verdict"] == "correct" for c in weights)
    for c in weights:
        i = TOKENS.index(c["at"][0])
        j = int(c["at"][1]) if c["at"][1].isdigit() else TOKENS.index(c["at"][1])
        assert abs(mpmath.mpf(c["exact"]) - truth[i][j]) < mpmath.mpf(10) ** -15


def test_a_wrong_row_of_weights_is_flagged(tmp_path):
    truth = causal_softmax(SCORES)
    out = check_post(tmp_path, post(printed(truth, (1, ["0.24", "0.76", "0.00"]))))
    wrong = sorted(c["printed"] for c in out["claims"] if c["verdict"] == "wrong")
    assert wrong == ["0.24", "0.76"]
    assert all(c["verdict"] == "correct" for c in out["claims"] if c["printed"] not in ("0.24", "0.76"))


X = ["0.20", "1.42", "-0.96", "1.94"]
LAYER = ["-0.17", "-0.22", "0.58", "0.35"]


def test_lists_under_captions_in_a_printout_are_vectors(tmp_path):
    """A fenced printout of one list a line under a caption (``Layer(x) + x:  [ … ]   ←
    note``) prints vectors: the sum is x + Layer(x), every entry checked (fractions)."""
    from fractions import Fraction as F
    total = [F(a) + F(b) for a, b in zip(X, LAYER)]
    shown = [f"{float(v):.2f}" for v in total]
    text = ("```\nInput x:       [" + ", ".join(X) + "]\nLayer(x):      [" + ", ".join(LAYER)
            + "]   ← transformation\nLayer(x) + x:  [" + ", ".join(shown) + "]   ← original info preserved!\n```\n")
    out = check_post(tmp_path, text)
    got = {int(c["at"][1]): c for c in out["claims"] if c["line"] == 4}
    assert sorted(got) == [0, 1, 2, 3]
    for j, c in got.items():
        assert F(c["exact"]) == total[j]
        assert c["verdict"] == "correct" and c["printed"] == shown[j]


def test_rows_under_a_label_apart_by_spaces_are_vectors(tmp_path):
    """A printout's rows under labels, numbers apart by spaces (``sims   .90  .10  .20``
    with no leading zeros, ``softmax  0.4251 …``): vectors, the second the softmax of the
    first, checked against mpmath."""
    sims = ["0.90", "0.10", "0.20", "0.00"]
    e = [mpmath.exp(mpmath.mpf(x)) for x in sims]
    p = [x / sum(e) for x in e]
    shown = [f"{float(x):.4f}" for x in p]
    assert shown == ["0.4251", "0.1910", "0.2111", "0.1728"]
    text = ("```\n  cosine sims :   .90     .10     .20     .00\n"
            "  softmax          " + "  ".join(shown) + "   <- still plenty of signal\n```\n")
    out = check_post(tmp_path, text)
    got = sorted((c for c in out["claims"] if c["line"] == 3), key=lambda c: int(c["at"][1]))
    assert [c["printed"] for c in got] == shown
    for c, truth in zip(got, p):
        assert c["verdict"] == "correct" and abs(mpmath.mpf(c["exact"]) - truth) < mpmath.mpf(10) ** -15

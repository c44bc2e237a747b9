"""A computed block printed again as first printed (a result restated further down, whole
or one row of it alone, or a vector as a row of a later table): its numbers are claims on the same step there, so a wrong result
restated is flagged at both prints, not left unverified the second time; not a row printed
after the text took that row's operands up again (its recomputation's).

Truths: worked out here with ``fractions``, never by symattn.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F

from conftest import check_post


def bm(rows):
    return "\\begin{bmatrix} " + " \\\\ ".join(" & ".join(str(x) for x in r) for r in rows) + " \\end{bmatrix}"


X = [["0.5", "1.5"], ["2", "-1"], ["1", "0.25"]]
W = [["0.2", "0.4", "-0.3"], ["0.6", "0.1", "0.7"]]
Q = [[sum(F(x) * F(w) for x, w in zip(r, c)) for c in zip(*W)] for r in X]


def two(q: F) -> str:
    """``q`` to two decimals, half up (exact: the fraction's decimal expansion)."""
    return str((Decimal(q.numerator) / Decimal(q.denominator)).quantize(Decimal("0.01"), ROUND_HALF_UP))


def _post(shown, again_line):
    return "\n".join([
        "# Queries by hand", "", f"$$X = {bm(X)}$$", "", f"$$W_Q = {bm(W)}$$", "",
        f"$$Q = X W_Q = {bm(shown)}$$", "", "Some words about what the queries mean.", "",
        again_line, ""])


def test_a_wrong_result_restated_is_flagged_where_it_is_restated(tmp_path):
    shown = [[two(q) for q in r] for r in Q]
    shown[1][2] = "-1.20"                      # a slip: -1.30 is right
    assert two(Q[1][2]) == "-1.30"
    post = _post(shown, f"So the queries are, once more: $$Q = {bm(shown)}$$")
    out = check_post(tmp_path, post)
    again = [c for c in out["claims"] if c["line"] == 11]
    assert len(again) == 9
    for c in again:
        i, j = int(c["at"][0]), int(c["at"][1])
        assert F(c["exact"]) == Q[i][j]
        assert c["verdict"] == ("wrong" if (i, j) == (1, 2) else "correct")
    first = [c for c in out["claims"] if c["line"] == 7 and c["verdict"] == "wrong"]
    assert [(int(c["at"][0]), int(c["at"][1])) for c in first] == [(1, 2)]


def test_a_result_restated_past_an_aside_the_example_does_not_take(tmp_path):
    """An aside between the result and its restatement prints a block nothing uses, so the
    example's lines break there: the restatement's line joins them, its numbers claims on
    ``Q`` (the slip flagged again), not numbers outside every example."""
    shown = [[two(q) for q in r] for r in Q]
    shown[0][1] = "0.55"                       # 0.35 is right
    assert two(Q[0][1]) == "0.35"
    aside = "$$u = \\begin{bmatrix} 7.5 & 8.25 \\end{bmatrix}$$"
    post = _post(shown, f"{aside}\n\nSo the queries are, once more: $$Q = {bm(shown)}$$\n\n"
                 f"Another aside: $$v = \\begin{{bmatrix}} 3.5 & 9.75 \\end{{bmatrix}}$$")
    out = check_post(tmp_path, post)
    again = [c for c in out["claims"] if c["line"] == 13]
    assert len(again) == 9
    for c in again:
        i, j = int(c["at"][0]), int(c["at"][1])
        assert c["step"] == "Q" and F(c["exact"]) == Q[i][j]
        assert c["verdict"] == ("wrong" if (i, j) == (0, 1) else "correct")


def test_a_restatement_on_lines_of_their_own_is_claimed_row_by_row(tmp_path):
    shown = [[two(q) for q in r] for r in Q]
    shown[0][0] = "1.20"                       # 1.00 is right
    rows = "\n".join("    [" + ", ".join(r) + "]" for r in shown)
    post = _post(shown, "Restated as a list:\n\n```\nQ =\n" + rows + "\n```")
    out = check_post(tmp_path, post)
    again = [c for c in out["claims"] if c["line"] > 11]
    assert sorted({c["line"] for c in again}) == [15, 16, 17]
    wrong = [(int(c["at"][0]), int(c["at"][1])) for c in again if c["verdict"] == "wrong"]
    assert wrong == [(0, 0)] and all(F(c["exact"]) == Q[int(c["at"][0])][int(c["at"][1])] for c in again)


def test_one_row_restated_alone_is_claimed_as_that_row(tmp_path):
    shown = [[two(q) for q in r] for r in Q]
    shown[2][0] = "0.53"                       # 0.35 is right: a digit swap
    row = "[" + ", ".join(shown[2]) + "]"
    out = check_post(tmp_path, _post(shown, f"The third query alone, once more: $q_3 = {row}$"))
    again = [c for c in out["claims"] if c["line"] == 11]
    assert sorted(int(c["at"][1]) for c in again) == [0, 1, 2]
    for c in again:
        assert int(c["at"][0]) == 2 and F(c["exact"]) == Q[2][int(c["at"][1])]
        assert c["verdict"] == ("wrong" if int(c["at"][1]) == 0 else "correct")


def test_a_row_after_the_same_operands_row_taken_up_again_is_not_claimed():
    from types import SimpleNamespace as N
    from symattn.infer.spec_out import _recomputed
    x = N(index=0, line=1, shape=(3, 2), parent=None)
    y = N(index=1, line=5, shape=(3, 2), parent=None)          # y derived from x
    again = N(index=2, line=9, shape=(1, 2), parent=None)      # x's first row, derived anew
    other = N(index=3, line=9, shape=(1, 2), parent=None)      # a row of something else
    derived = {1: N(block=y, operands=(x,)), 2: N(block=again, operands=(x,))}
    assert _recomputed(y, 12, derived)                          # y's row printed at 12: the recomputation's
    assert not _recomputed(y, 8, derived)                       # before it: y's own
    derived[2] = N(block=other, operands=(N(index=7, line=0, shape=(2, 2), parent=None),))
    assert not _recomputed(y, 12, derived)


def test_a_vector_printed_again_as_a_row_of_a_later_table(tmp_path):
    """``q = x W_Q`` worked for one token, then a table of every token's query: its row for
    that token prints ``q`` again (claims on ``q`` there, its slip flagged again); the other
    rows, never worked, stay no claim of ``q``."""
    x = [["2", "-1"]]
    q = [[sum(F(a) * F(w) for a, w in zip(x[0], c)) for c in zip(*W)]]
    shown = [two(v) for v in q[0]]
    assert shown == ["-0.20", "0.70", "-1.30"]
    shown[1] = "0.75"                                  # a slip
    other = ["0.55", "0.35", "0.15"]
    post = "\n".join(["# One query by hand", "", f"$$x = {bm(x)}$$", "", f"$$W_Q = {bm(W)}$$", "",
                      f"$$q = x W_Q = {bm([shown])}$$", "", "Every token's query:", "",
                      "| token | q1 | q2 | q3 |", "|---|---|---|---|",
                      "| the | " + " | ".join(other) + " |", "| cat | " + " | ".join(shown) + " |", ""])
    out = check_post(tmp_path, post)
    again = [c for c in out["claims"] if c["line"] == 14]
    assert sorted(int(c["at"][1]) for c in again) == [0, 1, 2]
    for c in again:
        j = int(c["at"][1])
        assert c["step"] == "q" and F(c["exact"]) == q[0][j]
        assert c["verdict"] == ("wrong" if j == 1 else "correct")
    assert not [c for c in out["claims"] if c["line"] == 13]

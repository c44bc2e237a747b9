"""Matrices drawn with box brackets in code (``┌ 1.0 0.0 ┐`` / ``│ 0.0 1.0 │`` /
``└ 1.0 1.0 ┘``, three side by side, a shape note after a row) are read as matrices, and a
bracket list whose "entries" are sums (``[0.2+0+0.1, 0+0.3]``) is no list of numbers.

Truths: the decimals as written (``fractions``), never symattn.
"""

from __future__ import annotations

from fractions import Fraction as F

from conftest import check_post

from symattn.article.matrices import find, parse_list
from symattn.article.source import Line

X = [["1.0", "0.0", "1.0", "0.0"], ["0.0", "1.0", "0.0", "1.0"], ["1.0", "1.0", "0.0", "0.0"]]
W_Q = [["0.1", "0.2", "0.0"], ["0.3", "0.0", "0.1"], ["0.0", "0.1", "0.2"], ["0.2", "0.0", "0.3"]]
W_K = [["0.2", "0.0", "0.1"], ["0.0", "0.3", "0.0"], ["0.1", "0.0", "0.2"], ["0.0", "0.1", "0.0"]]


def _box(name, m, note_at=1):
    """Lines of ``m`` drawn in box brackets, ``name = `` before its first row, ``(r × c)``
    after row ``note_at``."""
    pad = " " * (len(name) + 3)
    out = []
    for i, row in enumerate(m):
        left, right = ("┌", "┐") if i == 0 else ("└", "┘") if i == len(m) - 1 else ("│", "│")
        lead = f"{name} = " if i == 0 else pad
        note = f"    ({len(m)} × {len(m[0])})" if i == note_at else ""
        out.append(f"{lead}{left} {'  '.join(row)} {right}{note}")
    return out


def _values(m):
    return tuple(tuple(F(x) for x in r) for r in m)


def test_box_matrices_alone_and_side_by_side_are_read():
    beside = [f"{a}        {b}" for a, b in zip(_box("W_Q", W_Q, note_at=-1), _box("W_K", W_K, note_at=-1))]
    text = ["```", *_box("X", X), "", *beside, "```"]
    got = {p.name: p for p in find([Line(k + 1, t, "code") for k, t in enumerate(text)])}
    assert set(got) == {"X", "W_Q", "W_K"}, got
    assert _values([[str(v) for v in r] for r in got["X"].values]) == _values(X)
    assert got["X"].values == _values(X) and got["W_Q"].values == _values(W_Q)
    assert got["W_K"].values == _values(W_K) and got["W_K"].line == got["W_Q"].line == 6


def test_a_sum_is_no_entry_of_a_list():
    assert parse_list("[0.2+0+0.1+0, 0+0.3+0+0.1]", 0)[0] is None
    got, _ = parse_list("[[0.1 0.2]\n [0.3 0.4]]", 0)
    assert [[v for v, _ in r] for r in got] == [[F("0.1"), F("0.2")], [F("0.3"), F("0.4")]]
    got, _ = parse_list(r"[1 \quad -2]", 0)
    assert [v for v, _ in got] == [1, -2]


def test_a_projection_drawn_in_boxes_is_checked(tmp_path):
    Q = [[sum(F(a) * F(b) for a, b in zip(r, c)) for c in zip(*W_Q)] for r in X]
    shown = [[f"{float(q):.1f}" for q in r] for r in Q]
    assert [F(s) for r in shown for s in r] == [q for r in Q for q in r]          # exact in one decimal
    shown[1][2] = "0.5"                                                          # 0.4 slipped
    text = "\n".join(["# Q by hand", "", "```", *_box("X", X), "", *_box("W_Q", W_Q), "```", "",
                      "Q = X × W_Q:", "", "```", *_box("Q", shown, note_at=-1), "```", ""])
    out = check_post(tmp_path, text)
    assert [s["expr"] for ex in out["inferred"] for s in ex["steps"]] == ["X @ W_Q"]
    got = [c for c in out["claims"] if c["step"] == "Q"]
    assert sorted((c["at"], F(c["exact"])) for c in got) == \
        sorted(([str(i), str(j)], Q[i][j]) for i in range(3) for j in range(3))
    assert [c["printed"] for c in got if c["verdict"] == "wrong"] == ["0.5"]


W_V = [["1.0", "0.0", "0.0"], ["0.0", "1.0", "0.0"], ["0.0", "0.0", "1.0"], ["0.5", "0.5", "0.5"]]


def _rows_worked(W, name):
    """``Row i: [x] × W = [x·w₀ written out, …]`` then ``= [results]``, one decimal."""
    out = []
    for i, x in enumerate(X):
        terms = ["+".join(f"{int(float(a))}×{w[j]}" for a, w in zip(x, W)) for j in range(3)]
        res = [sum(F(a) * F(w[j]) for a, w in zip(x, W)) for j in range(3)]
        out += [f"Row {i + 1}: [{','.join(str(int(float(a))) for a in x)}] × {name} = [{', '.join(terms)}]",
                " " * 24 + "= [" + ", ".join(f"{float(r):.1f}" for r in res) + "]", ""]
    return out


def test_numbers_of_one_digit_make_no_statistics_of_a_weight(tmp_path):
    """W_V's row means (1/3, 1/3, 1/3, 1/2), squared deviations and variances all print as
    one-digit numbers (0.3, 0.1, 0.4, 0.2) that the arithmetic around it prints too: no
    evidence that the text works W_V's statistics."""
    three = [f"{a}        {b}        {c}" for a, b, c in
             zip(_box("W_Q", W_Q, -1), _box("W_K", W_K, -1), _box("W_V", W_V, -1))]
    text = "\n".join(["# QKV by hand", "", "```", *_box("X", X), "```", "", "```", *three, "```", "",
                      "**Q = X × W_Q:**", "```", *_rows_worked(W_Q, "W_Q"), "```", "",
                      "**K = X × W_K:**", "```", *_rows_worked(W_K, "W_K"), "```", ""])
    out = check_post(tmp_path, text)
    exprs = [s["expr"] for ex in out["inferred"] for s in ex["steps"]]
    assert exprs and not [e for e in exprs if "W_V" in e], exprs


def test_a_note_after_a_row_is_no_entry_but_a_list_after_one_is_read():
    code = [Line(1, "S = [[2.0, 0.0],     cat→cat=2, cat→sat=0", "code"),
            Line(2, "     [0.0, 2.0]]     sat→cat=0, sat→sat=2", "code")]
    assert [p.values for p in find(code)] == [((2, 0), (0, 2))]
    got = [p.values for p in find([Line(1, "q = [0.1, 0.2], k = [0.3, 0.4]", "code")])]
    assert got == [((F("0.1"), F("0.2")),), ((F("0.3"), F("0.4")),)]


def test_a_list_a_greek_name_assigns_is_a_block():
    got = [(p.name, p.values) for p in find([Line(1, "α_1 = [0.329, 0.335, 0.337]", "code")])]
    assert got == [("α_1", ((F("0.329"), F("0.335"), F("0.337")),))]

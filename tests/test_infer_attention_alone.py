"""An exercise's answer: the context matrix printed alone, its scores and weights not
(``Q``, ``K``, ``V`` given, ``C ≈ […]``), checked with no spec as
softmax(Q Kᵀ / √d_k) V; a wrong entry is flagged, the right ones pass.

Truths: ``mpmath`` at 30 digits, never symattn.
"""

from __future__ import annotations

import mpmath

from conftest import check_post

mpmath.mp.dps = 30
Q = [[1, 2], [3, 1]]
K = [[2, 1], [1, 1], [0, 1]]
V = [[1, 2, -2], [1, 1, 2], [0, 1, -1]]


def context():
    out = []
    for q in Q:
        s = [sum(mpmath.mpf(a) * b for a, b in zip(q, k)) / mpmath.sqrt(2) for k in K]
        e = [mpmath.exp(x) for x in s]
        w = [x / sum(e) for x in e]
        out.append([sum(w[i] * V[i][j] for i in range(3)) for j in range(3)])
    return out


def mat(rows):
    return "[" + ", ".join("[" + ", ".join(str(x) for x in r) + "]" for r in rows) + "]"


def test_a_context_printed_alone_is_attention_of_q_k_v(tmp_path):
    c = context()
    printed = [[f"{float(mpmath.nint(x * 1000)) / 1000:.3f}" for x in row] for row in c]
    assert printed == [["0.860", "1.576", "-0.724"], ["0.987", "1.882", "-1.565"]]
    printed[1][2] = "-1.556"                     # one slip
    text = (f"Q = {mat(Q)}\n\nK = {mat(K)}\n\nV = {mat(V)}\n\n"
            f"The context matrix (d_k = 2): C ≈ {mat(printed)}\n")
    d = check_post(tmp_path, text)
    got = {tuple(c["at"]): c["verdict"] for c in d["claims"]}
    assert len(got) == 6
    assert got[("1", "2")] == "wrong"
    assert [v for k, v in got.items() if k != ("1", "2")] == ["correct"] * 5

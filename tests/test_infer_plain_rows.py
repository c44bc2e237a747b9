"""Matrices printed one row a line (``Q =`` over ``[ 1.0  0.5 ]`` rows, ``| 1  0 |`` rows,
several side by side under ``W_Q =   W_K =``), read and checked with no spec: the reading
(:func:`symattn.article.matrices.stacked_rows`) and the whole check of a post written so.

Truths: the products worked out here with ``fractions``, never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F

from symattn.article.matrices import find
from symattn.article.source import Line


def lines(text: str, kind: str = "code") -> list[Line]:
    return [Line(i + 1, t, kind) for i, t in enumerate(text.splitlines())]


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def dec(x: F, places: int = 2) -> str:
    """``x`` printed to ``places`` decimals, ties rounded half up (as the articles do)."""
    q = Decimal(1).scaleb(-places)
    return str((Decimal(x.numerator) / Decimal(x.denominator)).quantize(q, rounding=ROUND_HALF_UP))


def rows(m, places=2):
    return "\n".join("[ " + "  ".join(dec(x, places) for x in r) + " ]" for r in m)


def test_side_by_side_rows_are_two_matrices_named_by_the_line_above():
    text = ("W_Q =            W_K =\n[ 1.0  0.5 ]     [ 0.5  0.0 ]\n[ 0.0  1.0 ]     [ 1.0  1.0 ]\n")
    got = {p.name: p.texts for p in find(lines(text))}
    assert got == {"W_Q": (("1.0", "0.5"), ("0.0", "1.0")), "W_K": (("0.5", "0.0"), ("1.0", "1.0"))}


def test_pipe_rows_and_a_name_beside_the_first_row():
    text = "A = | 1  -2 |\n    | 3   4 |\n\nB:\n| 0.5  0.25 |\n| 1.5  2 |\n"
    got = {p.name: p.values for p in find(lines(text, "text"))}
    assert got == {"A": ((1, -2), (3, 4)), "B": ((F(1, 2), F(1, 4)), (F(3, 2), 2))}


def test_rows_inside_a_wider_layout_or_a_nested_list_are_left_alone():
    karim = "            [0, 0, 1]\n[1, 0, 1] x [1, 1, 0] = [0, 1, 1]\n            [0, 1, 0]\n"
    nested = "X = [\n  [1, 0],\n  [0, 1]\n]\n"
    assert [p for p in find(lines(karim)) if p.form == "table"] == []
    assert [(p.name, p.form, p.values) for p in find(lines(nested))] == [("X", "list", ((1, 0), (0, 1)))]


def test_a_post_of_stacked_rows_is_inferred_and_its_wrong_entry_flagged(tmp_path):
    X = [[F(1), F(0), F(1)], [F(1, 2), F(1), F(0)], [F(0), F(1, 2), F(1)]]
    WQ = [[F(1), F(1, 2), F(0)], [F(0), F(1), F(1, 2)], [F(1, 2), F(0), F(1)]]
    WK = [[F(1, 2), F(0), F(1)], [F(1), F(1), F(0)], [F(0), F(1, 2), F(1, 2)]]
    Q, K = matmul(X, WQ), matmul(X, WK)
    S = matmul(Q, [list(r) for r in zip(*K)])
    printed = rows(S).splitlines()
    truth = S[1][2]
    wrong = truth + F(1, 10)
    cells = printed[1].strip("[] ").split()
    cells[2] = dec(wrong)
    printed[1] = "[ " + "  ".join(cells) + " ]"
    post = (f"# Attention by hand\n\n```\nX =\n{rows(X)}\n\nW_Q =\n{rows(WQ)}\n\nW_K =\n{rows(WK)}\n```\n\n"
            f"The queries Q = X W_Q and keys K = X W_K:\n\n```\nQ =\n{rows(Q)}\n\nK =\n{rows(K)}\n```\n\n"
            f"The scores Q Kᵀ:\n\n```\nS =\n" + "\n".join(printed) + "\n```\n")
    path = tmp_path / "post.md"
    path.write_text(post, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    claims = json.loads(r.stdout)["claims"]
    bad = [c for c in claims if c["verdict"] in ("wrong", "carried")]
    assert [(c["printed"], Decimal(c["exact"])) for c in bad] == \
        [(cells[2], Decimal(truth.numerator) / Decimal(truth.denominator))]
    assert sum(c["verdict"] == "correct" for c in claims) == 9 + 9 + 8

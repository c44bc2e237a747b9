"""Operations a text writes out with its matrices, wrong numbers and all.

``Q = XW_Q = [X][W_Q] = [Q]``, then ``QK^T = [Q][K^T] = [S]`` with ``K``'s numbers printed
turned, ``\\frac{QK^T}{\\sqrt{d_k}} ≈ [S']``, ``\\text{softmax}([row]) ≈ [w]`` row by row and
the weights whole, ``C = [W][V] ≈ [C]``: each result is what the text says it is, so every
printed number is judged against the exact chain from the printed inputs, the text's slips
flagged and no right number blamed. The same article pasted as a notebook's raw JSON (a
piece of an ``.ipynb`` copied from its raw view) reads the same. Truths: fractions and
mpmath, never symattn."""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath

from conftest import check_post
from symattn.article.read import read_article

X = [["0.1", "0.2", "0.3", "0.4"], ["0.5", "0.6", "0.7", "0.8"], ["0.9", "1.0", "1.1", "1.2"]]
WQ = [["0.1", "0.2"], ["0.3", "0.4"], ["0.5", "0.6"], ["0.7", "0.8"]]
WK = [["0.2", "0.3"], ["0.4", "0.5"], ["0.6", "0.7"], ["0.8", "0.9"]]
WV = [["0.3", "0.4"], ["0.5", "0.6"], ["0.7", "0.8"], ["0.9", "1.0"]]


def matmul(a, b):
    return [[sum(F(x) * F(y) for x, y in zip(r, c)) for c in zip(*b)] for r in a]


def turned(a):
    return [list(c) for c in zip(*a)]


def fmt(v, d: int = 2) -> str:
    return f"{float(v):.{d}f}"


def softmax(row):
    e = [mpmath.exp(x) for x in row]
    return [x / sum(e) for x in e]


def bmatrix(rows) -> str:
    return "\\begin{bmatrix}\n" + " \\\\\n".join(" & ".join(map(str, r)) for r in rows) + "\n\\end{bmatrix}"


Q, K, V = matmul(X, WQ), matmul(X, WK), matmul(X, WV)
S = matmul(Q, turned(K))
SCALED = [[mpmath.mpf(v.numerator) / v.denominator / mpmath.sqrt(2) for v in r] for r in S]
W = [softmax(r) for r in SCALED]
C = [[sum(W[i][k] * mpmath.mpf(V[k][j].numerator) / V[k][j].denominator for k in range(3)) for j in range(2)]
     for i in range(3)]
Q_SLIP = (1, 1, "1.2")              # Q[1, 1] is 1.40: a slip in the print of Q
K_SLIP = (2, 1, "2.30")             # K[2, 1] is 2.62
W_SLIP = [(0, 0, "0.09"), (0, 1, "0.24"), (0, 2, "0.67")]     # the first row of weights, all wrong


def printed(rows, d: int = 2, *slips):
    out = [[fmt(v, d) for v in r] for r in rows]
    for i, j, text in slips:
        out[i][j] = text
    return out


def garbled(rows):
    """The text's own numbers where it goes astray: each score 0.1 too high, each row of
    weights printed in reverse order."""
    return [[fmt(mp(x) + mpmath.mpf("0.1")) for x in r] for r in rows] if rows is S else \
        [[fmt(x) for x in reversed(r)] for r in rows]


def article(astray: bool = False) -> str:
    q = printed(Q, 2, Q_SLIP)
    k, v = printed(K, 2, K_SLIP), printed(V)
    w = garbled(W) if astray else printed(W, 2, *W_SLIP)
    s_text = garbled(S) if astray else printed(S)
    parts = ["Inputs:", "$$\nX = " + bmatrix(X) + "\n$$",
             "$$\nW_Q = " + bmatrix(WQ) + ", \\quad W_K = " + bmatrix(WK) + ", \\quad W_V = " + bmatrix(WV) + "\n$$"]
    for name, rows, weight in (("Q", q, WQ), ("K", k, WK), ("V", v, WV)):
        parts.append(f"$$\n{name} = XW_{name} = " + bmatrix(X) + "\n" + bmatrix(weight) + "\n= " + bmatrix(rows) + "\n$$")
    parts.append("$$\nQK^T = " + bmatrix(q) + "\n" + bmatrix(turned(k)) + "\n= " + bmatrix(s_text) + "\n$$")
    scaled = [[fmt(mpmath.mpf(x) / mpmath.sqrt(2)) for x in r] for r in s_text] if astray else printed(SCALED)
    parts.append("$$\n\\frac{QK^T}{\\sqrt{d_k}} \\approx " + bmatrix(scaled) + "\n$$")
    for i in range(3):
        parts.append("$$\n\\text{softmax}\\left(" + bmatrix([scaled[i]]) + "\\right)\n\\approx "
                     + bmatrix([w[i]]) + "\n$$")
    parts.append("$$\n\\text{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right) \\approx " + bmatrix(w) + "\n$$")
    c = [[fmt(sum(mpmath.mpf(w[i][k]) * mp(V[k][j]) for k in range(3)) + (mpmath.mpf("0.2") if astray else 0))
          for j in range(2)] for i in range(3)] if astray else printed(C)
    parts.append("$$\nC = " + bmatrix(w) + "\n" + bmatrix(v) + "\n\\approx " + bmatrix(c) + "\n$$")
    return "\n\n".join(parts) + "\n"


def raw_json(text: str) -> str:
    """``text`` as a Markdown cell's source in a notebook's raw JSON, one string a line."""
    lines = text.split("\n")
    body = [f"    {json.dumps(s + chr(10), ensure_ascii=False)}," for s in lines[:-1]]
    return "  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": [\n" + \
        "\n".join(body) + "\n   ]\n  },\n"


def mp(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, F) else mpmath.mpf(x)


CHAIN = [mp(x) for rows in (Q, K, V, S, SCALED, W, C) for r in rows for x in r]


def check(out) -> tuple[list, list]:
    """(flagged claims, right claims), after asserting that each claim's exact value is
    one of the chain's own, computed here."""
    claims = out["claims"]
    for c in claims:
        assert min(abs(mpmath.mpf(c["exact"]) - t) for t in CHAIN) < mpmath.mpf(10) ** -12, c
    return [c for c in claims if c["verdict"] in ("wrong", "carried")], \
        [c for c in claims if c["verdict"] == "correct"]


def test_each_written_operation_is_judged_against_the_exact_chain(tmp_path):
    out = check_post(tmp_path, article())
    wrong, right = check(out)
    assert right, out["summary"]
    # the slip is flagged where it is printed (the product Q and its restatement in QK^T)
    assert {c["line"] for c in wrong if c["printed"] == "1.2"}
    assert {c["line"] for c in wrong if c["printed"] == "2.30"}
    for c in right:
        assert c["printed"] == fmt(mpmath.mpf(c["exact"]), len(c["printed"].split(".")[1]))
    steps = [s["expr"] for ex in out["inferred"] for s in ex["steps"]]
    assert any(e.endswith(".T") and " @ " in e for e in steps), steps
    assert any(e.startswith("softmax(") and "[" not in e for e in steps), steps


def test_a_factor_printed_turned_is_the_block_transposed(tmp_path):
    """``QK^T = [Q][K^T]``: K's numbers printed turned stand for K itself: the scores are
    Q Kᵀ of the exact Q and K, every entry (the text's Q and K have a slip each: its
    scores are computed from the right ones, so they are right)."""
    out = check_post(tmp_path, article())
    lines = article().split("\n")
    at = next(k for k, s in enumerate(lines, start=1) if s.startswith("QK^T"))
    scores = [c for c in out["claims"] if at < c["line"] <= at + 12 and c["printed"] in
              {fmt(x) for r in S for x in r} and c["line"] > at + 8]
    assert len(scores) == 9
    for c in scores:
        i, j = (int(x) for x in c["at"])
        assert F(c["exact"]) == S[i][j]
        assert c["verdict"] == "correct"


def test_rows_worked_one_by_one_then_whole_are_the_softmax(tmp_path):
    """The text's first row of weights is wrong: the rows are the softmax of the exact
    scaled scores (as the text writes them, one by one, then whole), so that row is
    flagged where it is printed and the others are right."""
    out = check_post(tmp_path, article())
    w = printed(W, 2, *W_SLIP)
    lines = article().split("\n")
    whole = next(k for k, s in enumerate(lines, start=1) if "\\frac{QK^T}{\\sqrt{d_k}}\\right)" in s)
    got = [c for c in out["claims"] if whole < c["line"] <= whole + 4]
    assert len(got) == 9
    for c in got:
        i, j = (int(x) for x in c["at"])
        assert abs(mpmath.mpf(c["exact"]) - W[i][j]) < mpmath.mpf(10) ** -15
        assert c["printed"] == w[i][j]
        assert c["verdict"] == ("correct" if i else "wrong")


def test_the_weights_restated_in_the_product_are_no_step_of_their_own(tmp_path):
    out = check_post(tmp_path, article())
    lines = article().split("\n")
    at = next(k for k, s in enumerate(lines, start=1) if s.startswith("C = "))
    context = [c for c in out["claims"] if c["printed"] in {fmt(x) for r in C for x in r}
               and c["line"] > at + 8]
    assert len(context) == 6
    for c in context:
        i, j = (int(x) for x in c["at"])
        assert abs(mpmath.mpf(c["exact"]) - C[i][j]) < mpmath.mpf(10) ** -15
        assert c["verdict"] == "correct"


def test_a_notebook_pasted_as_raw_json_reads_as_its_cells(tmp_path):
    text = "intro\n\n" + "$$\nX = " + bmatrix(X) + "\n$$\n"
    raw = raw_json(text) + "  {\n   \"cell_type\": \"code\",\n   \"outputs\": [\n    {\n     \"text\": [\n" \
        "      \"tensor([0.25, 0.75])\\n\"\n     ]\n    }\n   ],\n   \"source\": [\n" \
        "    \"print(w)  # \\\"w\\\"\\n\"\n   ]\n  }\n"
    path = tmp_path / "piece.txt"
    path.write_text(raw, encoding="utf-8")
    lines = {ln.number: ln for ln in read_article(str(path))}
    src = raw.split("\n")
    row = next(n for n, s in enumerate(src, start=1) if "0.5 & 0.6" in s)
    assert lines[row].text == "0.5 & 0.6 & 0.7 & 0.8 \\\\"
    assert lines[row].kind == "math"
    k = lines[row].text.index("0.6")
    assert src[row - 1][lines[row].column(k) - 1:lines[row].column(k) + 2] == "0.6"
    out = next(n for n, s in enumerate(src, start=1) if "tensor(" in s)
    assert lines[out].kind == "output" and lines[out].text == "tensor([0.25, 0.75])"
    code = next(n for n, s in enumerate(src, start=1) if "print(w)" in s)
    assert lines[code].kind == "code" and lines[code].text == 'print(w)  # "w"'
    cell = next(n for n, s in enumerate(src, start=1) if "cell_type" in s)
    assert lines[cell].text == ""
    (tmp_path / "broken.ipynb").write_text(raw, encoding="utf-8")       # a piece, no notebook
    assert [ln.text for ln in read_article(str(tmp_path / "broken.ipynb"))] == \
        [ln.text for ln in read_article(str(path))]


def test_the_article_as_raw_json_finds_the_same_verdicts(tmp_path):
    plain = check_post(tmp_path, article())
    raw = check_post(tmp_path, raw_json(article()), name="piece.txt")
    key = lambda out: sorted((c["printed"], c["verdict"], c["exact"][:12]) for c in out["claims"])
    assert key(raw) == key(plain)
    assert raw["summary"]["wrong"] >= 1


def _at(text: str, start: str) -> int:
    return next(k for k, s in enumerate(text.split("\n"), start=1) if s.startswith(start))


def test_a_text_gone_astray_is_judged_on_the_exact_chain(tmp_path):
    """Scores 0.1 too high, weights printed reversed, the context from those: no formula
    the search tries reproduces them, but the text writes each operation with its
    matrices, so each print is judged against the exact chain (scores, weights, context
    computed here) and flagged where it differs."""
    text = article(astray=True)
    out = check_post(tmp_path, text)
    check(out)
    at = _at(text, "QK^T")
    scores = [c for c in out["claims"] if at + 8 < c["line"] <= at + 12]
    assert len(scores) == 9
    for c in scores:
        i, j = (int(x) for x in c["at"])
        assert F(c["exact"]) == S[i][j] and c["verdict"] in ("wrong", "carried")
    whole = next(k for k, s in enumerate(text.split("\n"), start=1) if "\\frac{QK^T}{\\sqrt{d_k}}\\right)" in s)
    weights = [c for c in out["claims"] if whole < c["line"] <= whole + 4]
    assert len(weights) == 9
    for c in weights:
        i, j = (int(x) for x in c["at"])
        assert abs(mpmath.mpf(c["exact"]) - W[i][j]) < mpmath.mpf(10) ** -15
        assert (c["verdict"] == "correct") == (c["printed"] == fmt(W[i][j]))
    at = _at(text, "C = ")
    context = [c for c in out["claims"] if c["line"] > at + 8]
    assert len(context) == 6
    for c in context:
        i, j = (int(x) for x in c["at"])
        assert abs(mpmath.mpf(c["exact"]) - C[i][j]) < mpmath.mpf(10) ** -15
        assert (c["verdict"] == "correct") == (c["printed"] == fmt(C[i][j]))


W1 = [["0.25", "0.75"], ["0.60", "0.40"]]
W2 = [["0.10", "0.90"], ["0.50", "0.50"]]
V1 = [["1.0", "2.0"], ["3.0", "-1.0"]]
V2 = [["0.5", "0.0"], ["-2.0", "4.0"]]


def heads_article() -> str:
    """Two heads' outputs written as products of their weights and values, each printed
    0.2 too high, then ``\\text{Concat}(C_1, C_2)`` printed from those."""
    out = ["Weights and values of two heads:",
           "$$\nW_1 = " + bmatrix(W1) + ", \\quad V_1 = " + bmatrix(V1) + "\n$$",
           "$$\nW_2 = " + bmatrix(W2) + ", \\quad V_2 = " + bmatrix(V2) + "\n$$"]
    printed_c = []
    for h, (w, v) in enumerate(((W1, V1), (W2, V2)), start=1):
        c = [[fmt(x + F(1, 5)) for x in r] for r in matmul(w, v)]
        printed_c.append(c)
        out.append(f"$$\nC_{h} = \\text{{softmax}}\\left(\\frac{{Q_{h}K_{h}^T}}{{\\sqrt{{d_k}}}}\\right)V_{h}\n"
                   "\\approx " + bmatrix(w) + "\n" + bmatrix(v) + "\n\\approx " + bmatrix(c) + "\n$$")
    out.append("$$\n\\text{Concat}(C_1, C_2) = " + bmatrix([a + b for a, b in zip(*printed_c)]) + "\n$$")
    return "\n\n".join(out) + "\n"


def test_a_concatenation_labelled_with_the_names_the_text_gave_its_results(tmp_path):
    """``C_1 = … ≈ [W_1][V_1] ≈ [..]`` names that product ``C_1``; the block labelled
    ``\\text{Concat}(C_1, C_2)`` is then the two exact products side by side, every number
    the text printed 0.2 too high flagged against them (fractions, computed here)."""
    text = heads_article()
    out = check_post(tmp_path, text)
    at = _at(text, "\\text{Concat}")
    got = [c for c in out["claims"] if c["line"] > at]
    truth = [a + b for a, b in zip(matmul(W1, V1), matmul(W2, V2))]
    assert len(got) == 8
    for c in got:
        i, j = (int(x) for x in c["at"])
        assert F(c["exact"]) == truth[i][j]
        assert c["verdict"] in ("wrong", "carried")
    steps = [s["expr"] for ex in out["inferred"] for s in ex["steps"]]
    assert any(e.startswith("concat(") for e in steps), steps


def test_a_slip_in_a_factor_restated_in_the_display_blames_no_right_product(tmp_path):
    """``Q = XW_Q = [X with a slip][W_Q] = [Q]`` where Q is printed right of the X given
    before: the search's product of the earlier X reproduces every entry and stays; the
    display's own slipped copy of X is no operand of it, so no right number is called
    wrong (fractions, computed here)."""
    slipped = [r[:] for r in X]
    slipped[2][1] = "1.9"                        # 1.0 restated as 1.9
    q = printed(Q)
    text = ("Inputs:\n\n$$\nX = " + bmatrix(X) + "\n$$\n\n$$\nW_Q = " + bmatrix(WQ) + "\n$$\n\n"
            "$$\nQ = XW_Q = " + bmatrix(slipped) + "\n" + bmatrix(WQ) + "\n= " + bmatrix(q) + "\n$$\n")
    out = check_post(tmp_path, text)
    got = out["claims"]
    assert len(got) == 6 and {c["line"] for c in got} == {_at(text, "Q = XW_Q") + k for k in (12, 13, 14)}
    for c in got:
        i, j = (int(x) for x in c["at"])
        assert F(c["exact"]) == Q[i][j] and c["verdict"] == "correct"

"""Issue 21, dependency order and per-token vectors: `symattn check ARTICLE` on articles that
print one vector per token in their prose, tables aligned by spaces, and rows one by one
that stack into a matrix never printed whole.

Every truth is worked out here with ``fractions`` (products, rounding half-up) and ``mpmath``
at 30 digits (exp, softmax), never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F

import mpmath
import pytest

from symattn.article.source import Line
from symattn.infer.blocks import blocks
from symattn.infer.vectors import aligned, prose_lists

mpmath.mp.dps = 30

VECTORS = {"a": [1, 0], "b": [0, 2], "c": [1, 1]}


def cli(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          timeout=300)


def rounded(x, places: int) -> str:
    """``x`` (a Fraction or an mpf) half-up to ``places`` decimals, from its decimal digits."""
    d = Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, F) else Decimal(mpmath.nstr(x, 25))
    return str(d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def softmax(row):
    e = [mpmath.exp(x) for x in row]
    return [x / mpmath.fsum(e) for x in e]


def dots():
    names = list(VECTORS)
    return [[sum(F(p) * F(q) for p, q in zip(VECTORS[i], VECTORS[j])) for j in names] for i in names]


WEIGHTS = [softmax(row) for row in dots()]
OUTPUTS = [[mpmath.fsum(w[k] * VECTORS[t][j] for k, t in enumerate(VECTORS)) for j in range(2)] for w in WEIGHTS]


def plain_text_article(weights: list[list[str]]) -> str:
    """A .txt article: vectors one a line, the dot products and the weights as tables
    aligned by spaces, the first row's weights said in a sentence before the weights, the
    outputs (weights times vectors) a row each in a sentence after them."""
    s = dots()
    lines = ["Attention over three vectors, by hand", "", "The vectors:", ""]
    lines += [f"{k} = [{v[0]}, {v[1]}]" for k, v in VECTORS.items()]
    lines += ["", "All the dot products, as a table:", "", "       a    b    c"]
    lines += [f"{k}      " + "    ".join(str(x) for x in row) for k, row in zip(VECTORS, s)]
    lines += ["", f"For the row of a, the weights are [{', '.join(weights[0])}].", "", "weights",
              "        a        b        c"]
    lines += [f"{k}    " + "   ".join(w) for k, w in zip(VECTORS, weights)]
    z = ["[" + ", ".join(rounded(x, 3) for x in row) + "]" for row in OUTPUTS]
    lines += ["", f"Mixing the vectors with these weights gives {z[0]} for a, {z[1]} for b and {z[2]} for c."]
    return "\n".join(lines) + "\n"


def printed_weights(places: int = 4):
    return [[rounded(x, places) for x in row] for row in WEIGHTS]


@pytest.mark.parametrize("places", [4, 3])     # 3: a hand computation, whose outputs from the
def test_a_plain_text_article_with_a_space_aligned_table_is_inferred(tmp_path, places):
    """(3 decimals: the outputs computed from the printed weights are off by what those
    carry; they are matched within what the computed weights may be off.)"""
    path = tmp_path / "by_hand.txt"
    path.write_text(plain_text_article(printed_weights(places)), encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    exprs = [s["expr"] for s in d["inferred"][0]["steps"]]
    mixed = next(s["name"] for s in d["inferred"][0]["steps"] if s["expr"].endswith("@ X"))
    assert "X @ X.T" in exprs and any(e.startswith("softmax(") for e in exprs)
    weights = [c for c in d["claims"] if c["printed"] in {w for row in printed_weights(places) for w in row}
               and "." in c["printed"] and c["step"] != mixed]
    assert len(weights) == 12 and all(c["verdict"] == "correct" for c in weights)   # 3 said + 9
    truths = {rounded(x, places): x for row in WEIGHTS for x in row}
    for c in weights:
        assert abs(mpmath.mpf(c["exact"]) - truths[c["printed"]]) < mpmath.mpf(10) ** -15
    assert {c["printed"] for c in d["claims"] if "." not in c["printed"]} >= {"4", "2"}   # the scores
    # the outputs, printed a row each in a sentence after the weights: one step, A @ X
    outputs = [c for c in d["claims"] if c["step"] == mixed]
    assert len(outputs) == 6 and all(c["verdict"] == "correct" for c in outputs)
    for c in outputs:
        i, j = list(VECTORS).index(c["at"][0]), int(c["at"][1])
        assert abs(mpmath.mpf(c["exact"]) - OUTPUTS[i][j]) < mpmath.mpf(10) ** -15


def test_a_wrong_weight_of_the_plain_text_table_is_flagged(tmp_path):
    w = printed_weights()
    w[2][0] = rounded(WEIGHTS[2][0] + mpmath.mpf("0.01"), 4)
    path = tmp_path / "by_hand.txt"
    path.write_text(plain_text_article(w), encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 1, r.stderr
    wrong = [c for c in json.loads(r.stdout)["claims"] if c["verdict"] == "wrong"]
    assert len(wrong) == 1 and wrong[0]["printed"] == w[2][0] and wrong[0]["at"] == ["c", "a"]
    assert abs(mpmath.mpf(wrong[0]["exact"]) - WEIGHTS[2][0]) < mpmath.mpf(10) ** -15


H = [[F("1.02"), F("0.91")], [F("0.88"), F("1.02")], [F("1.14"), F("0.86")], [F("0.76"), F("1.15")]]
W_K = [[F("0.5"), F("0.1")], [F("-0.4"), F("1.1")]]
Q = [F("1.17"), F("1.36")]
TOKENS = ["I", "love", "cats", "too"]


def keys():
    return [[sum(h[k] * W_K[k][j] for k in range(2)) for j in range(2)] for h in H]


def per_token_post() -> str:
    """Markdown: H as a table, W_K in LaTeX, then each token's key on a line of its own
    (the keys are never printed as a matrix), the query, and its scores against the keys."""
    k = keys()
    scores = [sum(Q[i] * kj[i] for i in range(2)) for kj in k]
    lines = ["# Cross-attention keys, one token at a time", "", "| token | h1 | h2 |", "|---|---|---|"]
    lines += [f"| {t} | {h[0]} | {h[1]} |".replace("Fraction", "") for t, h in
              zip(TOKENS, [[rounded(x, 2) for x in r] for r in H])]
    lines += ["", r"$$W_K = \begin{bmatrix} 0.5 & 0.1 \\ -0.4 & 1.1 \end{bmatrix}$$", "",
              "The key of each token is its row of H times W_K:", ""]
    lines += [f"- $K_{{{t}}} = [{rounded(r[0], 3)}, {rounded(r[1], 3)}]$" for t, r in zip(TOKENS, k)]
    lines += ["", f"The query of the decoder's token is $q = [{rounded(Q[0], 2)}, {rounded(Q[1], 2)}]$.",
              "", "Its score with each key:", "", "[" + ", ".join(rounded(s, 4) for s in scores) + "]"]
    return "\n".join(lines) + "\n"


def test_keys_printed_one_per_token_stack_into_the_matrix_a_step_computes(tmp_path):
    path = tmp_path / "keys.md"
    path.write_text(per_token_post(), encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    steps = {s["name"]: s["expr"] for s in d["inferred"][0]["steps"]}
    stack = next(n for n, e in steps.items() if e.endswith("@ W_K"))        # the keys, whole
    assert any(e == f"q @ {stack}.T" for e in steps.values()), steps        # the scores use them
    k = keys()
    key_claims = [c for c in d["claims"] if c["step"] == stack]
    assert len(key_claims) == 8 and all(c["verdict"] == "correct" for c in key_claims)
    for c in key_claims:
        i, j = TOKENS.index(c["at"][0]) if c["at"][0] in TOKENS else int(c["at"][0]), int(c["at"][1])
        assert F(c["exact"]) == k[i][j]
    scores = [c for c in d["claims"] if steps.get(c["step"], "").startswith("q @")]
    assert len(scores) == 4 and all(c["verdict"] == "correct" for c in scores)
    truths = [sum(Q[i] * kj[i] for i in range(2)) for kj in k]
    assert sorted(F(c["exact"]) for c in scores) == sorted(truths)
    out = tmp_path / "spec.toml"                                  # the written spec: same verdicts
    first = cli("check", "--json", str(path), "-o", str(out))
    again = cli("check", "--json", str(out))
    assert again.returncode == first.returncode == 0, again.stderr
    assert [c["verdict"] for c in json.loads(again.stdout)["claims"]] == \
        [c["verdict"] for c in json.loads(first.stdout)["claims"]]


def lines_of(text: str) -> list[Line]:
    return [Line(k + 1, t) for k, t in enumerate(text.splitlines())]


def test_prose_lists_are_vectors_but_not_the_operands_of_a_written_product():
    found = prose_lists(lines_of("the weights are [0.269, 0.731, 0] here\n"
                                 "mix = 0.269 × [1, 0] + 0.731 × [0, 1] = [0.269, 0.731]\n"
                                 r"= [0.8,\ 1.2] \cdot W" + "\n" + "index [3]\n"))
    assert [(p.line, p.values) for p in found] == [
        (1, ((F("0.269"), F("0.731"), F(0)),)), (2, ((F("0.269"), F("0.731")),))]


def test_a_space_aligned_table_is_read_with_its_labels():
    found, covered = aligned(lines_of("        first  second\nfirst     1      0.5\nsecond    0.25   2\n"))
    assert len(found) == 1 and covered == set()
    p = found[0]
    assert p.rows == ("first", "second") and p.values == ((1, F(1, 2)), (F(1, 4), 2))


def test_a_block_rounded_again_to_fewer_digits_is_no_candidate_of_its_own(tmp_path):
    path = tmp_path / "r.md"
    path.write_text("Final result: $[0.501, 0.249, 0.249]$ ≈ $[0.50, 0.25, 0.25]$\n\n"
                    "Other: $[0.50, 0.26, 0.25]$\n", encoding="utf-8")
    from symattn.article.read import read_article
    found = blocks([(str(path), read_article(str(path)))])
    assert [b.printed.texts for b in found] == [(("0.501", "0.249", "0.249"),), (("0.50", "0.26", "0.25"),)]


X4 = [[F("1.0"), F("0.5")], [F("0.8"), F("1.2")], [F("1.5"), F("0.7")], [F("0.6"), F("1.8")]]
W_Q4 = [[F("1.0"), F("0.2")], [F("0.1"), F("0.9")]]
W_K4 = [[F("0.6"), F("0.1")], [F("-0.3"), F("1.0")]]


def mat(m, places) -> str:
    return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(rounded(x, places) for x in r) for r in m) + r" \end{bmatrix}"


def test_a_query_printed_before_the_queries_table_is_its_row(tmp_path):
    """The query of one token is printed (and used) before the table of every token's
    query: the scores are computed from that table's row, and the vector is checked as it."""
    q = [[sum(x[k] * W_Q4[k][j] for k in range(2)) for j in range(2)] for x in X4]
    k = [[sum(x[m] * W_K4[m][j] for m in range(2)) for j in range(2)] for x in X4]
    scores = [sum(q[1][m] * kj[m] for m in range(2)) for kj in k]
    text = "\n".join([
        "# One query first", "", f"$$X = {mat(X4, 1)}$$", "", f"$$W_Q = {mat(W_Q4, 1)}$$", "",
        f"$$W_K = {mat(W_K4, 1)}$$", "", "The query of the second token:", "",
        f"q = [{rounded(q[1][0], 2)}, {rounded(q[1][1], 2)}]", "", f"$$K = {mat(k, 2)}$$", "",
        "Its scores against every key:", "", "[" + ", ".join(rounded(s, 4) for s in scores) + "]", "",
        "For the record, the queries of all the tokens:", "", f"$$Q = {mat(q, 2)}$$", ""])
    path = tmp_path / "q.md"
    path.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    steps = {s["name"]: s["expr"] for s in d["inferred"][0]["steps"]}
    assert steps.get("Q") == "X @ W_Q" and "Q[1] @ K.T" in steps.values(), steps
    assert "q" not in d["inferred"][0]["inputs"]
    line = text.splitlines().index(f"q = [{rounded(q[1][0], 2)}, {rounded(q[1][1], 2)}]") + 1
    printed_q = [c for c in d["claims"] if c["line"] == line]
    assert len(printed_q) == 2 and all(c["verdict"] == "correct" and c["step"] == "Q" for c in printed_q)
    assert sorted(F(c["exact"]) for c in printed_q) == sorted(q[1])


def test_a_table_of_one_row_latex_matrices_gives_a_matrix_per_column():
    row = r"$\begin{bmatrix}%s & %s\end{bmatrix}$"
    text = "token\tx\tq\n" + "\n".join(f"{t}\t{row % tuple(x)}\t{row % tuple(q)}" for t, x, q in
                                      [("a", ("1", "0"), ("0", "1")), ("b", ("0.5", "1"), ("1", "0.25"))])
    lines = [Line(k + 1, t) for k, t in enumerate(text.splitlines())]
    found, covered = aligned(lines)
    assert covered == {2, 3}
    assert [(p.name, p.rows, p.values) for p in found] == [
        ("x", ("a", "b"), ((1, 0), (F(1, 2), 1))), ("q", ("a", "b"), ((0, 1), (1, F(1, 4))))]


def test_the_vectors_of_a_latex_table_are_one_block_per_column(tmp_path):
    row = r"$\begin{bmatrix}%s & %s\end{bmatrix}$"
    x, w = [["1", "0"], ["0", "1"], ["1", "1"]], [["0", "1"], ["1", "0.5"]]
    q = [[sum(F(x[i][k]) * F(w[k][j]) for k in range(2)) for j in range(2)] for i in range(3)]
    body = [f"{t}\t{row % tuple(x[i])}\t{row % tuple(str(v) if v.denominator == 1 else str(float(v)) for v in q[i])}"
            for i, t in enumerate(["s", "cat", "sat"])]
    path = tmp_path / "t.md"
    path.write_text("$$W = \\begin{bmatrix} 0 & 1 \\\\ 1 & 0.5 \\end{bmatrix}$$\n\nrow\tinput\tQ\n"
                    + "\n".join(body) + "\n", encoding="utf-8")
    from symattn.article.read import read_article
    found = blocks([(str(path), read_article(str(path)))])
    assert [b.shape for b in found] == [(2, 2), (3, 2), (3, 2)]
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert [s["expr"] for s in d["inferred"][0]["steps"]] == ["input @ W"]     # the column headers name them
    claims = [c for c in d["claims"] if c["step"] == "Q"]
    assert len(claims) == 6 and all(c["verdict"] == "correct" for c in claims)
    assert sorted(F(c["exact"]) for c in claims) == sorted(v for r_ in q for v in r_)

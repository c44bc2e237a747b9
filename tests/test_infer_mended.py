"""A slip in a printed result that the author did not carry on (`symattn check ARTICLE`).

The keys are printed with one entry wrong, but the scores are worked from the right keys:
the scores are derived from the keys' derivation, so the slip is flagged and the scores
judged right; the matrix rows carry their tokens on the right (``[ 1  0  1 ]   The``).
Truths: ``fractions``, never symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from fractions import Fraction as F

X = [[1, 0, 1], [0, 1, 1], [1, 1, 0]]
W_Q = [[F("1.0"), F("0.5")], [F("0.0"), F("1.0")], [F("0.5"), F("0.0")]]
W_K = [[F("0.0"), F("1.0")], [F("1.0"), F("0.5")], [F("0.5"), F("1.0")]]
TOKENS = ("The", "cat", "sat")


def times(a, b):
    return [[sum(F(x) * y for x, y in zip(r, c)) for c in zip(*b)] for r in a]


def rows(m, labels=None) -> str:
    return "\n".join("[ " + "  ".join(f"{float(x):.1f}" if not isinstance(x, int) else str(x) for x in r)
                     + " ]" + (f"   {labels[i]}" if labels else "") for i, r in enumerate(m))


def test_scores_from_the_right_keys_behind_a_slip(tmp_path):
    q, k = times(X, W_Q), times(X, W_K)
    s = [[sum(a * b for a, b in zip(qr, kr)) for kr in k] for qr in q]
    printed_k = [r[:] for r in k]
    printed_k[1][1] = k[1][1] + 1                          # the slip: one too large
    text = "\n".join([
        "# Scores by hand", "", "```text", "X =", rows(X, TOKENS), "```", "",
        "```text", "W_Q =", rows(W_Q), "```", "", "```text", "W_K =", rows(W_K), "```", "",
        "Q = X·W_Q and K = X·W_K:", "", "```text", "Q =", rows(q), "", "K =", rows(printed_k), "```", "",
        "The scores S = Q·Kᵀ:", "", "```text", "S =", "\n".join(
            "[ " + "  ".join(f"{float(x):.2f}" for x in r) + " ]" for r in s), "```", ""])
    post = tmp_path / "post.md"
    post.write_text(text, encoding="utf-8")
    spec = tmp_path / "spec.toml"
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(post), "-o", str(spec)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    steps = {st["name"]: st["expr"] for st in tomllib.loads(spec.read_text(encoding="utf-8"))["steps"]}
    assert steps == {"Q": "X @ W_Q", "K": "X @ W_K", "S": "Q @ K.T"}, steps
    claims = json.loads(r.stdout)["claims"]
    wrong = [c for c in claims if c["verdict"] != "correct"]
    assert [(c["step"], c["at"]) for c in wrong] == [("K", ["cat", "1"])], wrong
    assert F(wrong[0]["exact"]) == k[1][1]
    got = sorted(F(c["exact"]) for c in claims if c["step"] == "S")
    assert got == sorted(x for r in s for x in r)


def test_a_matrix_printed_a_row_a_line_with_its_tokens_on_the_right(tmp_path):
    from symattn.article.matrices import find
    from symattn.article.read import read_article
    post = tmp_path / "post.md"
    post.write_text("```\nX = [1, 0]   ← Token A\n    [0, 1]   ← Token B\n```\n\n```text\nE =\n"
                    "[ 0.5  1.0 ]   The\n[ 2.0  0.0 ]   cat\n```\n\nThen [ 1.0  2.0 ] is the sum of the two.\n",
                    encoding="utf-8")
    got = [(m.name, m.shape, m.rows) for m in find(read_article(str(post)))]
    assert ("X", (2, 2), ("Token A", "Token B")) in got or ("X", (2, 2), None) in got, got
    assert ("E", (2, 2), ("The", "cat")) in got, got
    assert not any(s == (1, 2) for _, s, _ in got), got       # prose around a row: no matrix


def test_a_table_the_spec_says_prints_a_step_is_that_step_row_by_row(tmp_path):
    """Two tables with the same token labels (scaled scores, then weights): the weights'
    rows worked without 1/√2 agree with no step, yet the inferred step says the second table
    prints the weights: each of those cells is judged there, wrong (mpmath truths)."""
    import mpmath
    mpmath.mp.dps = 30
    q, k, tokens = [[0, 1], [2, 1], [2, 2]], [[2, 1], [0, 1], [1, 1]], ("we", "go", "now")

    def softmax(r):
        e = [mpmath.exp(x) for x in r]
        return [x / mpmath.fsum(e) for x in e]
    raw = [[mpmath.mpf(sum(x * y for x, y in zip(a, b))) for b in k] for a in q]
    scaled = [[x / mpmath.sqrt(2) for x in r] for r in raw]
    right = [softmax(r) for r in scaled]
    printed = [right[0], softmax(raw[1]), softmax(raw[2])]

    def table(m):
        return "| | we | go | now |\n|---|---|---|---|\n" + "".join(
            f"| **{t}** | " + " | ".join(f"{float(x):.3f}" for x in r) + " |\n" for t, r in zip(tokens, m))
    text = ("# Attention by hand\n\n| token | q | k |\n|---|---|---|\n" + "".join(
        f"| {t} | [{a[0]:.1f}, {a[1]:.1f}] | [{b[0]:.1f}, {b[1]:.1f}] |\n" for t, a, b in zip(tokens, q, k))
        + "\nScaled scores q·k / √2:\n\n" + table(scaled) + "\nSoftmax over each row:\n\n" + table(printed))
    post = tmp_path / "post.md"
    post.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(post)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    claims = [c for c in json.loads(r.stdout)["claims"] if c["line"] in (22, 23)]
    assert len(claims) == 6 and all(c["verdict"] == "wrong" for c in claims), claims
    for c in claims:
        i, j = tokens.index(c["at"][0]), tokens.index(c["at"][1])
        assert abs(mpmath.mpf(c["exact"]) - right[i][j]) < mpmath.mpf("1e-18")

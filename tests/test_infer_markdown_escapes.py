"""Markdown's backslash escapes (``\\[0.2, 0.5]``, ``0.73 \\* [0, 1]``, ``W\\_Q``), as chat
exports and converters write them, read as the text shows them; and a weighted sum written
on weights that several softmax rows print, each weight taken from its own row's list.

Truths come from ``mpmath`` (30 digits) and ``fractions``, never from symattn.
"""

from __future__ import annotations

import subprocess
import sys

import mpmath
import pytest

from conftest import check_post
from symattn.article.markdown import escaped_brackets, unescaped
from symattn.article.read import read_article

mpmath.mp.dps = 30


@pytest.mark.parametrize("line, shown", [
    (r'"cat": \[0.8, 0.1]', '"cat": [0.8, 0.1]'),
    (r"0.73 \* [0, 1] + 0.27 \* [1, 0]", "0.73 * [0, 1] + 0.27 * [1, 0]"),
    (r"W\_Q2 = W\_K2", "W_Q2 = W_K2"),
    (r"\-0.5 and $x\_1$ and `a\_b`", "-0.5 and $x\\_1$ and `a\\_b`"),   # math and code as written
    (r"\(x\) \| y \\ z", r"\(x\) \| y \\ z"),                          # delimiters, a cell, a break
])
def test_escapes_read_as_shown(line, shown):
    brackets = {k for _, k in escaped_brackets([line])}
    text, columns = unescaped(line, brackets)
    assert text == shown
    if columns is not None:                  # each character at its own source column
        assert all(line[c - 1] == ch for c, ch in zip(columns, text))


def test_displayed_math_is_no_escape():
    lines = [r"a \[0.2, 0.5] b", r"\[ x = [1, 2] \]", r"\[", r"y", r"\]", r"c \]"]
    assert escaped_brackets(lines) == {(0, 2), (5, 2)}


def test_an_unclosed_bracket_leaves_the_rest_prose(tmp_path):
    path = tmp_path / "a.md"
    path.write_text('* "The": \\[0.2, 0.5]\n\nSome prose.\n\n* "cat": \\[0.8, 0.1]\n', encoding="utf-8")
    kinds = [(ln.number, ln.kind) for ln in read_article(str(path))]
    assert kinds == [(1, "text"), (2, "text"), (3, "text"), (4, "text"), (5, "text")]


POST = r"""# The cat sat

*   "The": \[0.2, 0.5]
*   "cat": \[0.8, 0.1]
*   "sat": \[0.3, 0.9]

Attention weights (no scaling):

*   Softmax(0.29, 0.21, 0.51) ≈ \[0.28, 0.23, 0.49]
*   Softmax(0.21, 0.65, 0.33) ≈ \[0.18, 0.59, 0.23]
*   Softmax(0.51, 0.33, 0.90) ≈ \[0.23, 0.15, 0.62]

Context vectors:

*   (0.28 * \[0.2, 0.5]) + (0.23 * \[0.8, 0.1]) + (0.49 * \[0.3, 0.9]) ≈ \[0.41, 0.54]
*   (0.18 * \[0.2, 0.5]) + (0.59 * \[0.8, 0.1]) + (0.23 * \[0.3, 0.9]) ≈ \[0.57, 0.35]
"""

V = [["0.2", "0.5"], ["0.8", "0.1"], ["0.3", "0.9"]]


def softmax(z):
    e = [mpmath.exp(mpmath.mpf(x)) for x in z]
    return [x / mpmath.fsum(e) for x in e]


def context(weights):
    return [mpmath.fsum(w * mpmath.mpf(v[j]) for w, v in zip(weights, V)) for j in range(2)]


def test_weights_of_a_written_softmax_are_taken_from_their_own_row(tmp_path):
    got = {(c["line"], c["printed"]): c for c in check_post(tmp_path, POST, "catsat.md")["claims"]}
    w0, w1 = softmax(["0.29", "0.21", "0.51"]), softmax(["0.21", "0.65", "0.33"])
    for printed, truth in zip(["0.28", "0.23", "0.49"], w0):
        c = got[(9, printed)]                # 0.3155…, 0.2913…, 0.3932…: the text's are wrong
        assert abs(mpmath.mpf(c["exact"]) - truth) < mpmath.mpf("1e-15") and c["verdict"] == "wrong"
    # The context of "The" from the exact weights of ITS row (0.23 is also row 1's and row 2's
    # print): 0.4141, 0.5408, so 0.41 and 0.54 are right.
    for printed, truth in zip(["0.41", "0.54"], context(w0)):
        c = got[(15, printed)]
        assert abs(mpmath.mpf(c["exact"]) - truth) < mpmath.mpf("1e-15")
        assert c["verdict"] == "correct"
    for printed, truth in zip(["0.57", "0.35"], context(w1)):    # 0.4838, 0.4538: wrong
        c = got[(16, printed)]
        assert abs(mpmath.mpf(c["exact"]) - truth) < mpmath.mpf("1e-15") and c["verdict"] == "wrong"


WEIGHTED = """Weights:
- Q1: softmax([0.707, 0]) ≈ [0.668, 0.332]
- Q2: softmax([0, 0.707]) ≈ [0.332, 0.668]
Output:
- Q1: 0.668*[1,0] + 0.332*[2,1] ≈ [1.332, 0.332]
- Q2: 0.332*[1,0] + 0.668*[2,1] ≈ [1.668, 0.668]
"""


def test_a_result_that_repeats_a_weight_is_no_origin_of_it(tmp_path):
    """[1.332, 0.332] prints 0.332 again (0.332 × 1): the results of line 5, not the weight
    that line 6 takes up; that is the softmax's, 0.3302…"""
    got = {(c["line"], c["printed"]): c for c in check_post(tmp_path, WEIGHTED, "weighted.txt")["claims"]}
    w = softmax(["0.707", "0"])
    assert abs(mpmath.mpf(got[(6, "1.668")]["exact"]) - (w[1] + 2 * w[0])) < mpmath.mpf("1e-15")
    assert got[(6, "1.668")]["verdict"] == "wrong"          # 1.66976…: 1.670


def test_the_fixed_article_keeps_its_escapes(tmp_path):
    path, fixed = tmp_path / "catsat.md", tmp_path / "fixed.md"
    path.write_text(POST, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", str(path), "--fix", "-o", str(fixed)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    w = softmax(["0.29", "0.21", "0.51"])                   # 0.3155…, 0.2913…, 0.3932…
    want = POST.replace(r"≈ \[0.28, 0.23, 0.49]", r"≈ \[{:.2f}, {:.2f}, {:.2f}]".format(*map(float, w)))
    assert fixed.read_text(encoding="utf-8").splitlines()[8] == want.splitlines()[8]
    assert r"\[0.32, 0.29, 0.39]" in fixed.read_text(encoding="utf-8")


@pytest.mark.parametrize("content, kind", [
    ('Wort | Query\n"I" | [0.8, 0.1]\n"love" | [-0.2, 0.7]\n', "table"),
    ("x | y\n1 | 2\n", "table"),
    ("a = b | c\nd = e | f\n", "code"),                   # assignments: code
    ("if a || b:\n    c || d\n", "code"),
    ("| a | b |\n+---+---+\n| 1 | 2 |\n", "code"),          # a drawn box: rows unlike
    ("x | y\nfoo | bar\n", "code"),                        # no number under the header
])
def test_a_code_block_is_a_table_only_when_every_line_is_a_row(content, kind):
    from symattn.article.markdown import block_kind
    assert block_kind("", content, [], 0) == kind

"""Rows the text names one by one as one matrix's, and what is not a softmax's print.

``hidden[0] = [...]`` and ``hidden[1] = [...]`` (each in code of its own) are the rows of
one ``hidden``: the rows are stacked and derived whole, so a row worked wrong is judged
against the same product that reproduces the other (two rows are enough when the text
names them so). Vectors listed after quoted tokens (``* "Hello" -> [...]``) are the rows of
one matrix too, so a sum over both rows is not taken for a one-row bias broadcast. A row of
0s and 1s after a softmax is a one-hot label, not weights; and a number printed as
``1.1e-14`` is no cut of 6.9e-17. Truths in fractions, never symattn's."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np

from conftest import check_post
from symattn.article.cells import Printed
from symattn.infer.blocks import printed_block
from symattn.infer.evidence import truncated

X = [["1.0", "0.5", "-0.3", "0.8"], ["0.2", "-0.4", "0.6", "0.1"]]
W = [["0.1", "0.2", "0.3", "0.4"], ["0.2", "0.1", "0.4", "0.3"], ["0.3", "0.4", "0.1", "0.2"],
     ["0.4", "0.3", "0.2", "0.1"], ["0.1", "0.3", "0.2", "0.4"]]
ROW1 = ["0.17", "0.21", "0.23", "0.19", "0.20"]          # made up: not W @ x[1]


def truth(i: int) -> list[F]:
    return [sum(F(w) * F(x) for w, x in zip(row, X[i])) for row in W]


def rows_post() -> str:
    row0 = ", ".join(f"{float(v):.2f}" for v in truth(0))
    lists = lambda m: ",\n".join("    [" + ", ".join(r) + "]" for r in m)
    return (f"### Input\n\n```python\nx = [\n{lists(X)},\n]\nW = [\n{lists(W)},\n]\n```\n\n"
            f"For position 0: `hidden[0] = W @ x[0]`\n\n```python\nhidden[0] = [{row0}]\n```\n\n"
            f"Similarly for position 1:\n\n```python\nhidden[1] = [{', '.join(ROW1)}]\n```\n")


def test_a_row_named_by_index_is_judged_with_its_sibling(tmp_path):
    out = check_post(tmp_path, rows_post())
    claims = [c for c in out["claims"] if c["step"] == "hidden"]
    wrong = {(c["printed"], F(c["exact"])) for c in claims if c["verdict"] == "wrong"}
    right = {c["printed"] for c in claims if c["verdict"] == "correct"}
    want = {(p, t) for p, t in zip(ROW1, truth(1)) if F(p) != t}
    assert wrong == want and len(want) == 5
    assert right == {f"{float(v):.2f}" for v in truth(0)}


def test_a_named_row_printed_over_two_lines_is_claimed_by_no_line(tmp_path):
    """The stack's rows are claimed only where a row is printed on one line: a row split
    over two lines is left to the article's matcher, and no claim the line cannot hold is
    written (the check would warn that the line does not print it)."""
    import subprocess
    import sys
    path = tmp_path / "post.md"
    path.write_text(rows_post().replace("0.17, 0.21, 0.23", "0.17, 0.21,\n             0.23"), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)], capture_output=True, text=True)
    assert r.returncode in (0, 1) and "does not print" not in r.stderr, r.stderr


def test_token_rows_stack_into_the_matrix_a_sum_adds(tmp_path):
    text = ('The positional encodings:\n\n* "Hello" -> [0, 1, 0, 1]\n* "World" -> [0.84, 0.99, 0, 1]\n\n'
            "The embeddings $E = \\begin{bmatrix} 1 & 2 & 3 & 4 \\\\ 2 & 3 & 4 & 5 \\end{bmatrix}$.\n\n"
            "Adding them:\n\n$$\nE' = \\begin{bmatrix} 1 & 3 & 3 & 5 \\\\ 2.84 & 3.99 & 4 & 6 \\end{bmatrix}\n$$\n")
    out = check_post(tmp_path, text)
    e = [["1", "2", "3", "4"], ["2", "3", "4", "5"]]
    pe = [["0", "1", "0", "1"], ["0.84", "0.99", "0", "1"]]
    sums = {F(a) + F(b) for r, s in zip(e, pe) for a, b in zip(r, s)}
    line = text.splitlines().index("E' = \\begin{bmatrix} 1 & 3 & 3 & 5 \\\\ 2.84 & 3.99 & 4 & 6 \\end{bmatrix}") + 1
    assert not [c for c in out["claims"] if c["verdict"] == "wrong"]
    assert {F(c["exact"]) for c in out["claims"] if c["line"] == line} <= sums
    assert {c["printed"] for c in out["claims"] if c["line"] == line} >= {"2.84", "3.99", "1"}


def test_a_one_hot_row_after_softmax_is_no_weights(tmp_path):
    text = ("The logits are [-4.623, 4.3044, 6.8688].\nWe apply the softmax function to them.\n"
            "p1 = (e^-4.623) / (e^-4.623 + e^4.3044 + e^6.8688) = 0\n"
            "p2 = (e^4.3044) / (e^-4.623 + e^4.3044 + e^6.8688) = 0.07\n"
            "If the third class is right, the label is [0,0,1].\n")
    out = check_post(tmp_path, text)
    assert not [c for c in out["claims"] if c["line"] == 5]
    assert not [c for c in out["claims"] if c["verdict"] == "wrong"]


def block(*texts: str):
    return printed_block("w", Printed("w", 1, (tuple(F(t) for t in texts),), (texts,)), 0, "post.md")


def test_a_cut_never_grows_a_number():
    assert not truncated(np.array([[6.91675398e-17, 1.0]]), block("1.10613872e-14", "1.00000000e+00"))
    assert truncated(np.array([[0.730291, 0.120987]]), block("0.7302", "0.1209"))     # a real cut


def test_a_fine_print_is_matched_relative_to_its_size(tmp_path):
    """Weights printed as ``1.10613872e-14`` are not the softmax of scores whose weight is
    6.97e-17 (only the 1s agree): nothing derives them, so nothing is called wrong (the
    article, with no other step, has no example)."""
    import subprocess
    import sys
    import mpmath
    text = ("Scores:\n\n```\narray([[ 0.  , 37.2 ],\n       [ 0.  , 50.1 ]])\n```\n\n"
            "The weights:\n\n```\narray([[1.10613872e-14, 1.00000000e+00],\n"
            "       [4.95934510e-20, 1.00000000e+00]])\n```\n")
    tiny = [1 / (1 + mpmath.exp(mpmath.mpf(s))) for s in ("37.2", "50.1")]
    assert all(abs(t - mpmath.mpf(p)) > 100 * t for t, p in zip(tiny, ("1.10613872e-14", "4.95934510e-20")))
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)], capture_output=True, text=True)
    assert r.returncode == 2 and "none is computed from the others" in r.stderr

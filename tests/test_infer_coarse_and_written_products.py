"""Examples printed to one decimal, checked with no spec:

- token vectors and weights stated to one decimal are inputs: no vector is "derived" from
  another by a chain whose slack (the operands' rounding, carried) is as wide as the numbers
  themselves, and no one-digit vector is "reproduced" by rounding a nonlinearity of
  another (``gelu([0.1, 0.2, 0.1, 0.3])`` prints ``[0.1, 0.1, 0.1, 0.2]``): nothing is
  flagged where nothing is computed;
- ``Q = [X][W_Q] = [C]`` (the factors written again, side by side) is the product as
  written: each wrong entry of C is flagged, each right one passes, even when most are wrong.

Truths: ``fractions``, never symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F

from conftest import check_post

TOKENS = [["0.1", "0.2", "0.1", "0.3"], ["0.0", "0.1", "0.2", "0.4"], ["0.5", "0.3", "0.2", "0.1"],
          ["0.1", "0.1", "0.1", "0.2"], ["0.2", "0.3", "0.1", "0.0"], ["0.4", "0.0", "0.3", "0.2"],
          ["0.3", "0.1", "0.4", "0.1"], ["0.5", "0.2", "0.0", "0.1"]]
W_Q = [["0.5", "0.1", "0.2", "0.2"], ["0.2", "0.3", "0.1", "0.4"], ["0.1", "0.5", "0.3", "0.1"],
       ["0.3", "0.1", "0.4", "0.2"]]
W_K = [["0.4", "0.2", "0.1", "0.3"], ["0.1", "0.3", "0.2", "0.5"], ["0.2", "0.4", "0.5", "0.1"],
       ["0.3", "0.2", "0.1", "0.4"]]


def bmatrix(rows):
    return "\\begin{bmatrix}\n" + " \\\\\n".join(" & ".join(r) for r in rows) + "\n\\end{bmatrix}"


def inputs() -> str:
    listed = "\n".join(f"- \"w{i}\" → [{', '.join(r)}]" for i, r in enumerate(TOKENS))
    return (f"Each word is a 4-dimensional vector:\n\n{listed}\n\n$$\n\\mathbf{{X}} =\n{bmatrix(TOKENS)}\n$$\n\n"
            f"$$\n\\mathbf{{W}}_Q =\n{bmatrix(W_Q)}, \\quad\n\\mathbf{{W}}_K =\n{bmatrix(W_K)}\n$$\n\n")


def two_decimals(v: F) -> str:
    return str((Decimal(v.numerator) / Decimal(v.denominator)).quantize(Decimal("0.01"), ROUND_HALF_UP))


def product(a, b):
    return [[sum(F(a[i][k]) * F(b[k][j]) for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def test_one_decimal_inputs_alone_are_no_example_and_nothing_is_flagged(tmp_path):
    path = tmp_path / "post.md"
    path.write_text(inputs(), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stdout
    assert "no worked example found" in r.stderr and "Traceback" not in r.stderr


def test_a_product_written_with_its_factors_is_checked_as_written(tmp_path):
    q = product(TOKENS, W_Q)
    assert q[0] == [F(19, 100), F(15, 100), F(19, 100), F(17, 100)]
    printed = [[two_decimals(v) for v in row] for row in q]
    wrong = {(0, 0): "0.17", (0, 1): "0.24", (2, 3): "0.25", (5, 2): "0.26", (7, 0): "0.30"}
    for (i, j), t in wrong.items():
        assert F(t) != q[i][j]
        printed[i][j] = t
    wrong.update({(i, j): printed[i][j] for i in range(8) for j in range(4) if (i, j) not in wrong and i % 2})
    for (i, j) in wrong:                          # most rows wrong: the search alone derives nothing
        if i % 2:
            printed[i][j] = two_decimals(q[i][j] + F(1, 20))
    text = inputs() + (f"$$\n\\mathbf{{Q}} =\n{bmatrix(TOKENS)}\n{bmatrix(W_Q)}\n=\n{bmatrix(printed)}\n$$\n")
    d = check_post(tmp_path, text)
    got = {(int(c["at"][0]), int(c["at"][1])): c["verdict"] for c in d["claims"]
           if c["line"] >= text.count("\n") - 9}
    assert len(got) == 32
    for (i, j), verdict in got.items():
        assert verdict == ("wrong" if (i, j) in wrong else "correct"), (i, j, printed[i][j])
    assert sum(v == "wrong" for v in got.values()) > 16


def test_three_factors_side_by_side_are_not_a_product_of_the_last_two(tmp_path):
    """``[X][W_Q][W_K] = [C]``: the two factors before C are not all of it; nothing is
    claimed for C from them."""
    c = [[two_decimals(v) for v in row] for row in product([[str(x) for x in r] for r in product(TOKENS, W_Q)], W_K)]
    text = inputs() + (f"$$\nY =\n{bmatrix(TOKENS)}\n{bmatrix(W_Q)}\n{bmatrix(W_K)}\n=\n{bmatrix(c)}\n$$\n")
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1, 2), r.stderr
    claims = json.loads(r.stdout)["claims"] if r.returncode in (0, 1) else []
    assert not [x for x in claims if x["verdict"] in ("wrong", "carried")]


def test_factors_on_one_line_and_the_result_in_the_next_display_are_a_product(tmp_path):
    """``\\[ = [A] [B] \\]`` then ``\\[ = [C] \\]``: C is A B as written; its wrong
    entries are flagged against the product of the printed factors."""
    a = [["1", "2"], ["3", "4"]]
    b = [["0.5", "1"], ["2", "0"]]
    c = product(a, b)
    assert c == [[F(9, 2), F(1)], [F(19, 2), F(3)]]
    printed = [["4.5", "1"], ["9.5", "4"]]             # the last entry wrong (3)
    one = lambda m: "\\begin{bmatrix} " + " \\\\ ".join(" & ".join(r) for r in m) + " \\end{bmatrix}"
    text = (f"\\[\nA = {one(a)}\n\\]\n\n\\[\nB = {one(b)}\n\\]\n\nThe product:\n\n"
            f"\\[\n= {one(a)} {one(b)}\n\\]\n\n\\[\n= {one(printed)}\n\\]\n")
    d = check_post(tmp_path, text)
    got = {(int(c["at"][0]), int(c["at"][1])): c["verdict"] for c in d["claims"]}
    assert got == {(0, 0): "correct", (0, 1): "correct", (1, 0): "correct", (1, 1): "wrong"}

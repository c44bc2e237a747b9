"""A NumPy walkthrough whose outputs are written as comments under their prints
(``# Raw scores: [[0.86, 2.21, 0.29]]``), checked with no spec: the program states each
block, so scores wrong from the first step are each flagged and so is everything computed
from them, judged from the true chain; and a number in a vector (``exp: [2.450, …,
0.984]``) is no claim on a step whose generated name ends in the same digit
(``written_arithmetic_2``).

Truths: worked out here with ``fractions`` and ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
from conftest import check_post

from symattn.article.code import program
from symattn.article.labels import named_in
from symattn.article.source import Line
from symattn.spec.load import load

mpmath.mp.dps = 30

Q = [[F("1.0"), F("0.5"), F("-0.2"), F("0.8")]]
K = [[F("0.1"), F("0.2"), F("0.3"), F("0.4")], [F("1.2"), F("0.4"), F("-0.1"), F("0.9")],
     [F("0.5"), F("-0.3"), F("0.7"), F("0.2")]]
V = [[F("2.1"), F("1.0"), F("0.5"), F("1.2")], [F("1.8"), F("2.3"), F("1.1"), F("0.9")],
     [F("0.9"), F("1.5"), F("2.0"), F("1.7")]]


def test_a_comment_that_labels_printed_numbers_is_output_not_program():
    assert not program(Line(1, "# Raw scores: [[0.86, 2.21, 0.29]]", "code"))
    assert not program(Line(1, "# Attention weights: array([[0.2, 0.5, 0.3]])", "code"))
    assert program(Line(1, "# shape: (1 x 3)", "code"))
    assert program(Line(1, "# x = [1, 2]", "code"))


def rows(m):
    return "[\n" + ",\n".join("    [" + ", ".join(str(float(x)) for x in r) + "]" for r in m) + "\n]"


def test_scores_wrong_from_the_first_step_are_flagged_with_all_that_follows(tmp_path):
    scores = [sum(q * k for q, k in zip(Q[0], key)) for key in K]          # 0.46, 2.14, 0.37
    printed = ["0.86", "2.21", "0.29"]                                      # all three wrong
    scaled = [mpmath.mpf(s.numerator) / s.denominator / 2 for s in scores]
    e = [mpmath.exp(s) for s in scaled]
    w = [x / mpmath.fsum(e) for x in e]
    post = "\n".join([
        "# Attention in NumPy", "", "```python", "import numpy as np", "",
        "Q = np.array([[1.0, 0.5, -0.2, 0.8]])", f"K = np.array({rows(K)})", f"V = np.array({rows(V)})", "```", "",
        "```python", "scores = np.dot(Q, K.T)", 'print("Raw scores:", scores)',
        f"# Raw scores: [[{', '.join(printed)}]]", "```", "",
        "```python", "d_k = 4", "scaled = scores / np.sqrt(d_k)", 'print("Scaled scores:", scaled)',
        "# Scaled scores: [[0.43, 1.105, 0.145]]", "```", "",
        "```python", "weights = np.exp(scaled) / np.sum(np.exp(scaled))", 'print("Weights:", weights)',
        "# Weights: [[0.269, 0.529, 0.202]]", "```", ""])
    claims = check_post(tmp_path, post)["claims"]
    by_printed = {c["printed"]: c for c in claims}
    for p, s in zip(printed, scores):
        assert by_printed[p]["verdict"] == "wrong" and F(by_printed[p]["exact"]) == s
    for p, s in zip(("0.43", "1.105", "0.145"), scaled):      # half the wrong scores: wrong too
        assert by_printed[p]["verdict"] in ("wrong", "carried")
        assert abs(float(by_printed[p]["exact"]) - float(s)) < 1e-15
    for p, x in zip(("0.269", "0.529", "0.202"), w):          # the softmax of the printed scaled
        assert by_printed[p]["verdict"] in ("wrong", "carried")
        assert abs(float(by_printed[p]["exact"]) - float(x)) < 1e-15 and f"{float(x):.3f}" != p


SPEC = """
[example]
id = "n"
source = "post.md"
[inputs]
a = { value = [[1.0, 0.5]] }
[[steps]]
name = "written_arithmetic_2"
expr = "a[0, 0] * 2 + a[0, 1]"
[[steps]]
name = "head_2"
expr = "a * 2"
"""


def test_a_decimal_in_the_text_names_no_step_whose_name_ends_in_its_digit(tmp_path):
    spec = load(str(tmp_path / "n.toml"), SPEC)
    assert named_in("exp: [2.450, 2.060, 1.448, ", spec) == []
    assert named_in("the output of head 2 is", spec) == ["head_2"]

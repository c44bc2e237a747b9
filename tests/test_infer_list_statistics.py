"""A statistic of a list written out (``mean([7, 5, 4]) = 5.33``, ``std(7,5,4) = 1.25``,
``var([...]) ≈ …``, ``sum(…)``), judged with no spec: the mean as it is; a standard deviation
or variance by the convention its print fits (population or sample), else the nearer.

Truths come from ``fractions`` and ``mpmath`` (30 digits), never from symattn.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from conftest import check_post
from symattn.infer.written import written

mpmath.mp.dps = 30


def mean(xs):
    return sum(Fraction(x) for x in xs) / len(xs)


def var(xs, ddof):
    m = mean(xs)
    return sum((Fraction(x) - m) ** 2 for x in xs) / (len(xs) - ddof)


def std(xs, ddof):
    return mpmath.sqrt(mpmath.mpf(var(xs, ddof).numerator) / var(xs, ddof).denominator)


def read(text):
    class Line:
        number, quiet = 1, ()
    Line.text = text
    return written([Line()])


@pytest.mark.parametrize("text, numbers, result", [
    ("μ₁ = mean([7, 5, 4]) = 5.33", ("7", "5", "4"), "5.33"),
    ("σ1 = std(7,5,4) = 1.25", ("7", "5", "4"), "1.25"),
    ("np.var([1.5, 2.5]) ≈ 0.25", ("1.5", "2.5"), "0.25"),
    ("total = sum([0.2, 0.3, 0.5]) = 1.0", ("0.2", "0.3", "0.5"), "1.0"),
])
def test_statistics_of_lists_as_written(text, numbers, result):
    got = read(text)
    assert [(w.numbers, w.result) for w in got] == [(numbers, result)]


@pytest.mark.parametrize("text", ["mean(x) = 5.33", "std([7, 5, 4]) + 1 = 2.25", "foo([1, 2]) = 1.5"])
def test_what_is_no_statistic_of_a_list(text):
    assert not read(text)


POST = """# Layer norm by hand

Row 1: [7, 5, 4]
μ1 = mean([7, 5, 4]) = 5.33
σ1 = std([7, 5, 4]) = 1.25

Row 2: [2, 3, 4]
μ2 = mean([2, 3, 4]) = 3.0
σ2 = std([2, 3, 4]) = 1.00

Row 3: [6.5, 2.1, 8.3]
μ3 = mean([6.5, 2.1, 8.3]) = 5.63
σ3 = std([6.5, 2.1, 8.3]) = 2.51
"""


def test_each_statistic_is_judged_by_the_convention_its_print_fits(tmp_path):
    got = {(c["line"], c["printed"]): c for c in check_post(tmp_path, POST, "ln.md")["claims"]}
    c = got[(4, "5.33")]
    assert abs(Fraction(c["exact"]) - mean([7, 5, 4])) < Fraction(1, 10 ** 15) and c["verdict"] == "correct"
    # population: √(14/9) = 1.2472 → 1.25 right
    c = got[(5, "1.25")]
    assert abs(mpmath.mpf(c["exact"]) - std([7, 5, 4], 0)) < 1e-15 and c["verdict"] == "correct"
    # sample: √1 = 1 → 1.00 right (population would be 0.8165)
    c = got[(9, "1.00")]
    assert abs(mpmath.mpf(c["exact"]) - std([2, 3, 4], 1)) < 1e-15 and c["verdict"] == "correct"
    # neither: population 2.6043, sample 3.1896; 2.51 is wrong, judged by the nearer
    c = got[(13, "2.51")]
    assert abs(mpmath.mpf(c["exact"]) - std(["6.5", "2.1", "8.3"], 0)) < 1e-15 and c["verdict"] == "wrong"

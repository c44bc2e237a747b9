"""A table of a variable and functions of it (``| x | GELU(x) | ReLU(x) |``), as activation
tutorials print one: each column is a quantity of its own, derived from the first.

Truths come from ``mpmath`` (30 digits), never from symattn.
"""

from __future__ import annotations

import mpmath
import pytest

from conftest import check_post

mpmath.mp.dps = 30
XS = ["-2.0", "-1.0", "-0.5", "0.0", "0.5", "1.0", "2.0"]


def gelu_tanh(x):
    x = mpmath.mpf(x)
    return x / 2 * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (x + mpmath.mpf("0.044715") * x ** 3)))


def table(gelu: list[str]) -> str:
    rows = "\n".join(f"| {x} | {g} | {max(float(x), 0.0):.1f} |" for x, g in zip(XS, gelu))
    return "### Numeric examples\n\n| Input x | GELU(x) | ReLU(x) |\n| --- | --- | --- |\n" + rows + "\n"


def test_each_function_column_is_derived_from_the_variable(tmp_path):
    gelu = [f"{float(gelu_tanh(x)):.3f}" for x in XS]
    claims = check_post(tmp_path, table(gelu), "act.md")["claims"]
    g = [c for c in claims if c["step"] == "GELU"]
    assert len(g) >= 6 and all(c["verdict"] == "correct" for c in g)      # 0.000 may be ReLU's 0.0
    for c in g:
        assert abs(mpmath.mpf(c["exact"]) - gelu_tanh(XS[int(c["at"][0])])) < mpmath.mpf("1e-15")
    r = [c for c in claims if c["step"] == "ReLU"]
    assert len(r) >= 6 and all(c["verdict"] == "correct" for c in r)


def test_a_value_far_from_its_entry_is_never_called_right(tmp_path):
    """0.364 for GELU(0.5) = 0.3457…: the columns are placed number by number, and a number
    this far from every entry is left unverified (its nearest entry named), never correct.
    (A table whole is placed row by row; its columns one by one are not yet.)"""
    gelu = [f"{float(gelu_tanh(x)):.3f}" for x in XS]
    gelu[4] = "0.364"
    d = check_post(tmp_path, table(gelu), "act.md")
    assert not [c for c in d["claims"] if c["printed"] == "0.364"]
    far = [u for u in d["unmatched"] if u["text"] == "0.364"]
    assert far and far[0]["nearest"]["step"] == "GELU"
    assert abs(mpmath.mpf(far[0]["nearest"]["exact"]) - gelu_tanh("0.5")) < mpmath.mpf("1e-11")


@pytest.mark.parametrize("header", ["| x | y | z |", "| Input x | GELU(y) | ReLU(x) |", "| f(x) | g(x) | h(x) |"])
def test_a_header_that_is_no_variable_and_its_functions_keeps_the_table_whole(header):
    from symattn.article.tables import _functions_of
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert _functions_of(cells, 3) is None

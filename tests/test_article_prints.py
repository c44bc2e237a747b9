"""The one reader of a program's prints (symattn.article.prints), which the article check
and the inference share: what a print prints and under which words. The truths are the
names the program text writes, read off by hand."""

from __future__ import annotations

import ast

from symattn.article.prints import assignment_above, print_parts, printed_as, printed_name
from symattn.article.source import Line


def _lines(*texts, kind="code"):
    return {k + 1: Line(k + 1, t, kind) for k, t in enumerate(texts)}


def _call(text):
    return ast.parse(text).body[0].value


def test_an_fstring_print_names_its_value_after_its_label():
    lines = _lines('print(f"Variance: {variance:.3f}")', "print(f'Std = {out.std(dim=-1):.4f}')",
                   '    print(f"Mean: {m:.2f}, Var: {v:.2f}")  # both')
    assert printed_as(lines, "Variance") == "variance"
    assert printed_as(lines, "Std") == "out_std"
    assert printed_as(lines, "Mean") == "m"
    assert printed_as(lines, "Var") is None          # not the words the f-string opens with
    assert printed_as(lines, "variance") is None     # the words as printed


def test_two_prints_of_one_label_name_nothing_and_prose_is_not_code():
    two = _lines('print(f"Out: {a}")', 'print(f"Out: {b}")')
    assert printed_as(two, "Out") is None
    prose = _lines('print(f"Out: {a}")', kind="text")
    assert printed_as(prose, "Out") is None
    broken = _lines('print(f"Out: {a}",', 'print(f"Out: {a"')   # unparsable lines: no reading
    assert printed_as(broken, "Out") is None


def test_print_parts_and_names():
    words, node = print_parts(_call('print("Mean:", x.mean())'))
    assert (words, printed_name(node)) == ("Mean:", "x_mean")
    assert print_parts(_call('print("Step 1")')) == ("Step 1", None)
    assert print_parts(_call('print(f"{a} and {b}")'))[1] is None   # two values: neither
    assert printed_name(_call("x[0]")) == ""


def test_the_line_above_a_printout_names_it():
    lines = _lines("attn_scores = queries @ keys.T", "print(out.std())", "", "```", "0.5", "", "x")
    assert assignment_above(lines, 2) == "attn_scores"
    assert assignment_above(lines, 5) == "out_std"          # across the fence and a blank
    assert assignment_above(lines, 7) is None               # the nearest line above is a printout

"""Tables that print several matrices: rows labelled by groups (``head 1, row 1`` …
``head 2, row 4``) are one matrix per group, and a symbol in the top-left cell
(``| W_O | c0 | c1 |``) names the matrix; a word there (``token``) does not."""

from __future__ import annotations

from fractions import Fraction as F

from symattn.article.groups import groups_of
from symattn.article.matrices import find
from symattn.article.source import Line


def lines(text: str) -> list[Line]:
    return [Line(i + 1, t, "table" if t.startswith("|") else "text") for i, t in enumerate(text.splitlines())]


HEADS = """| | W_Q | W_K |
|---|---|---|
| head 1, row 1 | [1, 0] | [0, 1] |
| head 1, row 2 | [0, 1] | [1, 0] |
| head 2, row 1 | [0.5, 0] | [1, 1] |
| head 2, row 2 | [0, 2] | [0, 0] |
"""


def test_rows_in_groups_are_one_matrix_per_group_named_by_its_number():
    got = {p.name: (p.values, p.rows) for p in find(lines(HEADS))}
    assert got == {
        "W_Q1": (((1, 0), (0, 1)), ("row 1", "row 2")),
        "W_K1": (((0, 1), (1, 0)), ("row 1", "row 2")),
        "W_Q2": (((F(1, 2), 0), (0, 2)), ("row 1", "row 2")),
        "W_K2": (((1, 1), (0, 0)), ("row 1", "row 2")),
    }


def test_groups_of_other_sizes_or_interleaved_stay_one_matrix():
    uneven = HEADS.replace("| head 2, row 2 | [0, 2] | [0, 0] |\n", "")
    assert {p.name for p in find(lines(uneven))} == {"W_Q", "W_K"}
    mixed = HEADS.replace("head 1, row 2", "head 2, row 0").replace("head 2, row 1", "head 1, row 9")
    assert {p.name for p in find(lines(mixed))} == {"W_Q", "W_K"}


def test_a_symbol_in_the_corner_names_the_table_and_a_word_does_not():
    w_o = "| W_O | c0 | c1 |\n|---|---|---|\n| row 1 | 1.0 | 0.0 |\n| row 2 | 0.5 | 1.0 |\n"
    token = w_o.replace("W_O", "token")
    assert [(p.name, p.values) for p in find(lines(w_o))] == [("W_O", ((1, 0), (F(1, 2), 1)))]
    assert [p.name for p in find(lines(token))] == [""]


def test_tuples_in_cells_are_vectors():
    text = "| | q | v |\n|---|---|---|\n| the | (1, 0, 1) | (1.0, 0.0) |\n| dog | (0, 2, 1) | (−1.0, 0.5) |\n"
    got = {p.name: p.values for p in find(lines(text))}
    assert got == {"q": ((1, 0, 1), (0, 2, 1)), "v": ((1, 0), (-1, F(1, 2)))}


def test_a_bracket_left_open_ends_with_its_cell_or_paragraph():
    """A parenthesis a text never closes (``(see the figure``) does not gather the numbers of
    the cells or paragraphs after it into one vector: "sum to 1" in one cell and "a dropout
    rate of 50%" in another are two lone numbers, not a row."""
    cells = [Line(1, "- the simplest mask (see PyTorch's", "text"), Line(1001, "- rows sum to 1", "text"),
             Line(2001, "- a dropout rate of 50%", "text")]
    paragraphs = [Line(1, "a note (never closed", "text"), Line(2, "", "text"), Line(3, "rows sum to 1", "text"),
                  Line(4, "", "text"), Line(5, "a rate of 50%", "text")]
    for lines in (cells, paragraphs):
        assert [[n.printed for n in g.numbers] for g in groups_of(lines)] == [["1"], ["50%"]]

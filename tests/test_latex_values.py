"""The leaves of the LaTeX: certified numbers, names as symbols, labels as \\text{}."""

from __future__ import annotations

import symattn as sa
from symattn.render.latex_values import (Numbers, Precision, symbol, label_text, escape_text,
                                         tensor_latex, layout, table)


def cells(t, decimals=4, mode="half-up", exact_places=None):
    return [[c.text for c in row]
            for row in Numbers().cells(t, Precision(decimals, mode, exact_places))]


def test_exact_values_print_exactly_and_rounded_ones_are_certified():
    assert cells(sa.matrix([["1.10", "0.4", "0.65"]])) == [["1.10", "0.40", "0.65"]]
    assert cells(sa.matrix([["1", "0"]])) == [["1", "0"]]
    assert cells(sa.matrix([["1/3"]])) == [["0.3333"]]
    assert cells(sa.matrix([["2/3"]]), mode="truncate") == [["0.6666"]]
    assert cells(sa.matrix([["0.00001"]]), exact_places=12) == [["0.00001"]]
    assert cells(sa.matrix([["0.00001"]])) == [["0.0000"]]


def test_ties_are_settled_exactly():
    # 0.125 is exact: half-up 0.13, half-even 0.12; 1/8 + e^-40 is just above the tie
    x = sa.matrix([["0.125"]])
    assert cells(x, 2, "half-up") == [["0.13"]]
    assert cells(x, 2, "half-even") == [["0.12"]]
    y = sa.matrix([["0.125"]]) - sa.exp(sa.matrix([["-40"]]))
    assert cells(y, 2, "half-up") == [["0.12"]]


def test_irrational_values_and_masks():
    s = sa.softmax(sa.matrix([["0", "1"]]))
    assert cells(s) == [["0.2689", "0.7311"]]
    m = sa.causal_mask(2)
    assert cells(m) == [["0", r"-\infty"], ["0", "0"]]
    e = sa.exp(sa.causal_mask(2))
    assert cells(e) == [["1", "0"], ["1", "1"]]            # e^0 = 1 and e^-inf = 0 exactly
    r = sa.sqrt(sa.matrix([["2"]])) * sa.sqrt(sa.matrix([["2"]]))
    assert cells(r) == [["2"]]                              # √2·√2 is exactly 2


def test_symbols_of_spec_names():
    assert symbol("W_Q").latex() == "W_{Q}"
    assert symbol("Q1").latex() == "Q_{1}"
    assert symbol("S_scaled").latex() == r"S_{\mathrm{scaled}}"
    assert symbol("total").latex() == r"\mathrm{total}"
    assert symbol("mu1").latex() == r"\mu_{1}"
    assert symbol("eps").latex() == r"\varepsilon"
    assert symbol("gamma").latex() == r"\gamma"
    assert symbol("Em").latex() == "E_{m}"
    assert symbol("W2L_Q").latex() == "W_{2L,Q}"
    assert symbol("var1").latex() == r"\mathrm{var}_{1}"
    assert symbol("Q1").sub(label_text("love")).latex() == r"Q_{1,\text{love}}"
    assert symbol("ネコ").latex() == r"\text{ネコ}"


def test_labels_escape_latex_specials():
    assert label_text("猫") == r"\text{猫}"
    assert label_text("h1_1") == r"\text{h1\_1}"
    assert label_text("a&b%c#d$e{f}") == r"\text{a\&b\%c\#d\$e\{f\}}"
    assert label_text("x\\y^z") == r"\text{x\textbackslash{}y\textasciicircum{}z}"
    assert label_text("a~b") == r"\text{a}{\sim}\text{b}"
    assert escape_text("−1") == "-1"


def test_layouts():
    assert layout([["1"]]) == "1"
    assert layout([["1", "2"]]) == r"\left[1,\ 2\right]"
    assert layout([["1"], ["2"]]) == r"\begin{bmatrix} 1 \\ 2 \end{bmatrix}"
    assert table([["1", "2"]], ["は"], ["猫", "眠る"]) == (
        r"\begin{array}{l|rr} & \text{猫} & \text{眠る} \\ \hline \text{は} & 1 & 2 \end{array}")


def test_tensor_latex_labels_and_digits():
    t = sa.matrix([["1/3", "2/3"]], rows=["私は"])
    assert tensor_latex(t, 3) == r"\begin{array}{l|rr} \text{私は} & 0.333 & 0.667 \end{array}"
    assert tensor_latex(t, 3, labels=False) == r"\left[0.333,\ 0.667\right]"

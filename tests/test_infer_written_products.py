"""A product the text writes with its factors, however it dresses them: matrices labelled
with ``\\underbrace{…}_{…}``, thin spaces, bracket lists in inline math, a full-width
``＝``. The text names every operand, so the result is judged entry by entry, wrong ones
included, though two numbers alone would never be explained by a search. Truths are worked
here in fractions and rounded with ``decimal``."""

from decimal import Decimal, ROUND_HALF_UP
from fractions import Fraction as F

from conftest import check_post


def dec(x: F, places: int) -> str:
    return str((Decimal(x.numerator) / Decimal(x.denominator)).quantize(
        Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def product(x: list, w: list) -> list:
    return [sum(a * w[i][j] for i, a in enumerate(x)) for j in range(len(w[0]))]


def bmatrix(rows: list) -> str:
    return r"\begin{bmatrix}" + r"\\".join("&".join(r) for r in rows) + r"\end{bmatrix}"


X = ["0.5", "-1.2", "2"]
W = [["0.3", "1.1"], ["0.7", "-0.4"], ["-0.25", "0.6"]]
EXACT = product([F(v) for v in X], [[F(v) for v in r] for r in W])


def only(out: dict, line: int, printed: str) -> dict:
    got = [c for c in out["claims"] if c["line"] == line and c["printed"] == printed]
    assert len(got) == 1, (line, printed, out["claims"])
    return got[0]


def test_a_product_whose_matrices_carry_underbraced_labels(tmp_path):
    """``\\underbrace{[x]}_{\\text{input}} \\;\\times\\; \\underbrace{[W]}_{W_O} \\;=\\;
    \\underbrace{[y]}_{\\text{output}}`` with y's second entry misprinted: the first is
    correct, the second wrong (expected the exact product, rounded)."""
    right, slip = dec(EXACT[0], 2), dec(EXACT[1] + F(1, 10), 2)
    assert right == "-1.19" and slip == "2.33" and dec(EXACT[1], 2) == "2.23"
    text = "\n".join(["# Output projection", "", "The input times the output weights:", "",
                      rf"$\underbrace{{{bmatrix([X])}}}_{{\text{{input}}}}\;\times\;"
                      rf"\underbrace{{{bmatrix(W)}}}_{{W_O}}\;=\;"
                      rf"\underbrace{{{bmatrix([[right, slip]])}}}_{{\text{{output}}}}$", ""])
    out = check_post(tmp_path, text)
    assert only(out, 5, right)["verdict"] == "correct"
    wrong = only(out, 5, slip)
    assert wrong["verdict"] == "wrong" and F(wrong["exact"]) == EXACT[1]


def test_a_product_of_bracket_lists_with_a_full_width_equals_sign(tmp_path):
    """``$[x]$ × $[W]$ ＝ $[y]$`` (lists in inline math, ``＝`` as Japanese texts write it),
    y's first entry misprinted: wrong, the second correct."""
    slip, right = dec(EXACT[0] - F(1, 10), 2), dec(EXACT[1], 2)
    text = "\n".join(["# 出力側のLinear", "", "重みを掛けます。", "",
                      f"$[{', '.join(X)}]$ × ${bmatrix(W)}$ ＝ $[{slip}, {right}]$", ""])
    out = check_post(tmp_path, text)
    wrong = only(out, 5, slip)
    assert wrong["verdict"] == "wrong" and F(wrong["exact"]) == EXACT[0]
    assert only(out, 5, right)["verdict"] == "correct"


def test_a_dot_product_written_with_full_width_signs(tmp_path):
    """``0.5×2 ＋ 1.5×0.4 ＝ 1.6`` reads as ``0.5×2 + 1.5×0.4 = 1.6``, each factor an entry of
    the query or a key printed above: every result judged, a slip wrong."""
    q, keys = ["0.5", "1.5"], [["2", "0.4"], ["0.2", "1"], ["1", "1.2"]]
    dots = [sum(F(a) * F(b) for a, b in zip(q, k)) for k in keys]
    printed = [dec(dots[0], 1), dec(dots[1] + F(1, 10), 1), dec(dots[2], 1)]
    assert printed == ["1.6", "1.7", "2.3"]
    worked = "、".join(f"{i + 1}番目が {q[0]}×{k[0]} ＋ {q[1]}×{k[1]} ＝ {p}"
                       for i, (k, p) in enumerate(zip(keys, printed)))
    listed = "、".join(f"{i + 1}番目 [{', '.join(k)}]" for i, k in enumerate(keys))
    text = "\n".join(["# 内積", "", f"キーは {listed} です。", "",
                      f"クエリ [{', '.join(q)}] との内積は、{worked} です。", ""])
    out = check_post(tmp_path, text)
    claims = sorted((c["printed"], c["verdict"], F(c["exact"])) for c in out["claims"] if c["line"] == 5)
    assert claims == sorted([(printed[0], "correct", dots[0]), (printed[1], "wrong", dots[1]),
                             (printed[2], "correct", dots[2])])


def test_named_vectors_on_one_line_are_no_equation_of_the_first(tmp_path):
    """``pe_0 = [0, 1], \\quad pe_1 = […], \\quad pe_2 = […]``: the last list follows an
    equals sign, but its own name's, not the first step's (``pe_0``, the step of that
    line): no number is judged against ``pe_0`` but its own print, and none is wrong."""
    import mpmath
    sin = [mpmath.nstr(mpmath.sin(k), 4) for k in (1, 2)]
    cos = [mpmath.nstr(mpmath.cos(k), 4) for k in (1, 2)]
    assert (sin, cos) == (["0.8415", "0.9093"], ["0.5403", "-0.4161"])
    text = "\n".join(["# 位置编码", "",
                      r"$$ \sin(0) = 0, \quad \cos(0) = 1 $$",
                      rf"$$ \sin(1) = {sin[0]}, \quad \cos(1) = {cos[0]} $$",
                      rf"$$ \sin(2) = {sin[1]}, \quad \cos(2) = {cos[1]} $$", "",
                      rf"$$ pe_0 = [0, 1], \quad pe_1 = [{sin[0]}, {cos[0]}], \quad pe_2 = [{sin[1]}, {cos[1]}] $$",
                      ""])
    out = check_post(tmp_path, text)
    assert not [c for c in out["claims"] if c["verdict"] == "wrong"]
    first = [c for c in out["claims"] if c["line"] == 7 and c["step"] == "pe_0"]
    assert sorted(c["printed"] for c in first) == ["0", "1"]


"""Arithmetic an article writes out on one number (``-\\log(0.659) = 0.417``, ``e^{2.0} =
7.389``, ``√0.1325 = 0.364``), checked with no spec: the loss of a softmax worked by hand,
right and wrong, the perplexity from that loss, and the writings that are no such step.

Each post is written here; its truths are worked out with ``mpmath`` at 30 digits, never by
symattn.
"""

from __future__ import annotations

import json
from fractions import Fraction
import subprocess
import sys

import mpmath
import pytest

from symattn.infer.written import ARITHMETIC, written

mpmath.mp.dps = 30


def cli(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True)


def claims(path):
    r = cli("check", "--json", str(path))
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def close(exact: str, truth) -> bool:
    return abs(mpmath.mpf(exact) - truth) <= mpmath.mpf("1e-15") * max(1, abs(truth))


def softmax(z):
    e = [mpmath.exp(mpmath.mpf(x)) for x in z]
    return [x / mpmath.fsum(e) for x in e]


def read(text):
    """What written() reads on one article line holding ``text``."""
    class Line:
        number, quiet = 1, ()
    Line.text = text
    return written([Line()])


def post(tmp_path, name, text):
    """``check --json`` of an article ``name`` holding ``text``."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return claims(path)


def at(data, line):
    return [c for c in data["claims"] if c["line"] == line]


CE = """# Cross-entropy from logits, by hand

The model outputs logits for three classes:

$$z = [3.0, 1.0, 0.2]$$

The softmax probabilities are

$$p = [0.836, 0.113, 0.051]$$

With the first class as the target, the loss is $L = -\\log(0.836) = 0.179$.
With the third class as the target, the loss is $-\\log(0.051) = {wrong}$.
The perplexity of the first case is $e^{{0.179}} = 1.196$.
"""


def test_a_loss_written_on_a_probability_is_judged_from_the_exact_softmax(tmp_path):
    p = softmax(["3.0", "1.0", "0.2"])
    assert mpmath.nstr(p[2], 2) == "0.051" and mpmath.nstr(-mpmath.log(p[2]), 4) == "2.979"
    data = post(tmp_path, "ce.md", CE.format(wrong="2.876"))
    (loss,) = [c for c in at(data, 11) if c["printed"] == "0.179"]
    assert loss["verdict"] == "correct" and close(loss["exact"], -mpmath.log(p[0]))
    (slip,) = [c for c in at(data, 12) if c["printed"] == "2.876"]
    assert slip["verdict"] == "wrong" and close(slip["exact"], -mpmath.log(p[2]))
    (ppl,) = [c for c in at(data, 13) if c["printed"] == "1.196"]     # exp of the loss: 1/p[0]
    assert ppl["verdict"] == "correct" and close(ppl["exact"], 1 / p[0])
    assert [c["printed"] for c in data["claims"] if c["verdict"] != "correct"] == ["2.876"]
    steps = {s["name"]: s["expr"] for s in data["inferred"][0]["steps"]}
    assert steps["L"].startswith("-log(") and "[0, 0]" in steps["L"]


def test_the_right_loss_in_its_place_is_correct(tmp_path):
    data = post(tmp_path, "ce.md", CE.format(wrong="2.979"))
    assert [c for c in at(data, 12) if c["printed"] == "2.979"][0]["verdict"] == "correct"
    assert data["summary"]["wrong"] == 0 and data["summary"]["carried"] == 0


def test_a_loss_from_a_rounded_print_is_carried(tmp_path):
    """-log(0.051) = 2.976: right for the print, not for the probability it rounds."""
    assert mpmath.nstr(-mpmath.log(mpmath.mpf("0.051")), 4) == "2.976"
    (c,) = [c for c in at(post(tmp_path, "ce.md", CE.format(wrong="2.976")), 12) if c["printed"] == "2.976"]
    assert c["verdict"] == "carried"


def test_probabilities_alone_with_their_losses_are_an_example(tmp_path):
    assert mpmath.nstr(-mpmath.log(mpmath.mpf("0.1")), 4) == "2.303"
    data = post(tmp_path, "ce.txt", "The model assigns the probabilities\n\n    p = [0.70, 0.20, 0.10]\n\n"
                "With target 0 the loss is -log(0.70) = 0.357.\n"
                "With target 2 it is -log(0.10) = 2.203.\n")
    verdicts = {c["printed"]: c["verdict"] for c in data["claims"]}
    assert verdicts["0.357"] == "correct" and verdicts["2.203"] == "wrong"


@pytest.mark.parametrize("text", [
    r"$e^{2.0} + e^{1.0} = 10.107$",          # a sum: no e^{1.0} = 10.107
    r"$x - \log(0.5) = 0.3$",                 # a minus between two operands
    r"$\log(8) = 3$",                         # base 2, unsaid: left alone
    r"$2 \times \sqrt{4} = 4$",               # a product: the root is no result
    r"$\sqrt{4} = 2 + 1$",                    # the result goes on
    "[(-0.15)², (0.05)²] = [0.0225]",         # entries that do not pair up
])
def test_what_is_no_one_number_step(text):
    assert [w for w in read(text) if w.key != ARITHMETIC] == []


def test_a_sum_of_exponentials_is_read_whole():
    (w,) = read(r"$e^{2.0} + e^{1.0} = 10.107$")
    assert (w.key, w.form, w.numbers) == (ARITHMETIC, "exp( {0} ) + exp( {1} )", ("2.0", "1.0"))
    assert abs(mpmath.exp(2) + mpmath.exp(1) - mpmath.mpf(w.result)) < mpmath.mpf("0.0005")


@pytest.mark.parametrize("text, key, negated, argument, result", [
    (r"$L = -\log(0.659) = 0.417$", "log", True, "0.659", "0.417"),
    (r"$\ln 0.25 \approx -1.386$", "log", False, "0.25", "-1.386"),
    (r"$\log_2(0.5) = -1$", "log2", False, "0.5", "-1"),
    ("perplexity is exp(0.357) = 1.429", "exp", False, "0.357", "1.429"),
    (r"$e^{-0.5} = 0.6065$", "exp", False, "-0.5", "0.6065"),
    ("std = √0.1325 = 0.364", "sqrt", False, "0.1325", "0.364"),
    (r"$\sqrt{64} = 8$", "sqrt", False, "64", "8"),
    ("0.364² = 0.1325", "square", False, "0.364", "0.1325"),
    (r"$-\log\left(0.7\right) \approx 0.357$", "log", True, "0.7", "0.357"),
    ("the loss is -log(0.7) = 0.357 (three decimals)", "log", True, "0.7", "0.357"),
])
def test_one_number_steps_as_written(text, key, negated, argument, result):
    (w,) = read(text)
    assert (w.key, w.negated, w.argument, w.result) == (key, negated, argument, result)


def test_a_wrong_square_root_and_a_wrong_square_are_flagged(tmp_path):
    """Literal arguments (no block prints them): the text's own arithmetic, checked."""
    data = post(tmp_path, "ln.md", "Scores $s = [1.0, 2.0, 3.0]$ give $\\text{softmax}(s) = [0.090, 0.245, 0.665]$.\n\n"
                "We divide by $\\sqrt{3} \\approx 1.71$ in a model with $d_k = 3$; "
                "and $0.364^2 = 0.1325$.\n")
    assert mpmath.nstr(mpmath.mpf("0.364") ** 2, 4) == "0.1325"
    assert mpmath.nstr(mpmath.sqrt(3), 3) == "1.73"
    verdicts = {c["printed"]: c["verdict"] for c in at(data, 3)}
    assert verdicts.get("1.71") == "wrong" and verdicts.get("0.1325") == "correct"


@pytest.mark.parametrize("text, label", [
    (r"$L = -\log(0.659) = 0.417$", "L"),
    (r"$\mathcal{L} = -\log(0.7) = 0.357$", "L"),
    ("loss = -log(0.70) = 0.357", "loss"),
    (r"the loss is $-\log p_{cat} = -\log(0.6590) = 0.4170$", ""),     # the operand's name
    (r"$-\log(p_1) = -\log(0.659) = 0.417$", ""),
])
def test_the_result_is_named_as_the_text_names_it(text, label):
    (w,) = read(text)
    assert w.label == label


def test_two_results_on_one_line_each_judged_as_its_own(tmp_path):
    """e^{0.916} = 2.449 beside √0.25 = 0.5: the wrong one is flagged, not left unverified
    between the two steps of that line."""
    assert mpmath.nstr(1 / mpmath.mpf("0.4"), 4) == "2.5"            # e^{-ln 0.4}
    data = post(tmp_path, "nll.tex", "The softmax gives\n\\[ p = \\begin{bmatrix} 0.25 & 0.40 & 0.15 & 0.20 \\end{bmatrix}. \\]\n"
                "The target is the second token, so $\\mathcal{L} = -\\ln(0.40) \\approx 0.916$.\n"
                "The perplexity is $e^{0.916} = 2.449$ and $\\sqrt{0.25} = 0.5$.\n")
    verdicts = {c["printed"]: (c["verdict"], c["exact"]) for c in at(data, 4)}
    assert verdicts["2.449"][0] == "wrong" and close(verdicts["2.449"][1], mpmath.mpf("2.5"))
    assert verdicts["0.5"][0] == "correct"
    assert data["summary"]["unverified"] == 0


def test_a_result_after_tex_spacing_is_claimed_on_its_line(tmp_path):
    """``\\left(``, ``\\,`` and a Unicode minus before the result: its claim is still the
    number the line prints (the reading folds them; the claim must not be cut from them)."""
    assert mpmath.nstr(-mpmath.log(mpmath.mpf("0.4")), 3) == "0.916"
    data = post(tmp_path, "ln.md", "The probabilities are $p = [0.25, 0.40, 0.35]$.\n\n"
                "Then $\\ln\\left(0.25\\right) \\approx \u22121.386$ and "
                "$L = -\\ln\\left(0.40\\right)\\, = 0.961$.\n")
    verdicts = {c["printed"]: c["verdict"] for c in at(data, 3)}
    assert verdicts["0.961"] == "wrong" and verdicts[[k for k in verdicts if k.endswith("1.386")][0]] == "correct"


# -- sums of products written out (a dot product by hand) -------------------------------------

DOT = """# One query's scores, by hand

The query and the keys:

$$q = [0.6, 1.2]$$

$$K = \\begin{{bmatrix}} 1.4 & 0.5 \\\\ 0.25 & 2.0 \\end{{bmatrix}}$$

The score of the first key is $0.6 \\times 1.4 + 1.2 \\times 0.5 = 1.44$.
The score of the second key is $0.6 \\times 0.25 + 1.2 \\times 2.0 = {wrong}$.
{extra}
"""


def test_a_dot_product_written_on_printed_entries_is_judged_exactly(tmp_path):
    first = Fraction("0.6") * Fraction("1.4") + Fraction("1.2") * Fraction("0.5")
    second = Fraction("0.6") * Fraction("0.25") + Fraction("1.2") * Fraction("2.0")
    assert (first, second) == (Fraction("1.44"), Fraction("2.55"))
    data = post(tmp_path, "dot.md", DOT.format(wrong="2.45", extra=""))
    (right,) = [c for c in at(data, 9) if c["printed"] == "1.44"]
    assert right["verdict"] == "correct" and Fraction(right["exact"]) == first
    (slip,) = [c for c in at(data, 10) if c["printed"] == "2.45"]
    assert slip["verdict"] == "wrong" and Fraction(slip["exact"]) == second
    exprs = [s["expr"] for s in data["inferred"][0]["steps"]]
    assert any("q[0, 0] * K[0, 0]" in e for e in exprs), exprs      # the entries, not the literals


def test_a_sum_on_a_decimal_no_block_prints_is_left_alone(tmp_path):
    """0.3 is printed nowhere: a rounded number of unknown origin, so 0.3 × 2 + 0.7 = 1.3
    (right as written) is no step, and nor is a wrong sum of it."""
    for result in ("1.3", "1.4"):
        data = post(tmp_path, "dot.md", DOT.format(wrong="2.55", extra=f"Then $0.3 \\times 2 + 0.7 = {result}$."))
        assert not [c for c in at(data, 11) if c["printed"] == result]
        assert data["summary"]["wrong"] == 0


@pytest.mark.parametrize("text, form, numbers, result", [
    (r"$0\times1+(-1.414)\times0+1.414\times1\approx1.414$", "{0} * {1} + ( {2} ) * {3} + {4} * {5}",
     ("0", "1", "-1.414", "0", "1.414", "1"), "1.414"),
    ("q·k = 0.5 · 2 - 0.25 = 0.75", "{0} * {1} - {2}", ("0.5", "2", "0.25"), "0.75"),
    ("-1.5 × 2 = -3.0", "{0} * {1}", ("-1.5", "2"), "-3.0"),
])
def test_sums_as_written(text, form, numbers, result):
    (w,) = read(text)
    assert (w.key, w.form, w.numbers, w.result) == (ARITHMETIC, form, numbers, result)


@pytest.mark.parametrize("text", [
    "1×1 + 1×0 = 1",               # whole numbers: a step of 1 would match every other 1
    "x^2 + 0.5 = 4.5",             # a power's exponent is no term
    "0.5 × 2 = 1.0 + 0",           # the result goes on
    "1,000.5 × 3 = 3001.5",        # a thousands separator: not the number 000.5
    "a_1 + 0.5 = 1.5",             # a name's index
])
def test_what_is_no_sum(text):
    assert [w for w in read(text) if w.key == "sum"] == []


SOFTMAX_IN_PROSE = """# Softmax by hand

Take the scores 2.0, 1.0 and 0.1. Exponentiate each: $e^{2.0} = 7.389$, $e^{1.0} = 2.719$ and $e^{0.1} = 1.105$.

The loss for the first class is $-\\ln(0.659) = 0.417$, and $\\sqrt{64} = 6$.
"""


def test_arithmetic_in_prose_with_no_block_is_an_example(tmp_path):
    data = post(tmp_path, "prose.md", SOFTMAX_IN_PROSE)
    got = {c["printed"]: c for c in data["claims"]}
    truth = {"7.389": mpmath.exp(2), "2.719": mpmath.exp(1), "1.105": mpmath.exp(mpmath.mpf("0.1")),
             "0.417": -mpmath.log(mpmath.mpf("0.659")), "6": mpmath.sqrt(64)}
    assert set(got) == set(truth)          # the exponents 2.0, 1.0, 0.1 are operands, no claims
    for printed, t in truth.items():
        assert close(got[printed]["exact"], t)
        places = len(printed.partition(".")[2])
        right = mpmath.nint(t * 10 ** places) == mpmath.mpf(printed.replace(".", ""))
        assert got[printed]["verdict"] == ("correct" if right else "wrong"), printed
    assert [c["printed"] for c in data["claims"] if c["verdict"] == "wrong"] == ["2.719", "6"]


def test_an_exponent_is_no_claim_of_its_own_step(tmp_path):
    """e^{1.0} = 2.718 beside e^{0.1} = 1.105: the 1.0 is not a slip for 1.105 (1.1)."""
    data = post(tmp_path, "exponents.md", "# e\n\nWe have $e^{1.0} = 2.718$ and $e^{0.1} = 1.105$.\n")
    assert sorted(c["printed"] for c in data["claims"]) == ["1.105", "2.718"]
    assert all(c["verdict"] == "correct" for c in data["claims"])


def test_an_article_with_neither_block_nor_arithmetic_is_still_refused(tmp_path):
    path = tmp_path / "words.md"
    path.write_text("# Attention\n\nThe scores are 2.0, 1.0 and 0.1, more or less.\n", encoding="utf-8")
    r = cli("check", str(path))
    assert r.returncode == 2 and "no worked example found" in r.stderr and "Traceback" not in r.stderr


def test_a_list_items_dash_is_no_minus_sign():
    """``- e^{0.55} = 1.733`` in a Markdown list is e^{0.55}, not its negation (which would
    call every right exponential wrong, its sign dropped)."""
    item, = read("- e^{0.55} = 1.733")
    assert not item.negated and item.argument == "0.55"
    assert abs(mpmath.exp(mpmath.mpf("0.55")) - mpmath.mpf(item.result)) < mpmath.mpf("0.0005")
    neg, = read(r"the loss is $-\ln 0.7285 = 0.3168$")
    assert neg.negated


def test_a_dot_product_takes_its_factors_from_one_row_and_one_column():
    """0.6×0.5 + 0.4×0.2 + 1.0×0.7: the embedding's row times a column of W_Q, not the
    first entry anywhere that prints 0.2 (the embedding's own last entry)."""
    from types import SimpleNamespace as NS
    from symattn.infer.written_steps import _operands

    def block(name, rows):
        values = tuple(tuple(Fraction(x) for x in r) for r in rows)
        return NS(name=name, shape=(len(rows), len(rows[0])), printed=NS(values=values))
    x = block("x", [["0.6", "0.4", "1.0", "0.2"]])
    w = block("W_Q", [["0.5", "0.3"], ["0.2", "0.8"], ["0.7", "0.1"], ["0.4", "0.6"]])
    (item,) = read("Q[0] = 0.6×0.5 + 0.4×0.2 + 1.0×0.7 + 0.2×0.4 = 1.160")
    operands, owners = _operands(item, [w, x], {})
    assert operands == ("x[0, 0]", "W_Q[0, 0]", "x[0, 1]", "W_Q[1, 0]", "x[0, 2]", "W_Q[2, 0]",
                        "x[0, 3]", "W_Q[3, 0]")
    assert [b.name for b in owners] == ["x", "W_Q"]
    assert sum(Fraction(a) * Fraction(b) for a, b in zip(item.numbers[0::2], item.numbers[1::2])) \
        == Fraction("1.16")


def test_a_vector_equation_is_worked_entry_by_entry(tmp_path):
    """``[exp(0.5), exp(1.0)] ≈ [1.6487, 2.7813]``: each entry a written step, the second's
    digits swapped (e = 2.71828…) and flagged; the quotients of the next line checked too."""
    e = [mpmath.exp(mpmath.mpf("0.5")), mpmath.exp(mpmath.mpf("1.0"))]
    total = mpmath.mpf("1.6487") + mpmath.mpf("2.7183")
    post = tmp_path / "post.md"
    post.write_text("\n".join([
        "# Softmax by hand", "", "```python", "scores = [0.5, 1.0]", "```", "",
        "1. Exponentiate: [exp(0.5), exp(1.0)] ≈ [1.6487, 2.7813]",
        "2. Sum: 1.6487 + 2.7183 = 4.3670",
        "3. Normalize: [1.6487/4.3670, 2.7183/4.3670] ≈ [0.3775, 0.6225]", ""]), encoding="utf-8")
    got = {(c["line"], c["printed"]): c for c in claims(post)["claims"]}
    assert got[(7, "1.6487")]["verdict"] == "correct" and close(got[(7, "1.6487")]["exact"], e[0])
    assert got[(7, "2.7813")]["verdict"] == "wrong" and close(got[(7, "2.7813")]["exact"], e[1])
    for printed, truth in (("0.3775", e[0] / (e[0] + e[1])), ("0.6225", e[1] / (e[0] + e[1]))):
        assert got[(9, printed)]["verdict"] in ("correct", "carried"), got[(9, printed)]
        assert abs(mpmath.mpf(got[(9, printed)]["exact"]) - truth) < mpmath.mpf("1e-3"), (printed, truth)
    assert abs(total - mpmath.mpf("4.3670")) < mpmath.mpf("1e-12")


def test_a_list_of_squares_is_a_square_an_entry():
    got = [(w.key, w.argument, w.result) for w in read("[(-0.15)², (0.05)²] = [0.0225, 0.0025]")]
    assert got == [("square", "-0.15", "0.0225"), ("square", "0.05", "0.0025")]
    assert Fraction("-0.15") ** 2 == Fraction("0.0225") and Fraction("0.05") ** 2 == Fraction("0.0025")


def test_entries_of_a_vector_equation_pair_up_in_order():
    from symattn.infer.written import _elementwise
    assert _elementwise("[0.9929/1.9929, 1.0/1.9929] ≈ [0.498, 0.502]") == \
        [("0.9929/1.9929 = 0.498", False, 0), ("1.0/1.9929 = 0.502", False, 1)]
    assert _elementwise("[exp(-0.00707), exp(0.0)] = [0.9929, 1.0]") == \
        [("exp(-0.00707) = 0.9929", False, 0), ("exp(0.0) = 1.0", False, 1)]
    assert _elementwise("[a, b] = [0.5]") == [] and _elementwise("[1, 2] + [3, 4]") == []


def test_a_wrong_exponential_in_a_list_of_them_is_judged_at_its_entry(tmp_path):
    """Each ``e^{z_j} = …`` of a list that a chain's ``exp(z)`` computes whole: the one
    whose digits are swapped is flagged at its entry, not left unverified."""
    z = ["0.55", "-1.25", "0.45", "2.50", "-0.05"]
    e = [mpmath.exp(mpmath.mpf(x)) for x in z]
    printed = [f"{float(x):.3f}" for x in e]
    assert printed[2] == "1.568"
    printed[2] = "1.586"
    post = tmp_path / "post.md"
    probs = [x / mpmath.fsum(e) for x in e]
    total = sum(mpmath.mpf(p) for p in printed[:2] + [f"{float(e[2]):.3f}"] + printed[3:])
    post.write_text("\n".join(
        ["# Softmax by hand", "", "```python", f"logits = [[{', '.join(z)}]]", "print(softmax(logits))",
         "```", "", "```output", f"[[{', '.join(f'{float(p):.4f}' for p in probs)}]]", "```", "",
         "Three decimals for the exponentials:", ""]
        + [f"- e^{{{x}}} = {p}" for x, p in zip(z, printed)]
        + ["", f"$$\\text{{sum}} = {float(total):.3f}$$", "",
           f"$$p_3 = \\frac{{{printed[3]}}}{{{float(total):.3f}}} = {float(mpmath.mpf(printed[3]) / total):.4f}$$",
           ""]), encoding="utf-8")
    got = {(c["line"], c["printed"]): c for c in claims(post)["claims"]}
    c = got[(16, "1.586")]
    assert c["verdict"] == "wrong" and close(c["exact"], e[2]), c
    assert c["at"] == ["0", "2"] or c["step"].endswith("_3"), c
    assert all(got[(14 + k, p)]["verdict"] == "correct" for k, p in enumerate(printed) if k != 2)


def test_a_vector_of_results_written_above_is_those_results(tmp_path):
    """``softmax([0.577, 0.577, 0])`` after ``1 / 1.732 = 0.577`` (twice) and ``0 / 1.732 =
    0``: the vector is those steps side by side, so the exponentials and weights are judged
    from e^{1/√3}, not e^{0.577}; the weight printed 0.40 for 0.3904 is wrong."""
    s = 1 / mpmath.sqrt(3)
    e = [mpmath.exp(s), mpmath.exp(s), mpmath.mpf(1)]
    w = [x / mpmath.fsum(e) for x in e]
    post = tmp_path / "post.md"
    post.write_text("\n".join([
        "# Scores by hand", "", "We divide by `sqrt(3) ≈ 1.732`.", "",
        "- `1 / 1.732 = 0.577`", "- `1 / 1.732 = 0.577`", "- `0 / 1.732 = 0`", "",
        "`softmax([0.577, 0.577, 0])`", "",
        f"- `e^0.577 = {float(e[0]):.2f}`", f"- `e^0.577 = {float(e[1]):.2f}`", "- `e^0 = 1`", "",
        f"Sum = `{float(e[0]):.2f} + {float(e[1]):.2f} + 1 = {float(sum(e)):.2f}`", "",
        f"- weight of the first: `{float(e[0]):.2f} / {float(sum(e)):.2f} = 0.40`",
        f"- weight of the third: `1 / {float(sum(e)):.2f} = {float(w[2]):.2f}`", ""]), encoding="utf-8")
    got = {(c["line"], c["printed"]): c for c in claims(post)["claims"]}
    assert close(got[(11, f"{float(e[0]):.2f}")]["exact"], e[0]), got          # e^{1/√3}
    first = got[(17, "0.40")]
    assert first["verdict"] == "wrong" and close(first["exact"], w[0]), first
    assert got[(18, f"{float(w[2]):.2f}")]["verdict"] == "correct" and close(got[(18, "0.22")]["exact"], w[2])


def test_equations_listed_on_one_line_are_each_read(tmp_path):
    """``e^2.0 = 7.39    e^1.0 = 2.72    …``: each equation ends before the next begins (a
    gap or a comma), so each exponential is a step; the sum and the quotient after them are
    worked from those steps, and the one slip (e^0.5 printed 1.66) is the one flagged."""
    z = ["2.0", "1.0", "0.5", "0.0"]
    e = [mpmath.exp(mpmath.mpf(x)) for x in z]
    printed = ["7.39", "2.72", "1.66", "1.00"]
    assert [f"{float(x):.2f}" for x in e] == ["7.39", "2.72", "1.65", "1.00"]
    total = mpmath.fsum(e)
    path = tmp_path / "p.md"
    path.write_text("# Softmax by hand\n\n```\n  " + "    ".join(f"e^{x} = {p}" for x, p in zip(z, printed))
                    + f"\n  sum = {' + '.join(printed)} = {float(total):.2f}\n"
                    + f"  P(on) = 7.39 / {float(total):.2f} = {float(e[0] / total):.2f}\n```\n", encoding="utf-8")
    out = claims(path)["claims"]
    by = {c["printed"]: c for c in out}
    for x, p in zip(e, printed):
        assert close(by[p]["exact"], x)
        assert by[p]["verdict"] == ("wrong" if p == "1.66" else "correct")
    assert close(by[f"{float(total):.2f}"]["exact"], total)
    assert close(by[f"{float(e[0] / total):.2f}"]["exact"], e[0] / total)


def test_the_terms_of_a_dot_product_written_out_are_each_a_claim(tmp_path):
    """``s = 0.900*0.650 + 1.150*0.900 = 0.585 + 1.035 = 1.620``: each written term is its
    product's (a term after a minus, its magnitude), so a slipped term is flagged on its
    own; the sum is judged as before."""
    q, k1, k2 = ["0.900", "1.150"], ["0.650", "0.900"], ["0.112", "-0.134"]
    prod = lambda a, b: [Fraction(x) * Fraction(y) for x, y in zip(a, b)]
    p1, p2 = prod(q, k1), prod(q, k2)                       # 0.585, 1.035; 0.1008, -0.1541
    assert [f"{float(x):.3f}" for x in p1 + p2] == ["0.585", "1.035", "0.101", "-0.154"]
    path = tmp_path / "t.md"
    path.write_text("# Scores\n\n$$Q = \\begin{bmatrix} 0.900 & 1.150 \\end{bmatrix}, K = \\begin{bmatrix} "
                    "0.650 & 0.900 \\\\ 0.112 & -0.134 \\end{bmatrix}$$\n\n```\n"
                    "s_1 = 0.900*0.650 + 1.150*0.900 = 0.585 + 1.036 = 1.620\n"
                    "s_2 = 0.900*0.112 + 1.150*(-0.134) = 0.101 - 0.154 = -0.053\n```\n", encoding="utf-8")
    out = claims(path)["claims"]
    by = {(c["line"], c["printed"]): c for c in out}
    assert Fraction(by[(6, "0.585")]["exact"]) == p1[0] and by[(6, "0.585")]["verdict"] == "correct"
    assert Fraction(by[(6, "1.036")]["exact"]) == p1[1] and by[(6, "1.036")]["verdict"] == "wrong"
    assert Fraction(by[(7, "0.101")]["exact"]) == p2[0] and by[(7, "0.101")]["verdict"] == "correct"
    assert Fraction(by[(7, "0.154")]["exact"]) == -p2[1] and by[(7, "0.154")]["verdict"] == "correct"
    assert Fraction(by[(6, "1.620")]["exact"]) == sum(p1) and by[(6, "1.620")]["verdict"] == "correct"


def test_sines_and_cosines_written_out_are_judged(tmp_path):
    """``\\cos(2) = -0.4162``: cos 2 = -0.41615, printed -0.4161 to four decimals."""
    import mpmath
    from conftest import check_post
    rot = [["\\phantom{-}0.5403", "-0.8415"], ["\\phantom{-}0.8415", "\\phantom{-}0.5403"]]
    text = "\n".join(["# Rotations by hand", "",
                      "$$\\cos(1) = 0.5403, \\qquad \\sin(1) = 0.8415, \\qquad \\cos(2) = -0.4162$$", "",
                      "$$R_1 = \\begin{bmatrix} " + " \\\\ ".join(" & ".join(r) for r in rot) + " \\end{bmatrix}$$",
                      "", "$$k = \\begin{bmatrix} 0.24 & 0.11 \\end{bmatrix}$$", "",
                      "$$k' = k R_1^\\top = \\begin{bmatrix} 0.0371 & 0.2614 \\end{bmatrix}$$", ""])
    out = check_post(tmp_path, text)
    got = {c["printed"]: c for c in out["claims"] if c["line"] == 3}
    truth = {"0.5403": mpmath.cos(1), "0.8415": mpmath.sin(1), "-0.4162": mpmath.cos(2)}
    assert set(got) == set(truth)
    assert all(abs(mpmath.mpf(got[p]["exact"]) - v) < mpmath.mpf("1e-12") for p, v in truth.items())
    assert {p: c["verdict"] for p, c in got.items()} == {"0.5403": "correct", "0.8415": "correct",
                                                         "-0.4162": "wrong"}
    rotated = [c for c in out["claims"] if c["line"] == 9]  # R_1 is the rotation by 1 (rope_matrix):
    k = [mpmath.mpf("0.24"), mpmath.mpf("0.11")]            # k' from cos 1 and sin 1 themselves
    r = [[mpmath.cos(1), -mpmath.sin(1)], [mpmath.sin(1), mpmath.cos(1)]]
    want = [sum(a * b for a, b in zip(k, row)) for row in r]
    assert len(rotated) == 2 and all(abs(mpmath.mpf(c["exact"]) - w) < mpmath.mpf("1e-15")
                                     for c, w in zip(rotated, want)), rotated
    assert {c["verdict"] for c in rotated} == {"correct"}


def test_a_sum_of_exponentials_a_chain_works_out_is_judged(tmp_path):
    """The e^{z_i} are the softmax chain's exp(z) entries; the sum written after them takes
    those entries up: its slip (6.391 for 6.319) is flagged, not left out."""
    from conftest import check_post
    text = "\n".join(["# Softmax by hand", "", "```python", "z = [0.5, 1.2, 0.3]",
                      "p = np.exp(z) / np.exp(z).sum()", "print(p)", "# [0.261 0.525 0.214]", "```", "",
                      "- $e^{0.5} = 1.649, e^{1.2} = 3.320, e^{0.3} = 1.350$",
                      "- Sum = $1.649 + 3.320 + 1.350 = 6.391$", ""])
    out = check_post(tmp_path, text)
    total = sum(mpmath.exp(mpmath.mpf(x)) for x in ("0.5", "1.2", "0.3"))
    assert f"{float(total):.3f}" == "6.319"
    got = [c for c in out["claims"] if c["line"] == 11 and c["printed"] == "6.391"]
    assert len(got) == 1 and got[0]["verdict"] == "wrong"
    assert abs(mpmath.mpf(got[0]["exact"]) - total) < mpmath.mpf("1e-12")


def test_a_result_printed_as_its_own_argument_is_no_origin_later(tmp_path):
    """``sin(0.01) ≈ 0.01`` then ``cos(0.01) ≈ 0.9999``: the second 0.01 is the number as
    written (cos 0.01 = 0.99995, so 0.9999 is wrong), not the first sine's result (cos of
    0.0099998 is 0.999950002)."""
    from conftest import check_post
    text = "\n".join(["# PE by hand", "", "```",
                      "PE(1, 0) = sin(1) ≈ 0.841",
                      "PE(1, 2) = sin(1/100) = sin(0.01) ≈ 0.01",
                      "PE(1, 3) = cos(1/100) = cos(0.01) ≈ 0.9999", "```", ""])
    out = check_post(tmp_path, text)
    got = {c["printed"]: c for c in out["claims"]}
    assert {p: c["verdict"] for p, c in got.items()} == {"0.841": "correct", "0.01": "correct",
                                                         "0.9999": "wrong"}
    assert abs(mpmath.mpf(got["0.9999"]["exact"]) - mpmath.cos(mpmath.mpf("0.01"))) < mpmath.mpf("1e-20")


def test_a_softmax_of_a_list_written_out_is_judged_entry_by_entry(tmp_path):
    """``α = softmax([0.9, 0.2, 0.1])`` over ``≈ [0.72, 0.15, 0.13]`` (it is 0.51, 0.26,
    0.23: each wrong) and ``softmax([1, 2, 3]) = [0.09, 0.24, 0.67]`` (right): each entry
    exp(x_k) / Σ exp(x_j) of the list as written, claimed in its place."""
    from conftest import check_post
    text = "\n".join(["# Soft lookup", "", "```", "α = softmax([0.9, 0.2, 0.1])", "  ≈ [0.72, 0.15, 0.13]", "```",
                      "", "```", "softmax([1, 2, 3]) = [0.09, 0.24, 0.67]   # reasonable", "```", ""])
    out = check_post(tmp_path, text)

    def truth(xs):
        e = [mpmath.exp(mpmath.mpf(x)) for x in xs]
        return [x / sum(e) for x in e]
    for line, xs, printed, verdicts in ((5, ["0.9", "0.2", "0.1"], ["0.72", "0.15", "0.13"], ["wrong"] * 3),
                                        (9, ["1", "2", "3"], ["0.09", "0.24", "0.67"], ["correct"] * 3)):
        got = [c for c in out["claims"] if c["line"] == line and c["printed"] in printed]
        got.sort(key=lambda c: printed.index(c["printed"]))
        assert [c["printed"] for c in got] == printed
        assert [c["verdict"] for c in got] == verdicts
        for c, want in zip(got, truth(xs)):
            assert abs(mpmath.mpf(c["exact"]) - want) < mpmath.mpf("1e-20")
    assert not [c for c in out["claims"] if c["line"] in (4, 9) and c["printed"] in ("0.9", "0.2", "0.1", "1", "2", "3")
                and c["verdict"] != "correct"]


def test_a_function_of_worked_arithmetic_is_judged_from_its_first_side(tmp_path):
    """``sin(1/10000^(2/4)) = sin(0.1) ≈ 0.100``: the argument is 0.01, not 0.1; the result
    is judged as the first side's (sin 0.01 = 0.0099998…, printed 0.010), and the right
    ``cos(1/10000^(0/4)) = cos(1) ≈ 0.540`` passes."""
    from conftest import check_post
    mpmath.mp.dps = 30
    assert mpmath.nstr(mpmath.sin(mpmath.mpf(1) / mpmath.power(10000, mpmath.mpf(2) / 4)), 5) == "0.0099998"
    assert mpmath.nstr(mpmath.cos(1), 3) == "0.54"
    text = ("```\nPE(1,1) = cos(1/10000^(0/4)) = cos(1) ≈ 0.540\n"
            "PE(1,2) = sin(1/10000^(2/4)) = sin(0.1) ≈ 0.100\n```\n")
    d = check_post(tmp_path, text)
    got = {c["line"]: (c["printed"], c["verdict"]) for c in d["claims"]}
    assert got[2] == ("0.540", "correct")
    assert got[3] == ("0.100", "wrong")
    assert [c["expected"] for c in d["claims"] if c["line"] == 3] == ["0.010"]


def test_sides_four_orders_apart_are_a_misreading_not_judged(tmp_path):
    """A page's text with its exponents flattened (``10000^{-2/4}`` as ``100002/4``) reads as
    arithmetic that is off by millions: no verdict. A slip by a factor of 100 is judged."""
    data = post(tmp_path, "flat.txt", "θ0=100000/21=1,θ1=100001/21=0.01,θ2=100002/21=0.0001\n"
                "Inputs: [0.0002, 0.5]\nSquares: 0.0002 * 0.0002 = 0.000004 and 0.5 * 0.5 = 0.25\n")
    assert not [c for c in at(data, 1) if c["verdict"] == "wrong"]
    slip = [c for c in at(data, 3) if c["printed"] == "0.000004"]
    assert slip and slip[0]["verdict"] == "wrong"
    assert Fraction(slip[0]["exact"]) == Fraction("0.0002") ** 2


FENCED_TABLE = """Nach der Matrixmultiplikation:

```
Wort    | Query         | Key
"I"     | [ 0.8,  0.1]  | [ 0.6, -0.3]
"love"  | [-0.2,  0.7]  | [ 0.1,  0.5]
"dogs"  | [ 0.5, -0.4]  | [-0.4,  0.8]
```

```
Q_dogs · K_I = (0.5 × 0.6) + (-0.4 × -0.3) = 0.42
Q_dogs · K_love = (0.5 × 0.1) + (-0.4 × 0.5) = -0.16
```
"""


def test_a_table_typed_in_a_code_block_gives_its_columns_and_a_dot_product_its_rows(tmp_path):
    """The table is read as a matrix a column (a code block of | rows); each product in
    parentheses is a row of Query times a row of Key, whichever block prints the same digits."""
    data = post(tmp_path, "fenced.md", FENCED_TABLE)
    steps = {s["line"]: s["expr"] for ex in data["inferred"] for s in ex["steps"]}
    assert steps[11].replace(" ", "") == "(Query[2,0]*Key[0,0])+(Query[2,1]*Key[0,1])"
    assert steps[12].replace(" ", "") == "(Query[2,0]*Key[1,0])+(Query[2,1]*Key[1,1])"
    got = {c["printed"]: c for c in at(data, 12)}
    assert Fraction(got["-0.16"]["exact"]) == Fraction("0.5") * Fraction("0.1") + Fraction("-0.4") * Fraction("0.5")
    assert got["-0.16"]["verdict"] == "wrong" and at(data, 11)[0]["verdict"] == "correct"


def test_a_number_written_before_a_list_multiplies_it():
    from symattn.infer.written_lists import elementwise
    got = elementwise("C_1=0.9442 [1,-1]+0.0558 [-1,1]=[0.9442-0.0558, -0.9442+0.0558]=[0.8884, -0.8884]")
    assert [e for e, _, _ in got] == ["0.9442 * 1+0.0558 * (-1) = 0.9442-0.0558 = 0.8884",
                                      "0.9442 * (-1)+0.0558 * 1 = -0.9442+0.0558 = -0.8884"]
    assert elementwise("x = [1, 2] [3, 4] = [5, 6]") == []       # two rows side by side: no product
    # each entry's first side as written: 0.9442·1 + 0.0558·(−1) = 0.8884 exactly
    assert Fraction("0.9442") * 1 + Fraction("0.0558") * -1 == Fraction("0.8884")


def test_a_function_of_a_rounded_number_of_unknown_origin_is_not_blamed(tmp_path):
    """``-log(0.4251) = 0.8555`` with no block printing 0.4251: wrong of 0.4251 itself
    (0.85543…) but right of a number that rounds to it (a softmax 0.42508… the text printed
    rounded): not knowing which the text took, no verdict. 0.8600 is wrong of every such
    number, 0.8554 right of 0.4251."""
    exact = -mpmath.log(mpmath.mpf("0.4251"))
    assert mpmath.nstr(exact, 4) == "0.8554"
    reach = sorted(-mpmath.log(mpmath.mpf(x)) for x in ("0.42505", "0.42515"))
    assert reach[0] < mpmath.mpf("0.85555") and mpmath.mpf("0.85545") < reach[1]
    assert not reach[0] < mpmath.mpf("0.86") < reach[1]
    data = post(tmp_path, "loss.txt", "loss = -log(0.4251) = 0.8555\n\nloss = -log(0.4251) = 0.8600\n\n"
                "loss = -log(0.4251) = 0.8554\n")
    got = {c["printed"]: c for c in data["claims"]}
    assert "0.8555" not in got
    assert got["0.8600"]["verdict"] == "wrong" and close(got["0.8600"]["exact"], exact)
    assert got["0.8554"]["verdict"] == "correct" and close(got["0.8554"]["exact"], exact)


MASKED_ROWS = """# Masking

```
M = |  0   -∞   -∞  |
    |  0    0   -∞  |
    |  0    0    0  |
```

The masked scores S' = S + M:

```
S' = | 0.5+0    0.3+(-∞)  0.1+(-∞) |
     | 0.2+0    0.4+0     0.2+(-∞) |
     | 0.1+0    0.2+0     0.5+0    |

S' = | 0.5   -∞    -∞  |
     | 0.2   0.4   -∞  |
     | 0.1   0.2   0.5 |
```

Row 1: softmax([0.5, -∞, -∞]) = [1.0, 0, 0]
Row 2: softmax([0.2, 0.4, -\\infty]) ≈ [0.45, 0.55, 0]
Row 3: softmax([0.1, 0.2, 0.5]) ≈ [0.23, 0.26, 0.51]

Final answer:

```
M = |  0   -∞   -∞  |
    |  0    0   -∞  |
    |  0    0    0  |

S' = | 0.5   -∞    -∞  |
     | 0.2   0.4   -∞  |
     | 0.1   0.2   0.5 |
```
"""


def test_softmax_of_a_masked_row_written_out(tmp_path):
    """``softmax([0.2, 0.4, -∞]) ≈ [0.45, 0.55, 0]``: a −∞ written in the list is the masked
    row's own (exp(−∞) = 0), so each entry is that row's softmax, right or wrong; row 3
    (0.23, 0.26, 0.51 for 0.278, 0.307, 0.415) is wrong, rows 1 and 2 right. A −∞ printed
    again where a whole block is tried on a step must not end the check (it once raised)."""
    data = post(tmp_path, "masked.md", MASKED_ROWS)
    lines = MASKED_ROWS.splitlines()
    rows = {k: 1 + next(i for i, t in enumerate(lines) if t.startswith(f"Row {k}:")) for k in (1, 2, 3)}
    truths = {1: [1, 0, 0], 2: softmax(["0.2", "0.4"]) + [0], 3: softmax(["0.1", "0.2", "0.5"])}
    for k, line in rows.items():
        got = [c for c in at(data, line) if c["step"].startswith("written_arithmetic")]   # not the list's
        assert len(got) == 3
        for c, truth in zip(got, truths[k]):
            assert close(c["exact"], truth)
            assert c["verdict"] == ("wrong" if k == 3 else "correct"), c


WHOLE = """# Dot products by hand

q · k₁ = (1×1) + (0×1) + (1×0) + (0×0) = 1 + 0 + 0 + 0 = 1

score(dort, dort) = [1,1]·[1,1] = (1×1)+(1×1) = 3

Each head works with 512/8 = 64 dimensions.

The longest period is 2π × 10000^(512/512) = 2π × 10000 ≈ 62832.
"""


def test_arithmetic_of_whole_numbers_is_checked(tmp_path):
    """Whole numbers worked to a result are arithmetic as decimals are: ``(1×1)+(1×1) = 3``
    is wrong (2), the dot product of line 3 and ``512/8 = 64`` right. ``= 2π`` is no result
    2 of ``10000^(512/512)``: a number a letter follows is not the end of an equation."""
    data = post(tmp_path, "whole.md", WHOLE)
    lines = WHOLE.splitlines()
    line = {k: 1 + next(i for i, t in enumerate(lines) if k in t) for k in ("q · k₁", "score", "512/8", "2π")}
    truths = {line["q · k₁"]: ("1", Fraction(1 * 1 + 0 * 1 + 1 * 0 + 0 * 0), "correct"),
              line["score"]: ("3", Fraction(1 * 1 + 1 * 1), "wrong"),
              line["512/8"]: ("64", Fraction(512, 8), "correct")}
    for at_line, (printed, truth, verdict) in truths.items():
        got = [c for c in at(data, at_line) if c["printed"] == printed and c["step"].startswith("written_arithmetic")]
        assert len(got) == 1 and Fraction(got[0]["exact"]) == truth and got[0]["verdict"] == verdict, at_line
    assert not at(data, line["2π"])


LAYER_NORM = """### LayerNorm by hand

**Input vector:**
```
x = [1.0, 2.0, 3.0, 4.0]
```

**Step 1: Compute mean**
```
mean = (1.0 + 2.0 + 3.0 + 4.0) / 4 = 10.0 / 4 = 2.5
```

**Step 2: Compute variance**
```
variance = ((1.0-2.5)^2 + (2.0-2.5)^2 + (3.0-2.5)^2 + (4.0-2.5)^2) / 4
         = (2.25 + 0.25 + 0.25 + 2.25) / 4
         = 5.0 / 4
         = 1.25
```

**Step 3: Normalize**
```
std = sqrt(1.25 + 0.00001) = 1.118

x_hat[0] = (1.0 - 2.5) / 1.118 = -1.341
x_hat[1] = (2.0 - 2.5) / 1.118 = -0.447
```
"""


def test_a_statistic_written_out_is_taken_up_by_the_arithmetic_after_it(tmp_path):
    """``std = sqrt(1.25 + 0.00001) = 1.118`` where the statistics of ``x`` are worked:
    ``(1.0 - 2.5) / 1.118`` takes the mean and the standard deviation themselves, so
    ``-1.341`` (truncated: −1.34164) is wrong and ``-0.447`` right."""
    data = post(tmp_path, "ln.md", LAYER_NORM)
    lines = LAYER_NORM.splitlines()
    std = mpmath.sqrt(mpmath.mpf("1.25") + mpmath.mpf("0.00001"))
    for k, (x, printed, verdict) in enumerate((("1.0", "-1.341", "wrong"), ("2.0", "-0.447", "correct"))):
        line = 1 + next(i for i, t in enumerate(lines) if t.startswith(f"x_hat[{k}]"))
        got = [c for c in at(data, line) if c["printed"] == printed]
        assert len(got) == 1 and got[0]["verdict"] == verdict
        assert close(got[0]["exact"], (mpmath.mpf(x) - mpmath.mpf("2.5")) / std)


def test_a_percentage_is_a_share_not_a_near_miss_of_a_norm(tmp_path):
    """``√0.1149 ≈ 0.339`` then "roughly 31% in L2 norm" (a ratio of two norms): the 31% is
    no print of the square root, wrong by three points; a percentage prints probabilities
    and weights only."""
    text = ("# How far the output moves\n\n$$\no = [0.029,\\; 0.261,\\; 0.087]^\\top + [0.497,\\; 0.142,\\; 0.568]^\\top\n"
            "= [0.526,\\; 0.403,\\; 0.655]^\\top\n$$\n\n"
            "$$\n\\|\\Delta o\\|_2 = \\sqrt{0.1149} \\approx 0.339\n$$\n\n"
            "Relative to the output magnitude $\\|o\\|_2 = \\sqrt{0.01 + 0.81 + 0.09 + 0.25} \\approx 1.095$, "
            "the mask changes it by roughly **31%** in L2 norm.\n")
    data = post(tmp_path, "norm.md", text)
    lines = text.splitlines()
    root = 1 + next(i for i, t in enumerate(lines) if "sqrt" in t)
    share = 1 + next(i for i, t in enumerate(lines) if "31%" in t)
    got = [c for c in at(data, root) if c["printed"] == "0.339"]
    assert len(got) == 1 and got[0]["verdict"] == "correct" and close(got[0]["exact"], mpmath.sqrt(mpmath.mpf("0.1149")))
    assert not [c for c in at(data, share) if c["printed"] == "31%"]


def test_what_is_no_whole_number_arithmetic():
    """A result a percent sign or a letter follows is not the result (``3/7 ≈ 43%``, ``= 2π``);
    a whole-number equation whose sides are twice apart or more is a flattened layout, not a
    slip (``θ0=100000/21=1`` of ``10000^{-0/2}``); equations run together on one line name
    nothing (``mθ0mθ1=2×1=2=2×0.01=0.02``: no ``mθ0mθ1`` is 2×1)."""
    assert read("savings: (3d+1)/(7d+4) ≈ 3/7 ≈ 43%") == []
    assert read("period = 2 × 3 = 2π") == []
    assert [(w.numbers, w.result) for w in read("θ0=100000/21=1,θ1=100001/21=0.01")] == []
    got = read("mθ0mθ1=2×1=2=2×0.01=0.02")
    assert [(w.numbers, w.result, w.label) for w in got] == [(("2", "1"), "2", ""), (("2", "0.01"), "0.02", "")]
    assert [(w.numbers, w.result) for w in read("(1×1)+(1×1) = 3")] == [(("1", "1", "1", "1"), "3")]

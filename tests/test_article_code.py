"""Issue 20: numbers in code cells, code comments and notebook printouts, read as a careful
reader reads them: the variable printed, the print() label, the assignment a comment
belongs to.

Each article is small and written in the test; each truth is computed with mpmath or
fractions from the inputs, never by symattn."""

from __future__ import annotations


from fractions import Fraction

import mpmath

from test_article_labels import at, check

mpmath.mp.dps = 30


def hello_spec(name: str, *steps, inputs: str = "") -> str:
    """A spec of the Hello features ``x`` (half-up) with ``steps``, (name, expr) pairs."""
    body = "".join(f"[[steps]]\nname = \"{n}\"\nexpr = {e!r}\n" for n, e in steps)
    return (f'[example]\nid = "{name}"\nsource = "post.md"\ntokens = ["Hello"]\nrounding = "half-up"\n'
            f'[inputs]\nx = {{ value = [[0.1, 0.3, -0.2, 0.8]], rows = "tokens" }}\n{inputs}\n{body}')

PERPLEXITY = """
[example]
id = "ppl"
source = "post.md"
[inputs]
p = { value = [["0.0001", "0.00002"]] }
[[steps]]
name = "log_p"
expr = "log(p)"
[[steps]]
name = "loss"
expr = "mean(log_p) * -1"
[[steps]]
name = "perplexity"
expr = "exp(loss)"
"""


def ppl():
    return mpmath.exp(-(mpmath.log(mpmath.mpf("0.0001")) + mpmath.log(mpmath.mpf("0.00002"))) / 2)


def test_a_scalar_tensor_printout_under_its_print_is_that_step_whatever_its_value(tmp_path):
    """`print(perplexity)` over `tensor(22360.6797)`: a scalar tensor's value, not the
    argument of a call; the print names the step, so it is a claim (wrong: 22360.68 is
    exp of the exact loss)."""
    assert f"{float(ppl()):.4f}" == "22360.6798"
    article = "```python\nprint(perplexity)\n```\n\n```\ntensor(22371.1230)\n```\n"
    out = check(tmp_path, PERPLEXITY, article)
    assert at(out, 6) == [("perplexity", ["0", "0"], "22371.1230", "wrong")]


def test_a_whole_number_in_a_sentence_that_names_the_step_is_a_claim(tmp_path):
    """`The perplexity … that'd be 22,361 words`: a whole number, but the sentence names
    the step and its value rounds to it: a claim, correct. A count in a sentence that names
    no step is none."""
    assert int(mpmath.nint(ppl())) == 22361
    article = ("- The perplexity can be read as the effective vocabulary size the model is unsure "
               "about (here that'd be 22,361 words or tokens)\n")
    out = check(tmp_path, PERPLEXITY, article)
    assert at(out, 1) == [("perplexity", ["0", "0"], "22361", "correct")]
    out = check(tmp_path, PERPLEXITY, "- The vocabulary has 22,361 tokens.\n")
    assert out["claims"] == []


SUMS = """
[example]
id = "sums"
source = "post.ipynb"
tokens = ["a", "b"]
[inputs]
S = { value = [[0.5, 0.1], [0.2, 0.9]], rows = "tokens", cols = "tokens" }
[[steps]]
name = "A"
expr = "softmax(S)"
[[steps]]
name = "A_sum"
expr = "sum(A)"
"""


def test_a_printouts_whole_float_keeps_its_point_and_is_checked_as_the_whole_number(tmp_path):
    """`print(A_sum)` over `tensor([1., 1.])`: a row of whole floats prints the integers
    (claimed `1`); `tensor(1.)` alone keeps its point (`1.`), and both claim exactly 1
    (the rows of a softmax sum to 1 exactly)."""
    import json
    e = [mpmath.exp(mpmath.mpf(x)) for x in ("0.5", "0.1")]
    assert sum(x / sum(e) for x in e) == 1
    nb = {"cells": [
        {"cell_type": "code", "source": ["print(A_sum)"], "metadata": {},
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["tensor([1., 1.])\n"]}]},
        {"cell_type": "code", "source": ["print(A_sum[0])"], "metadata": {},
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["tensor(1.)\n"]}]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    out = check(tmp_path, SUMS, json.dumps(nb), name="post.ipynb")
    got = sorted((c["step"], c["printed"], c["verdict"]) for c in out["claims"])
    assert got == [("A_sum", "1", "correct"), ("A_sum", "1", "correct"), ("A_sum", "1.", "correct")]


STDS = """
[example]
id = "stds"
source = "post.md"
[inputs]
batch = { value = [[4, 3, 1], [0, 2, 0]] }
[[steps]]
name = "out"
expr = "layer_norm(batch, eps=0)"
[[steps]]
name = "out_std"
expr = "sqrt(var(concat(out[0], out[1]), ddof=1))"
[[steps]]
name = "row_std"
expr = "sqrt(var(out[0], ddof=1))"
"""


def _std(xs, ddof):
    mu = sum(xs) / len(xs)
    return mpmath.sqrt(sum((x - mu) ** 2 for x in xs) / (len(xs) - ddof))


def test_a_method_printed_names_the_step_of_the_two_names_and_keyword_arguments_end_nothing(tmp_path):
    """`print(out.std())` over `# tensor(1.2247, dtype=torch.float32)` prints `out_std`
    (exact 1.0954…): wrong, although another step (`row_std`) has the value 1.2247."""
    rows = [[mpmath.mpf(x) for x in r] for r in ([4, 3, 1], [0, 2, 0])]
    out = [[(x - sum(r) / 3) / _std(r, 0) for x in r] for r in rows]
    assert f"{float(_std(out[0] + out[1], 1)):.4f}" == "1.0954"
    assert f"{float(_std(out[0], 1)):.4f}" == "1.2247"
    article = ("```python\nprint(out.std())\n# tensor(1.0954, dtype=torch.float32)\n"
               "print(out.std())\n# tensor(1.2247, dtype=torch.float32)\n```\n")
    got = check(tmp_path, STDS, article)
    assert at(got, 3) == [("out_std", ["0", "0"], "1.0954", "correct")]
    assert at(got, 5) == [("out_std", ["0", "0"], "1.2247", "wrong")]


HELLO = hello_spec("hello",
    ("mean_h", "mean(x)"),
    ("var_h", "var(x, ddof=0)"),
    ("std_h", "sqrt(var_h)"),
    ("std_sq", "0.364 ** 2"))
XS = [Fraction(s) for s in ("0.1", "0.3", "-0.2", "0.8")]      # the Hello features


def test_a_line_of_hand_arithmetic_in_a_code_block_is_read(tmp_path):
    """`std_dev = √0.1325 = 0.364` in a ```python block is no Python (√): it works the
    step out, its result a claim on `std_h` (`std_dev`: `dev` is a word of the program's
    name, not a subscript). A plain assignment `eps = 0.364` stays program text."""
    var = sum((x - sum(XS) / 4) ** 2 for x in XS) / 4
    assert var == Fraction(53, 400)
    assert f"{float(mpmath.sqrt(mpmath.mpf(53) / 400)):.3f}" == "0.364"
    article = "```python\nstd_dev = √0.1325 = 0.364\neps = 0.364\n```\n"
    out = check(tmp_path, HELLO, article)
    assert ("std_h", ["Hello", "0"], "0.364", "correct") in at(out, 2)
    assert at(out, 3) == []


RANGES = """
[example]
id = "ranges"
source = "post.md"
tokens = ["Hello", "how"]
[inputs]
emb = { value = [[0.1, 0.3, -0.2, 0.8], [0.5, -0.3, 0.2, 0.6]], rows = "tokens" }
u = [[5, 6, 7, 8]]
[[steps]]
name = "normed"
expr = "(emb - mean(emb)) / sqrt(var(emb, ddof=0))"
[[steps]]
name = "ranges"
expr = "max(normed) + max(-normed)"
[[steps]]
name = "mean_u"
expr = "mean(u)"
"""


def _normed(row):
    xs = [mpmath.mpf(x) for x in row]
    mu = sum(xs) / len(xs)
    sd = mpmath.sqrt(sum((x - mu) ** 2 for x in xs) / len(xs))
    return [(x - mu) / sd for x in xs]


def test_a_trailing_comment_that_labels_a_number_speaks_of_its_lines_vector(tmp_path):
    """`"how" : [0.71, …]  # Range: ~2.88`: the comment labels a number (`Range` names the
    step `ranges`, the line's lead its row `how`); ~ with decimals still says its places,
    so 2.88 is wrong (exact 2.571…). The same label beside the raw embedding (`Range: 1.0`)
    speaks of another vector: `ranges` is not computed from it, so it is no claim there.
    A program line's labelling comment is read too (`u = [5, 6, 7, 8]  # Mean=6.5`)."""
    hello, how = _normed(["0.1", "0.3", "-0.2", "0.8"]), _normed(["0.5", "-0.3", "0.2", "0.6"])
    assert f"{float(max(hello) - min(hello)):.2f}" == "2.75"
    assert f"{float(max(how) - min(how)):.2f}" == "2.57"
    article = ("```python\n"
               '"Hello": [0.1, 0.3, -0.2, 0.8]     # Range: 1.0, mostly positive\n'
               '"how"  : [0.5, -0.3, 0.2, 0.6]     # Range: 0.9, mixed signs\n'
               "\n"
               '"Hello": [-0.41, 0.14, -1.24, 1.51]  # Range: ~2.75, balanced around 0\n'
               '"how"  : [0.71, -1.57, -0.14, 1.00]  # Range: ~2.88, balanced around 0\n'
               "u = [5, 6, 7, 8]        # Mean=6.5, tilted toward positive\n```\n")
    out = check(tmp_path, RANGES, article)
    ranges = {c["line"]: (c["at"], c["printed"], c["verdict"]) for c in out["claims"] if c["step"] == "ranges"}
    assert ranges == {5: (["Hello", "0"], "2.75", "correct"), 6: (["how", "0"], "2.88", "wrong")}
    assert at(out, 7) == [("mean_u", ["0", "0"], "6.5", "correct")]
    assert not [c for c in out["claims"] if c["line"] in (2, 3) and c["verdict"] == "wrong"]


WORKED = hello_spec("worked",
    ("std_h", "sqrt(var(x, ddof=0))"),
    ("norm_h", "(x - mean(x)) / std_h"),
    ("code_norm", "layer_norm(x, eps=eps)"), inputs='eps = "0.00001"')


def test_the_order_of_the_steps_decides_between_entries_the_words_leave_equally_likely(tmp_path):
    """`(0.1 - 0.25) / 0.364 = -0.412` rounds from `norm_h` (-0.412082) and from `code_norm`
    (-0.412066, with eps): after `std_dev = … = 0.364` (the result of `std_h`) the article
    works out the next step, `norm_h`. Without a result before it, it stays unverified."""
    xs = [mpmath.mpf(v) for v in ("0.1", "0.3", "-0.2", "0.8")]
    mu = sum(xs) / 4
    var = sum((v - mu) ** 2 for v in xs) / 4
    norm, code = (xs[0] - mu) / mpmath.sqrt(var), (xs[0] - mu) / mpmath.sqrt(var + mpmath.mpf("0.00001"))
    assert f"{float(norm):.3f}" == f"{float(code):.3f}" == "-0.412" and norm != code
    body = "normalized = [\n    (0.1 - 0.25) / 0.364 = -0.15 / 0.364 = -0.412,\n]\n"
    out = check(tmp_path, WORKED, "```python\nstd_dev = √0.1325 = 0.364\n" + body + "```\n")
    assert ("norm_h", ["Hello", "0"], "-0.412", "correct") in at(out, 4)
    out = check(tmp_path, WORKED, "```python\n" + body + "```\n")
    assert not [c for c in at(out, 3) if c[2] == "-0.412"]
    assert [u["text"] for u in out["unmatched"] if u["line"] == 3] == ["-0.412"]


SECTIONS = hello_spec("sections",
    ("hello", 'x["Hello"]'),
    ("mean_h", "mean(x)"),
    ("var_h", "var(x, ddof=0)"),
    ("norm_std_h", "sqrt(var((x - mean(x)) / sqrt(var_h), ddof=0))"),
    ("code_mean", "mean(x)"),
    ("code_var", "var(x, ddof=0)"),
    ("code_norm", "(x - code_mean) / sqrt(code_var)"),
    ("code_norm_std", "sqrt(var(code_norm, ddof=1))"))


def test_a_caption_names_the_step_next_in_order_among_those_its_words_name(tmp_path):
    """An output block after the code section's mean: `Variance: 0.132` names a step by
    the abbreviation `var` (var_h or code_var) and the next in order after code_mean is
    code_var (0.1325 exactly, half-up 0.133: wrong); `Normalized std: 1.000000 (should be
    ≈1)` names norm_std_h or code_norm_std, and after code_var it is code_norm_std, the
    unbiased std of the normalised features (1.1547…): wrong, though norm_std_h is 1;
    between them `Normalized 'Hello': tensor([…])` is code_norm, the next step (`norm`
    abbreviates normalized), printed wrong. A print of the input's row (`hello`) does not
    move the order."""
    xs = XS
    mu = sum(xs) / 4
    var = sum((v - mu) ** 2 for v in xs) / 4
    assert var == Fraction(1325, 10000)
    z = [mpmath.mpf((v - mu).numerator) / (v - mu).denominator / mpmath.sqrt(mpmath.mpf(var.numerator) / var.denominator) for v in xs]
    assert f"{float(mpmath.sqrt(sum(t ** 2 for t in z) / 3)):.4f}" == "1.1547"
    article = ("```python\nprint(code_mean)\n```\n\n```\ntensor(0.2500)\n"
               "Original 'Hello' features: tensor([0.1000, 0.3000, -0.2000, 0.8000])\n"
               "Variance: 0.132\nNormalized 'Hello': tensor([-0.4124,  0.1375, -1.2371,  1.5120])\n"
               "Normalized std: 1.000000 (should be ≈1)\n```\n")
    assert [f"{float(t):.4f}" for t in z] == ["-0.4121", "0.1374", "-1.2362", "1.5110"]
    out = check(tmp_path, SECTIONS, article)
    assert at(out, 8) == [("code_var", ["Hello", "0"], "0.132", "wrong")]
    assert [(c[0], c[3]) for c in at(out, 9)] == [("code_norm", "wrong")] * 4
    assert at(out, 10) == [("code_norm_std", ["Hello", "0"], "1.000000", "wrong")]


def test_an_output_line_prints_what_the_code_prints_under_its_label(tmp_path):
    """`print(f"Variance: {variance:.3f}")` in the code, `Variance: 0.132` in the output
    block: the line prints the program's `variance`, the step of that name (0.1325 exactly,
    half-up 0.133: wrong), although `var_h` has the same value and another step rounds to
    0.132 (`sq`, 0.364² = 0.132496). `print(f"Std: {x.std():.4f}")` prints `x_std`
    (0.4203…, torch's unbiased std: wrong), not the step `std` its caption's word names
    (the population std, 0.3640)."""
    spec = hello_spec("printed",
    ("var_h", "var(x, ddof=0)"),
    ("sq", "0.364 ** 2"),
    ("variance", "var(x, ddof=0)"),
    ("x_std", "sqrt(var(x, ddof=1))"),
    ("std", "sqrt(var(x, ddof=0))"))
    assert Fraction("0.364") ** 2 == Fraction("0.132496")
    ss = sum((v - sum(XS) / 4) ** 2 for v in XS)
    assert ss / 4 == Fraction("0.1325")
    assert f"{float(mpmath.sqrt(mpmath.mpf(ss.numerator) / ss.denominator / 3)):.4f}" == "0.4203"
    article = ('```python\nprint(f"Variance: {variance:.3f}")\nprint(f"Std: {x.std():.4f}")\n```\n\n'
               "```\nVariance: 0.132\nStd: 0.3640\n```\n")
    out = check(tmp_path, spec, article)
    assert at(out, 7) == [("variance", ["Hello", "0"], "0.132", "wrong")]
    assert at(out, 8) == [("x_std", ["Hello", "0"], "0.3640", "wrong")]


def test_a_result_after_the_numbers_a_written_step_is_computed_from_is_that_step(tmp_path):
    """`0.364² = 0.1325 ✅` checks the step written as `0.364 ** 2` (0.132496, rounds to
    0.1325), not the variance that is 0.1325 exactly; `The variance is 0.1325.` is the
    variance."""
    assert sum((v - sum(XS) / 4) ** 2 for v in XS) / 4 == Fraction("0.1325")
    assert Fraction("0.364") ** 2 == Fraction("0.132496")
    out = check(tmp_path, HELLO, "The variance is 0.1325.\n\n```python\n0.364² = 0.1325 ✅\n```\n")
    assert at(out, 1) == [("var_h", ["Hello", "0"], "0.1325", "correct")]
    assert ("std_sq", ["0", "0"], "0.1325", "correct") in at(out, 4)


def test_a_literal_after_the_formula_that_defines_its_name_is_a_printed_result():
    """``Weights = softmax(Scaled)`` then ``Weights = [[0.27, …]]``: the literal is the
    printed result; a literal before a formula that updates it (``x = [[1.0]]`` then ``x =
    x + pe``), or a name updated with ``+=``, is program state."""
    from symattn.article.code import literal_results
    from symattn.article.source import Line
    lines = [Line(1, "Weights = softmax(Scaled, dim=-1)", "code"), Line(2, "Weights = [[0.27, 0.27, 0.45],", "code"),
             Line(3, "x = [[1.0, 2.0]]", "code"), Line(4, "x = x + pe", "code"),
             Line(5, "res = [0.5]", "code"), Line(6, "res += [0.1]", "code"), Line(7, "y = [0.1, 0.2]", "code")]
    assert literal_results(lines, {"Weights", "x", "res", "y"}) == {2, 7}

"""Issue 20: numbers in code cells, code comments and notebook printouts, read as a careful
reader reads them: the variable printed, the print() label, the assignment a comment
belongs to.

Each article is small and written in the test; each truth is computed with mpmath or
fractions from the inputs, never by symattn."""

from __future__ import annotations


import mpmath

from test_article_labels import at, check

mpmath.mp.dps = 30

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

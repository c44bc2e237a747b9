"""Binary floats printed in full (``2.3575999999999997``), as a notebook's plain Python prints
them: each is a claim on its entry, judged against the exact value and diagnosed as float64
rounding, never as a digit slip; a long print that is off by more than float rounding is not
excused. Truths: ``fractions`` (exact) and Python's own floats (what the notebook printed).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction as F

import nbformat

from symattn.claims.printed import float_noise, float_print

DATA = [["0.5", "-1.2", "3.3", "0.8", "-0.5"], ["2.0", "-0.7", "1.2", "-3.5", "0.6"]]


def notebook(path, outputs: list[str]) -> None:
    """Data, means and variances printed cell by cell, as a beginners' notebook does."""
    v4 = nbformat.v4

    def cell(code, lines):
        return v4.new_code_cell(code, outputs=[v4.new_output("stream", name="stdout", text="\n".join(lines) + "\n")])
    shown = "[" + ", ".join("[" + ", ".join(r) + "]" for r in DATA) + "]"
    means = [sum(float(x) for x in r) / len(r) for r in DATA]
    cells = [v4.new_markdown_cell("# Variance by hand\n\nTwo data points of five numbers each."),
             cell(f"data = {shown}\nprint('Data:', data)", [f"Data: {shown}"]),
             cell("mean1 = sum(data[0]) / len(data[0])\nmean2 = sum(data[1]) / len(data[1])\n"
                  "print('Mean of data point 1:', mean1)\nprint('Mean of data point 2:', mean2)",
                  [f"Mean of data point 1: {means[0]!r}", f"Mean of data point 2: {means[1]!r}"]),
             cell("var1 = sum((x - mean1) ** 2 for x in data[0]) / len(data[0])\n"
                  "var2 = sum((x - mean2) ** 2 for x in data[1]) / len(data[1])\n"
                  "print('Variance of data point 1:', var1)\nprint('Variance of data point 2:', var2)", outputs),
             cell("normalized1 = [(x - mean1) / math.sqrt(var1 + 1e-5) for x in data[0]]\n"
                  "normalized2 = [(x - mean2) / math.sqrt(var2 + 1e-5) for x in data[1]]\n"
                  "print('Normalized data point 1:', normalized1)\nprint('Normalized data point 2:', normalized2)",
                  [f"Normalized data point {k + 1}: {normalized(k)!r}" for k in range(2)])]
    path.write_text(nbformat.writes(v4.new_notebook(cells=cells)), encoding="utf-8")


def normalized(k: int) -> list:
    """The notebook's own floats: (x - mean) / sqrt(var + 1e-5), in Python."""
    xs = [float(x) for x in DATA[k]]
    mu = sum(xs) / len(xs)
    var = sum((x - mu) ** 2 for x in xs) / len(xs)
    return [(x - mu) / math.sqrt(var + 1e-5) for x in xs]


def exact_var(row) -> F:
    xs = [F(x) for x in row]
    mu = sum(xs) / len(xs)
    return sum((x - mu) ** 2 for x in xs) / len(xs)


def float_var(row) -> float:
    xs = [float(x) for x in row]
    mu = sum(xs) / len(xs)
    return sum((x - mu) ** 2 for x in xs) / len(xs)


def check(path) -> dict:
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_a_float_printed_in_full_is_a_claim_diagnosed_as_float_rounding(tmp_path):
    v1, v2 = float_var(DATA[0]), float_var(DATA[1])
    assert F(repr(v1)) != exact_var(DATA[0])            # the notebook's noise: 2.3575999999999997
    assert F(repr(v2)) == exact_var(DATA[1])            # 3.7016 comes out exact
    path = tmp_path / "var.ipynb"
    notebook(path, [f"Variance of data point 1: {v1!r}", f"Variance of data point 2: {v2!r}"])
    claims = {c["printed"]: c for c in check(path)["claims"]}
    noisy = claims[repr(v1)]
    assert noisy["verdict"] == "wrong" and F(noisy["exact"]) == exact_var(DATA[0])
    assert any("floating-point" in d for d in noisy["diagnosis"]) and \
        not any("digit slip" in d for d in noisy["diagnosis"]), noisy["diagnosis"]
    assert claims[repr(v2)]["verdict"] == "correct"
    out = check(path)                                   # the data printed again under its code is
    for c in out["claims"]:                             # no claim; every other print is float noise
        assert c["verdict"] == "correct" or any("floating-point" in d for d in c["diagnosis"]), c


def test_a_long_print_off_by_more_than_float_rounding_is_not_excused(tmp_path):
    v2 = float_var(DATA[1])
    off = f"{float(exact_var(DATA[0]) + F(1, 10 ** 10)):.16f}"      # 1e-10 off: a real difference
    assert float_print(off) and not float_noise(F(off), exact_var(DATA[0]))
    path = tmp_path / "var.ipynb"
    notebook(path, [f"Variance of data point 1: {off}", f"Variance of data point 2: {v2!r}"])
    out = check(path)
    got = [c for c in out["claims"] if c["printed"] == off]
    unverified = [u for u in out.get("unmatched", []) if u["text"] == off]
    assert len(got) + len(unverified) == 1, (got, unverified)     # judged, or said unverified
    assert all(c["verdict"] == "wrong" and not any("floating-point" in d for d in c["diagnosis"] or ())
               for c in got), got


def test_what_counts_as_a_float_print():
    assert float_print("2.3575999999999997") and float_print("-0.05210195320817495")
    assert float_print("1.3877787807814458e-18")
    assert not float_print("2.3576") and not float_print("0.14328") and not float_print("12345678901234")
    exact = F(23576, 10000)
    assert float_noise(F("2.3575999999999997"), exact)
    assert not float_noise(F("2.3575999999"), exact) and not float_noise(F("1e-18"), F(0))


def test_a_float_print_is_evidence_for_a_chain_of_statistics():
    """A chain of statistics (mean, variance, normalised rows) worked in a notebook counts a
    float printed in full as a print of the exact value it is noise of, not as a miss."""
    from symattn.article.source import Line
    from symattn.infer.chain_numbers import printed_numbers
    noisy, short = printed_numbers([Line(7, "Variance of data point 1: 2.3575999999999997", "output"),
                                    Line(8, "Variance of data point 2: 2.3575999", "output")])
    exact = float(exact_var(DATA[0]))
    assert noisy.prints(exact) and noisy.telling
    assert not short.prints(exact)                     # seven decimals: 2.3575999 is no print of 2.3576

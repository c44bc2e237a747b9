"""LayerNorm worked with the unbiased variance (÷(d−1)) in a post checked with no spec: the
standard LayerNorm divides by d, so every normalised value and every number computed from
them is wrong, unless the text says it divides by d − 1 (its own convention, then right).

Truths: worked out here with ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import pytest

mpmath.mp.dps = 30
R = [[mpmath.mpf(x) for x in r] for r in (["1.2", "0.4", "1.8", "-0.4"], ["0.8", "1.4", "0", "0.6"])]
W = [[mpmath.mpf(x) for x in r] for r in (["0.5", "-1"], ["1", "0.5"], ["0", "1"], ["-0.5", "0"])]
EPS = mpmath.mpf("1e-5")


def layer_norm(row, ddof):
    mu = mpmath.fsum(row) / len(row)
    var = mpmath.fsum((x - mu) ** 2 for x in row) / (len(row) - ddof)
    return [(x - mu) / mpmath.sqrt(var + EPS) for x in row]


def times(a, b):
    return [[mpmath.fsum(x * y for x, y in zip(r, c)) for c in zip(*b)] for r in a]


def bmatrix(m, places=4):
    rows = " \\\\\n".join("  " + " & ".join(f"{float(x):.{places}f}" for x in r) for r in m)
    return f"\\begin{{bmatrix}}\n{rows}\n\\end{{bmatrix}}"


def post(tmp_path, says: str):
    ln = [layer_norm(r, 1) for r in R]                    # what the author computed
    text = (f"# Add & Norm\n\nThe residual stream:\n\n$$R = {bmatrix(R, 1)}$$\n\n"
            f"Each row is normalised over its 4 features with $\\epsilon = 10^{{-5}}${says}:\n\n"
            f"$$\\mathrm{{LN}}(R) =\n{bmatrix(ln)}\n$$\n\nThe weights of the next layer:\n\n"
            f"$$W = {bmatrix(W, 1)}$$\n\nand the product $\\mathrm{{LN}}(R)\\,W$:\n\n$$\n"
            f"{bmatrix(times(ln, W))}\n$$\n")
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return ln, json.loads(r.stdout)["claims"]


def test_the_unbiased_variance_unsaid_is_a_mistake_and_what_follows_is_wrong(tmp_path):
    ln, claims = post(tmp_path, "")
    truth = [layer_norm(r, 0) for r in R]
    wrong = {c["printed"]: mpmath.mpf(c["exact"]) for c in claims if c["verdict"] == "wrong"}
    for i in range(2):
        for j in range(4):
            assert abs(wrong[f"{float(ln[i][j]):.4f}"] - truth[i][j]) < mpmath.mpf("1e-15")
    product = times(truth, W)
    for i in range(2):
        for j in range(2):
            assert abs(wrong[f"{float(times(ln, W)[i][j]):.4f}"] - product[i][j]) < mpmath.mpf("1e-15")
    assert len([c for c in claims if c["verdict"] == "wrong"]) == 8 + 4


@pytest.mark.parametrize("says", [" and the unbiased variance", ", dividing by $n-1$"])
def test_the_unbiased_variance_said_is_the_articles_convention(tmp_path, says):
    _, claims = post(tmp_path, says)
    assert claims and all(c["verdict"] == "correct" for c in claims)
    assert len([c for c in claims if c["step"] != "R" and c["step"] != "W"]) >= 12

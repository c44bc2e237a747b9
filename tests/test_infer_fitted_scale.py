"""A table of scores and the table of ``softmax(QKᵀ/√d_k)`` under it, the text giving no
d_k: the root is read off the prints (two weights of a row: √d_k = (s − t) / ln(w / v)),
then checked like any derivation, entry by entry. The tables number their rows and columns
(``| Token | 0 | 1 | 2 |``, ``| 0 | …``): those numbers are labels, no claims.

Truths: the weights worked out with ``mpmath`` at 30 digits.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import pytest

from symattn.infer.said import fitted_root

mpmath.mp.dps = 30

SCORES = [["-5.3763", "-19.0716", "16.2014", "2.5000"],
          ["28.7324", "-9.4999", "-6.8611", "0.8883"],
          ["6.2911", "-16.4541", "-1.2533", "9.2225"],
          ["0.9326", "-1.4808", "-2.6664", "3.2732"]]


def weights(d_k: int):
    out = []
    for row in SCORES:
        e = [mpmath.exp(mpmath.mpf(s) / mpmath.sqrt(d_k)) for s in row]
        out.append([x / mpmath.fsum(e) for x in e])
    return out


def table(rows) -> str:
    head = "| Token | " + " | ".join(str(j) for j in range(len(rows[0]))) + " |\n"
    rule = "|---" * (len(rows[0]) + 1) + "|\n"
    return head + rule + "".join(f"| {i} | " + " | ".join(r) + " |\n" for i, r in enumerate(rows))


def article(printed) -> str:
    return ("### Q @ K^T\n\n" + table(SCORES) + "\nWithout scaling the dot products grow with $d_k$.\n\n"
            "### Attention Weights = $\\text{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)$\n\n"
            + table(printed))


def test_the_root_is_read_off_the_prints_and_each_weight_judged(tmp_path):
    w = weights(16)
    printed = [[f"{float(x):.4f}" for x in row] for row in w]
    assert printed[1][0] == "0.9988"
    assert printed[2][3] == "0.6431"
    printed[2][3] = "0.6413"                                   # two digits swapped
    path = tmp_path / "weights.md"
    path.write_text(article(printed), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    steps = [s["expr"] for e in data["inferred"] for s in e["steps"]]
    assert any("sqrt(16)" in s and s.startswith("softmax(") for s in steps)
    wrong = [c for c in data["claims"] if c["verdict"] in ("wrong", "carried")]
    assert [c["printed"] for c in wrong] == ["0.6413"]
    assert abs(mpmath.mpf(wrong[0]["exact"]) - w[2][3]) < mpmath.mpf("1e-15")
    lines = path.read_text(encoding="utf-8").split("\n")
    for c in data["claims"]:                                   # none on a header, none an index
        cell = lines[c["line"] - 1][c["column"] - 1:].split("|")[0].strip()
        assert "." in cell and not lines[c["line"] - 1].startswith("| Token")


def _printed(floats):
    from symattn.article.cells import Printed
    values = tuple(tuple(float(v) for v in row) for row in floats)
    return Printed("", 1, values, tuple(tuple(str(v) for v in row) for row in values))


@pytest.mark.parametrize("d_k", [4, 16, 64])
def test_fitted_root_reads_d_k_from_rounded_weights(d_k):
    import numpy as np
    from symattn.infer.blocks import Block
    w = weights(d_k)
    half = np.full((4, 4), 5e-5)

    def block(values, index):
        floats = np.array([[float(v) for v in row] for row in values])
        return Block(f"B{index}", _printed(floats), index, "x", floats, half)
    got = fitted_root(block([[round(float(x), 4) for x in row] for row in w], 2), block(SCORES, 1))
    assert got == str(d_k)


def test_no_root_from_weights_that_are_no_softmax_of_the_scores():
    import numpy as np
    from symattn.infer.blocks import Block
    flat = np.full((4, 4), 0.25)
    half = np.full((4, 4), 5e-5)
    scores = np.array([[float(v) for v in r] for r in SCORES])
    w = Block("W", _printed(flat), 2, "x", flat, half)
    s = Block("S", _printed(scores), 1, "x", scores, half)
    assert fitted_root(w, s) is None


def test_no_root_from_weights_that_fall_as_the_scores_rise():
    import numpy as np
    from symattn.infer.blocks import Block
    flipped = []                                             # softmax(-S / 4): -4 from every pair
    for row in SCORES:
        e = [mpmath.exp(-mpmath.mpf(x) / 4) for x in row]
        flipped.append([round(float(x / mpmath.fsum(e)), 4) for x in e])
    flipped = np.array(flipped)
    scores = np.array([[float(v) for v in r] for r in SCORES])
    half = np.full((4, 4), 5e-5)
    assert fitted_root(Block("W", _printed(flipped), 2, "x", flipped, half),
                       Block("S", _printed(scores), 1, "x", scores, half)) is None

"""Inference of a concatenation: head outputs printed one after another, then side by side
(wrapped over the lines of an aligned display), then times W_O; a head output restated
from an earlier example is that example's block; an example set in a pause of another is
its own; weights never printed whole, worked row by row in the prose, are a step. Truths
are computed here with fractions and mpmath, not by symattn."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction as F

import mpmath

Z = [["0.893", "0.930", "0.818"], ["1.020", "0.710", "0.640"], ["0.640", "1.210", "0.580"]]


def w_o():
    w = [[F(0)] * 3 for _ in range(9)]
    for i, s in enumerate(("0.40", "0.35", "0.25")):
        for j in range(3):
            w[3 * i + j][j] = F(s)
    return w


def final():
    c = [F(x) for z in Z for x in z]
    return [sum(c[i] * w_o()[i][j] for i in range(9)) for j in range(3)]


def bmatrix(rows) -> str:
    """Fractions printed with two decimals (exact: the weights have two)."""
    cells = [" & ".join(f"{Decimal(x.numerator) / x.denominator:.2f}" for x in r) for r in rows]
    return "\\begin{bmatrix}\n" + " \\\\\n".join(cells) + "\n\\end{bmatrix}"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          timeout=300)


def heads_post(printed_final: list[str], before: str = "", slip: dict | None = None) -> str:
    """``slip``: entry of the concatenation -> what it prints instead."""
    flat = [x for z in Z for x in z]
    flat = [(slip or {}).get(k, x) for k, x in enumerate(flat)]
    sep = ",\\ "                           # LaTeX's thin space between entries
    return "\n".join([before,
        "Each head gives its output for the token:", "",
        *[f"z^{{({k + 1})}} = [{', '.join(z)}]\n" for k, z in enumerate(Z)],
        "Concatenated:", "", "\\begin{aligned}",
        "z_{concat} = [&" + sep.join(flat[:5]) + ",\\\\",
        "&" + sep.join(flat[5:]) + "]", "\\end{aligned}", "",
        "The output projection:", "", "W_O =", bmatrix(w_o()), "",
        f"z_{{final}} = z_{{concat}} W_O = [{', '.join(printed_final)}]", ""])


def test_heads_printed_one_after_another_are_concatenated_then_projected(tmp_path):
    assert final() == [F("0.8742"), F("0.923"), F("0.6962")]
    path = tmp_path / "heads.md"
    text = heads_post(["0.8742", "0.9230", "0.6962"], slip={7: "1.201"})     # 1.210 in head 3
    path.write_text(text, encoding="utf-8")
    at = {line.split("=")[0].strip(): k + 1 for k, line in enumerate(text.splitlines()) if "=" in line}
    r = cli("check", "--json", str(path))
    assert r.returncode == 1, r.stderr
    d = json.loads(r.stdout)
    exprs = [s["expr"] for ex in d["inferred"] for s in ex["steps"]]
    assert any(e.startswith("concat(") and e.count(",") == 2 for e in exprs), exprs
    flat = [x for z in Z for x in z]
    wrapped = sorted((c for c in d["claims"] if c["line"] in (at["z_{concat}"], at["z_{concat}"] + 1)),
                     key=lambda c: (c["line"], c["column"]))
    assert [c["printed"] for c in wrapped] == flat[:7] + ["1.201", flat[8]]
    for c, x in zip(wrapped, flat):
        assert F(c["exact"]) == F(x)                   # the heads' own numbers side by side
        assert c["verdict"] == ("wrong" if c["printed"] == "1.201" else "correct")


def test_a_head_output_restated_from_an_earlier_example_is_that_head(tmp_path):
    """Example 1 computes ``h = x W`` (= Z[0], exactly); the multi-head section restates it as
    head 1 beside heads 2 and 3: the concatenation takes ``h`` itself."""
    x, w = ["1", "1"], [["0.5", "0.5", "0.5"], ["0.393", "0.430", "0.318"]]
    h = [sum(F(x[k]) * F(w[k][j]) for k in range(2)) for j in range(3)]
    assert h == [F(s) for s in Z[0]]
    first = "\n".join(["# One token", "", f"x = [{', '.join(x)}]", "", "W =",
                       "\\begin{bmatrix}\n0.5 & 0.5 & 0.5 \\\\\n0.393 & 0.430 & 0.318\n\\end{bmatrix}", "",
                       f"h = x W = [{', '.join(Z[0])}]", "", "# Several heads", ""])
    path = tmp_path / "two.md"
    text = heads_post(["0.8742", "0.9230", "0.6962"], before=first)
    path.write_text(text, encoding="utf-8")
    at = {line.split("=")[0].strip(): k + 1 for k, line in enumerate(text.splitlines()) if "=" in line}
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    steps = {s["name"]: s["expr"] for ex in d["inferred"] for s in ex["steps"]}
    assert steps["h"] == "x @ W" and steps["z_concat"].startswith("concat(h, "), steps
    assert not any(c["verdict"] == "wrong" for c in d["claims"])
    finals = [c for c in d["claims"] if c["line"] == at["z_{final}"]]
    assert sorted(c["printed"] for c in finals) == ["0.6962", "0.8742", "0.9230"]
    for c in finals:                                   # z_concat W_O, with fractions
        assert F(c["exact"]) in final() and c["verdict"] == "correct"


def test_an_example_set_in_a_pause_of_another_is_its_own():
    """spec_out's grouping: blocks by reading index; an example whose blocks lie between two
    consecutive blocks of another, with two inputs of its own, is not merged with it; one
    on a single input (a softmax worked out aside) is; blocks that alternate are."""
    from types import SimpleNamespace as B
    from symattn.infer.spec_out import _interleaved
    outer = [B(index=i) for i in (0, 1, 2, 9, 10)]
    inner = [B(index=i) for i in (3, 4, 5, 6)]
    assert not _interleaved(outer, inner, derived={5: 0, 6: 0}, used={3, 4, 5})
    assert _interleaved(outer, inner, derived={4: 0, 5: 0, 6: 0}, used={3, 4, 5})   # one input
    alternating = [B(index=i) for i in (1, 5, 11)]
    assert _interleaved(outer, alternating, derived={}, used={1, 5})
    assert not _interleaved(outer, [B(index=i) for i in (11, 12)], derived={}, used={11})


MASKED_POST = """# Attention over three vectors

The three vectors, one a row:

$$X = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\\\ 1 & 1 \\end{bmatrix}$$

Each row's scores against every row, $S = X X^\\top$:

$$S = \\begin{bmatrix} 1 & 0 & 1 \\\\ 0 & 1 & 1 \\\\ 1 & 1 & 2 \\end{bmatrix}$$

Softmax of each row gives the weights:

$$A = \\begin{bmatrix} 0.422 & 0.155 & 0.422 \\\\ 0.155 & 0.422 & 0.422 \\\\ 0.212 & 0.212 & 0.576 \\end{bmatrix}$$

With a mask that hides the later vectors, the scores become:

$$S_{masked} = \\begin{bmatrix} 1 & -\\infty & -\\infty \\\\ 0 & 1 & -\\infty \\\\ 1 & 1 & 2 \\end{bmatrix}$$

Row 2 by hand: the scores are [0, 1, −∞], their exponentials [1, 2.718, 0], the sum 3.718, so the weights are [0.269, 0.731, 0]. Row 1 has the weights [1, 0, 0], and row 3 sees everything, so it keeps [0.212, 0.212, 0.576].

The mixed vectors: the first is [1, 0], the second 0.269 × [1, 0] + 0.731 × [0, 1] = [0.269, 0.731], the third [0.788, 0.788].
"""


def _softmax(row):
    e = [mpmath.e ** x if x is not None else mpmath.mpf(0) for x in row]
    return [x / sum(e) for x in e]


def test_masked_weights_worked_row_by_row_in_the_prose_are_a_step(tmp_path):
    """The masked scores' weights are never printed whole: row 2 worked in a sentence, row 1
    said, row 3 restated from the unmasked weights (no block of its own); then each row
    mixed with X. Both are steps, each printed number checked against mpmath."""
    mpmath.mp.dps = 30
    x = [[1, 0], [0, 1], [1, 1]]
    s = [[sum(a * b for a, b in zip(r, q)) for q in x] for r in x]
    weights = [_softmax([v if j <= i else None for j, v in enumerate(r)]) for i, r in enumerate(s)]
    mixed = [[sum(weights[i][k] * x[k][j] for k in range(3)) for j in range(2)] for i in range(3)]
    path = tmp_path / "masked.md"
    path.write_text(MASKED_POST, encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    steps = {st["expr"] for ex in d["inferred"] for st in ex["steps"]}
    assert any(e.startswith("softmax(S_masked") for e in steps) and any(e.endswith("@ X") for e in steps), steps
    lines = MASKED_POST.splitlines()
    by_hand = next(k + 1 for k, t in enumerate(lines) if t.startswith("Row 2 by hand"))
    mix = next(k + 1 for k, t in enumerate(lines) if t.startswith("The mixed vectors"))
    for line, truth in ((by_hand, weights), (mix, mixed)):
        claims = [c for c in d["claims"] if c["line"] == line and c["printed"] not in ("3.718", "2.718")]
        exact = sorted(mpmath.mpf(c["exact"]) for c in claims if c["exact"] not in ("-inf", None))
        values = [v for row in truth for v in row]
        assert len(claims) >= 7 if line == by_hand else len(claims) >= 4
        assert all(any(abs(e - v) < mpmath.mpf(10) ** -20 for v in values) for e in exact)
        assert all(c["verdict"] == "correct" for c in claims)

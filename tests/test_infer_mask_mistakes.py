"""The mask's mistakes in a post checked with no spec: masked scores printed with 0 where
the causal mask puts −∞ (``masked_fill(…, 0)``), and scores masked unscaled after the text
says to divide by √d_k. The printed 0s and every weight and output they move are wrong;
nothing else is.

Truths: worked out here with ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
from decimal import ROUND_HALF_UP, Decimal

mpmath.mp.dps = 30
R2 = mpmath.sqrt(2)


def check(tmp_path, text):
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["claims"]


def softmax(row):
    e = [mpmath.exp(x) for x in row]
    return [x / mpmath.fsum(e) for x in e]


def fmt(x, places=4):
    return f"{float(x):.{places}f}"


def matrix(rows, places=4):
    return "[" + ",\n ".join("[" + ", ".join(fmt(x, places) for x in r) + "]" for r in rows) + "]"


Q = [[1, 0], [0, 1], [1, 1]]
K = [[0.5, 0.25], [1, 0.5], [0.25, 1]]
S = [[mpmath.fsum(mpmath.mpf(a) * mpmath.mpf(b) for a, b in zip(q, k)) for k in K] for q in Q]   # Q Kᵀ


def test_scores_masked_with_zeros_are_wrong_and_so_is_what_follows(tmp_path):
    scaled = [[x / R2 for x in r] for r in S]
    assert all(x != 0 for r in scaled for x in r)
    zeroed = [[x if j <= i else mpmath.mpf(0) for j, x in enumerate(r)] for i, r in enumerate(scaled)]
    wrong_w = [softmax(r) for r in zeroed]
    true_w = [softmax(r[:i + 1]) + [mpmath.mpf(0)] * (2 - i) for i, r in enumerate(scaled)]
    post = (f"# Causal attention\n\n```python\nQ = {Q}\nK = {K}\n```\n\n"
            "The scores, scaled by 1/√d_k with d_k = 2:\n\n```text\n" + matrix(scaled) + "\n```\n\n"
            "Next the causal mask: token i must not see the tokens after it. I zero out everything "
            "above the diagonal:\n\n```text\n" + matrix(zeroed) + "\n```\n\n"
            "and apply a softmax to each row:\n\n```text\n" + matrix(wrong_w) + "\n```\n")
    claims = check(tmp_path, post)
    bad = [c for c in claims if c["verdict"] in ("wrong", "carried")]
    # the three 0s where −∞ belongs, and the six weights of the two masked rows
    zeros = [c for c in claims if c["printed"] in ("0.0000",) and c["verdict"] == "wrong"]
    assert len(zeros) == 3
    wrong_weights = [c for c in claims if c["verdict"] == "wrong" and c["printed"] != "0.0000"]
    expected = {fmt(wrong_w[i][j]) for i in (0, 1) for j in range(3)}
    assert {c["printed"] for c in wrong_weights} == expected
    for c in wrong_weights:                 # judged against the truly masked weights
        i = next(i for i in (0, 1) if c["printed"] in {fmt(x) for x in wrong_w[i]})
        j = [fmt(x) for x in wrong_w[i]].index(c["printed"])
        assert abs(mpmath.mpf(c["exact"]) - true_w[i][j]) < mpmath.mpf("1e-12")
    assert len(bad) == 9


def test_scores_masked_unscaled_after_the_text_says_divide_by_root_two(tmp_path):
    masked = [[x if j <= i else -mpmath.inf for j, x in enumerate(r)] for i, r in enumerate(S)]
    printed_w = [softmax(r[:i + 1]) + [mpmath.mpf(0)] * (2 - i) for i, r in enumerate(S)]
    true_w = [softmax([x / R2 for x in r[:i + 1]]) + [mpmath.mpf(0)] * (2 - i) for i, r in enumerate(S)]
    shown = "\n".join("| " + "  ".join("-inf" if x == -mpmath.inf else f"{float(x):g}" for x in r) + " |"
                      for r in masked)
    bars = lambda m: "\n".join("| " + "  ".join(f"{float(x):g}" for x in r) + " |" for r in m)
    post = (f"# Masked attention\n\n```\nQ =\n{bars(Q)}\n\nK =\n{bars(K)}\n```\n\n"
            f"S = Q Kᵀ:\n\n```\nS =\n{bars(S)}\n```\n\n"
            "Next we divide by √d_k = √2 and set every entry above the diagonal to -inf:\n\n"
            f"```\nmasked =\n{shown}\n```\n\nThe softmax of each row:\n\n```\nA =\n"
            + "\n".join("[ " + "  ".join(fmt(x) for x in r) + " ]" for r in printed_w) + "\n```\n")
    claims = check(tmp_path, post)
    bad = [c for c in claims if c["verdict"] in ("wrong", "carried")]
    # every unscaled score its print does not round (1 for 0.707 does, to no decimals), and
    # every weight of rows 1 and 2 (row 0 is 1.0 either way)
    unscaled = [(i, j) for i, r in enumerate(S) for j, x in enumerate(r) if j <= i
                and Decimal(f"{float(x):g}") != Decimal(mpmath.nstr(x / R2, 30)).quantize(
                    Decimal(1).scaleb(Decimal(f"{float(x):g}").as_tuple().exponent), rounding=ROUND_HALF_UP)]
    weights = [(i, j) for i in (1, 2) for j in range(i + 1)]
    assert len(bad) == len(unscaled) + len(weights)
    got = {c["printed"]: mpmath.mpf(c["exact"]) for c in bad}
    for i, j in weights:
        assert abs(got[fmt(printed_w[i][j])] - true_w[i][j]) < mpmath.mpf("1e-12")


def test_scaled_masked_scores_after_the_scores_are_derived_from_them(tmp_path):
    """S printed, then 'S/√2, masked' rounded to two decimals: the step is S / sqrt(2) +
    causal_mask(3), so the weights after it are judged on the exact scaled scores (carried
    from the two-decimal print where that moves them)."""
    scaled = [[x / R2 for x in r] for r in S]
    table = lambda name, m, cell: (f"| {name} | a | b | c |\n|---|---|---|---|\n" + "".join(
        f"| {t} | " + " | ".join(cell(i, j, x) for j, x in enumerate(r)) + " |\n"
        for i, (t, r) in enumerate(zip("abc", m))))
    shown = table("S/√2, masked", scaled, lambda i, j, x: "−∞" if j > i else f"{float(x):.2f}")
    from_print = [[mpmath.mpf(f"{float(x):.2f}") for x in r[:i + 1]] for i, r in enumerate(scaled)]
    printed_w = [softmax(r) + [mpmath.mpf(0)] * (2 - i) for i, r in enumerate(from_print)]
    true_w = [softmax(r[:i + 1]) + [mpmath.mpf(0)] * (2 - i) for i, r in enumerate(scaled)]
    pair = lambda name, m: (f"| {name} | x | y |\n|---|---|---|\n"
                            + "".join(f"| {t} | {r[0]:g} | {r[1]:g} |\n" for t, r in zip("abc", m)))
    post = (f"# Masked\n\nThe queries and keys:\n\n{pair('Q', Q)}\n{pair('K', K)}\n"
            f"The scores S = Q Kᵀ:\n\n{table('S', S, lambda i, j, x: f'{float(x):g}')}\n"
            f"We divide by √2 and set the future to −∞:\n\n{shown}\nThe softmax of each row:\n\n"
            + table("A", printed_w, lambda i, j, x: f"{float(x):.3f}"))
    claims = check(tmp_path, post)
    weights = [c for c in claims if c["step"] == "A"]
    assert len(weights) == 9
    for c in weights:
        i, j = ("abc".index(x) if x in "abc" else int(x) for x in c["at"])
        assert abs(mpmath.mpf(c["exact"]) - true_w[i][j]) < mpmath.mpf("1e-15")

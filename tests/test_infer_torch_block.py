"""A decoder block printed as PyTorch tensors, checked with no spec: scores printed only
masked with ``-inf`` (``masked_fill(mask, float('-inf'))``, the mask never printed) are
``Q Kᵀ/√d_k`` of the printed Q and K, so a wrong finite entry is flagged and the weights
are judged from the exact scores; an FFN without biases (``F.relu(x @ W_1) @ W_2``) is
the declared FFN with its biases absent.

Truths: worked out here with ``fractions`` and ``mpmath`` at 30 digits, never by symattn.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
from conftest import check_post

mpmath.mp.dps = 30


check = check_post


def tensor(rows, places=4):
    cell = lambda x: "-inf" if x is None else f"{float(x):.{places}f}"
    return "tensor([" + ",\n        ".join("[" + ", ".join(cell(x) for x in r) + "]" for r in rows) + "])"


def matmul(a, b):
    return [[sum(Fraction(x) * Fraction(y) for x, y in zip(r, c)) for c in zip(*b)] for r in a]


X = [[1, 0, 1], [0, 2, 1], [1, 1, 0]]
W_Q = [[1, 0, 1], [0, 1, 0], [1, 0, 0]]
W_K = [[0, 1, 0], [1, 0, 1], [0, 1, 1]]
Q, K = matmul(X, W_Q), matmul(X, W_K)
S = [[mpmath.mpf(x.numerator) / x.denominator / mpmath.sqrt(3) for x in r] for r in matmul(Q, list(map(list, zip(*K))))]


def masked(scores):
    return [[x if j <= i else None for j, x in enumerate(r)] for i, r in enumerate(scores)]


def post(masked_rows, weights):
    return ("# One head, causal\n\n$$X = \\begin{bmatrix} 1 & 0 & 1 \\\\ 0 & 2 & 1 \\\\ 1 & 1 & 0 \\end{bmatrix},"
            " \\quad W_Q = \\begin{bmatrix} 1 & 0 & 1 \\\\ 0 & 1 & 0 \\\\ 1 & 0 & 0 \\end{bmatrix}, \\quad"
            " W_K = \\begin{bmatrix} 0 & 1 & 0 \\\\ 1 & 0 & 1 \\\\ 0 & 1 & 1 \\end{bmatrix}$$\n\n"
            "```python\nQ, K = X @ W_Q, X @ W_K\nprint(Q); print(K)\n```\n\n```\n"
            f"{tensor(Q)}\n{tensor(K)}\n```\n\n"
            "```python\nmasked = (Q @ K.T / 3 ** 0.5).masked_fill(mask, float('-inf'))\n"
            "print(masked); print(masked.softmax(-1))\n```\n\n```\n"
            f"{tensor(masked_rows)}\n{tensor(weights)}\n```\n")


def softmax_causal(scores):
    out = []
    for i, r in enumerate(scores):
        e = [mpmath.exp(x) for x in r[:i + 1]]
        out.append([x / mpmath.fsum(e) for x in e] + [mpmath.mpf(0)] * (len(r) - i - 1))
    return out


def test_scores_printed_only_masked_are_the_scaled_product_of_q_and_k(tmp_path):
    shown = masked(S)
    shown[2][1] = S[2][1] + mpmath.mpf("0.01")          # a slip in one finite score
    weights = softmax_causal(S)                         # the weights from the right scores
    out = check(tmp_path, post(shown, weights))
    steps = {d["name"]: d["expr"] for e in out["inferred"] for d in e["steps"]}
    assert steps["masked_scores"] == "Q @ K.T / sqrt(3)" and "causal_mask(3)" in steps["masked"]
    claims = {(c["line"], c["printed"]): c for c in out["claims"]}
    wrong = [c for c in out["claims"] if c["verdict"] in ("wrong", "carried")]
    slip = f"{float(shown[2][1]):.4f}"
    assert [c["printed"] for c in wrong] == [slip]
    assert abs(float(wrong[0]["exact"]) - float(S[2][1])) < 1e-12
    right = f"{float(S[1][0]):.4f}"                     # a finite score, judged from Q and K
    assert any(c["printed"] == right and c["verdict"] == "correct"
               and abs(float(c["exact"]) - float(S[1][0])) < 1e-12 for c in claims.values())
    w = f"{float(weights[2][2]):.4f}"
    assert any(c["printed"] == w and c["verdict"] == "correct"
               and abs(float(c["exact"]) - float(weights[2][2])) < 1e-12 for c in claims.values())


def test_scores_printed_masked_stay_an_input_when_no_pair_reproduces_them(tmp_path):
    other = [[mpmath.mpf("0.1234") * (i + 2 * j + 1) for j in range(3)] for i in range(3)]
    out = check(tmp_path, post(masked(other), softmax_causal(other)))
    assert not any("sqrt(3)" in json.dumps(e) for e in out["inferred"])
    assert not [c for c in out["claims"] if c["verdict"] in ("wrong", "carried")]


N = [[Fraction(1069, 1000), Fraction(-13363, 10000), Fraction(2673, 10000)],
     [Fraction(-14142, 10000), Fraction(7071, 10000), Fraction(7071, 10000)]]
W_1 = [[1, -1, 0], [0, 1, -1], [-1, 0, 1]]
W_2 = [[1, 0, 1], [0, 1, 0], [1, 1, 0]]


def ffn_post(out_rows):
    b = lambda m: " \\\\ ".join(" & ".join(str(x) for x in r) for r in m)
    return ("# The feed-forward network\n\nThe normalised rows:\n\n```\n" + tensor(N) + "\n```\n\n"
            f"It has no biases: $W_1 = \\begin{{bmatrix}} {b(W_1)} \\end{{bmatrix}}$, ReLU, "
            f"$W_2 = \\begin{{bmatrix}} {b(W_2)} \\end{{bmatrix}}$.\n\n"
            "```python\nffn = F.relu(normed @ W_1) @ W_2\nprint(ffn)\n```\n\n```\n" + tensor(out_rows) + "\n```\n")


def test_an_ffn_without_biases_is_the_declared_ffn_with_its_biases_absent(tmp_path):
    hidden = [[max(x, Fraction(0)) for x in r] for r in matmul(N, W_1)]
    truth = matmul(hidden, W_2)
    shown = [list(r) for r in truth]
    shown[0][1] = truth[0][1] + Fraction(1, 1000)       # one wrong entry
    out = check(tmp_path, ffn_post(shown))
    steps = [d["expr"] for e in out["inferred"] for d in e["steps"]]
    assert any(x.startswith("ffn(") and x.endswith(", W_1, 0, W_2, 0)") for x in steps), steps
    wrong = [c for c in out["claims"] if c["verdict"] in ("wrong", "carried")]
    assert [c["printed"] for c in wrong] == [f"{float(shown[0][1]):.4f}"]
    assert Fraction(wrong[0]["exact"]) == truth[0][1]
    ok = [c for c in out["claims"] if c["verdict"] == "correct"]
    assert len(ok) == 5 and all(Fraction(c["exact"]) in {x for r in truth for x in r} for c in ok)

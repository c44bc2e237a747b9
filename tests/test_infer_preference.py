"""Which derivation the inference prefers when two reproduce a block (`symattn check ARTICLE`).

A product whose weights are printed with one decimal (0.2, 0.1) reproduces almost anything
within their rounding; the order of the factors that reproduces the print within its own
last digit is the one worked. And a one-hot row times a matrix selects one of its rows: that
derives nothing. Of two products that coincide (``K Kᵀ`` and ``Q Kᵀ``), the one whose
operands the text names is worked. Truths: ``fractions``, never symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from fractions import Fraction as F

from conftest import check_post

A = [[F("0.0498"), F("0.0502")], [F("0.0498"), F("0.0502")]]      # "both rows similar"
W = [[F("0.2"), F("0.1")], [F("0.1"), F("0.2")]]


def times(a, b):
    return [[sum(x * y for x, y in zip(r, c)) for c in zip(*b)] for r in a]


def code(name, m) -> str:
    rows = [f"[{', '.join(str(float(x)) for x in r)}]" for r in m]
    return f"{name} = {rows[0]}\n" + "".join(" " * (len(name) + 3) + r + "\n" for r in rows[1:])


def check(tmp_path, text):
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    spec = tmp_path / "spec.toml"
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path), "-o", str(spec)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["claims"], tomllib.loads(spec.read_text(encoding="utf-8"))


def test_the_product_that_prints_within_its_own_digits_is_the_one_worked(tmp_path):
    h = times(A, W)
    assert times(W, A) != h                                  # the other order is another matrix
    text = ("# FFN by hand\n\n**Weights:**\n```\n" + code("W1", W) + "```\n\n"   # W1 printed first
            "**Attention output:**\n```\n" + code("attn_output", A) + "```\n\n"
            "**FFN_hidden = attn_output × W1**\n```\n" + code("attn_output", A) + "\n" + code("W1", W)
            + "\n" + code("FFN_hidden", [[f"{float(x):.5f}" for x in r] for r in h]) + "```\n")
    claims, spec = check(tmp_path, text)
    assert [s["expr"] for s in spec["steps"]] == ["attn_output @ W1"], spec["steps"]
    got = [c for c in claims if c["step"] == "FFN_hidden"]
    assert len(got) == 4 and all(c["verdict"] == "correct" for c in got), got
    assert sorted(F(c["exact"]) for c in got) == sorted(x for r in h for x in r)


def test_a_one_hot_row_times_a_matrix_derives_nothing(tmp_path):
    text = ("# Attention by hand\n\n**Token embeddings:**\n- A = [1, 0]\n- B = [0, 1]\n\n"
            "**Weights:**\n```\n" + code("W1", W) + "```\n\n"
            "**Attention output (position 1):**\n```\nout = [0.0498, 0.0502]\n```\n\n"
            "**Full attention output:**\n```\n" + code("attn_output", A) + "```\n\n"
            "**FFN_hidden = attn_output × W1**\n```\n"
            + code("FFN_hidden", [[f"{float(x):.5f}" for x in r] for r in times(A, W)]) + "```\n")
    _, spec = check(tmp_path, text)
    exprs = {s["name"]: s["expr"] for s in spec["steps"]}
    assert "out" not in exprs, exprs                       # not [0, 1] @ attn_output
    assert exprs.get("FFN_hidden") == "attn_output @ W1", exprs


def test_per_token_vectors_with_the_same_numbers_are_each_a_block(tmp_path):
    """``k2 = [1, 1, 0]`` after ``k1 = [1, 1, 0]`` is another token's key, not a reprint; a
    dot product ``q1 . k1 = [1, 0, 0] . [1, 1, 0]`` prints q1 and k1 again (its left side
    names no vector)."""
    from symattn.article.read import read_article
    from symattn.infer.blocks import blocks
    text = ("# Scores\n\n**Word 1:**\n- `q1 = [1, 0, 0]`\n- `k1 = [1, 1, 0]`\n\n**Word 2:**\n"
            "- `q2 = [0, 1, 0]`\n- `k2 = [1, 1, 0]`\n\n"
            "- `q1 . k1 = [1, 0, 0] . [1, 1, 0] = 1*1 + 0*1 + 0*0 = 1`\n")
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    got = [(b.name, b.line) for b in blocks([(str(path), read_article(str(path)))])]
    assert got == [("q1", 4), ("k1", 5), ("q2", 8), ("k2", 9)], got


Q = [["1.0", "0.0", "1.0", "0.0"], ["0.0", "1.0", "0.0", "1.0"], ["1.0", "1.0", "0.0", "0.0"]]
K = [["1.0", "0.0", "1.0", "0.0"], ["0.0", "1.0", "0.0", "1.0"], ["0.5", "0.5", "0.5", "0.5"]]


def test_scores_with_notes_after_their_rows_are_the_product_the_text_names(tmp_path):
    """Q Kᵀ and K Kᵀ coincide here; the text says ``Q × Kᵀ``. The rows' notes
    (``cat→cat=2``) are not read as entries."""
    truth = [[sum(F(a) * F(b) for a, b in zip(q, k)) for k in K] for q in Q]
    assert truth == [[sum(F(a) * F(b) for a, b in zip(x, k)) for k in K] for x in K]   # the coincidence
    rows = [f"{'  = [' if i == 0 else '     '}[{', '.join(f'{float(x):.1f}' for x in r)}]"
            f"{']' if i == 2 else ','}     note{i}→cat=2" for i, r in enumerate(truth)]
    rows[2] = rows[2].replace("1.0]]", "1.5]]")                 # [2, 2] slipped: 1.0 printed 1.5

    def lists(name, m):
        return [f"{name} = [[{', '.join(m[0])}],    ← first"] + \
            [f"     [{', '.join(r)}]{']' if i == len(m) - 1 else ','}" for i, r in enumerate(m[1:], 1)]
    text = "\n".join(["# Scores of three tokens", "", "```", *lists("Q", Q), "", *lists("K", K), "",
                      "STEP 1: Q × Kᵀ (attention scores)", *rows, "```", ""])
    out = check_post(tmp_path, text)
    steps = [s for ex in out["inferred"] for s in ex["steps"]]
    assert [s["expr"] for s in steps] == ["Q @ K.T"], steps
    got = [c for c in out["claims"] if "." in c["printed"]]
    assert [F(c["exact"]) for c in got] == [x for r in truth for x in r]
    assert [c["verdict"] for c in got] == ["correct"] * 8 + ["wrong"]


SCALED_ONCE = """Steps (d_k = 2, a softmax per row):

    Q = [[1, 0], [0, 1], [1, 1]]
    K = [[1, 0], [0, 1], [1, 1]]

    S = QK^T = [[1, 0, 1],
                [0, 1, 1],
                [1, 1, 2]]

    # scaled by √2
    S_scaled ≈ [[0.71, 0, 0.71],
                [0, 0.71, 0.71],
                [0.71, 0.71, 1.41]]

    # softmax of each row; row 1: exp([0.71, 0, 0.71]) = [2.03, 1.00, 2.03]
    # sum = 5.06 → [0.40, 0.20, 0.40]

    A ≈ [[0.40, 0.20, 0.40],
         [0.20, 0.40, 0.40],
         [0.28, 0.28, 0.44]]
"""


def test_entries_reproduced_within_their_own_digits_outweigh_carried_ones(tmp_path):
    """``A`` is the softmax of the scaled scores, its last row slipped (0.28, 0.28, 0.44 for
    0.248, 0.248, 0.503). The scores scaled twice reproduce seven of its nine entries, but
    only within what the scaled scores' rounding may carry; the softmax of the scaled
    scores reproduces six within their own last digit: that one is worked, and the slip is
    flagged, not the right rows."""
    import mpmath
    d = check_post(tmp_path, SCALED_ONCE)
    lines = SCALED_ONCE.splitlines()
    first = 1 + next(i for i, t in enumerate(lines) if t.strip().startswith("A ≈"))
    s = [[1, 0, 1], [0, 1, 1], [1, 1, 2]]
    for k, row in enumerate(s):
        e = [mpmath.exp(mpmath.mpf(x) / mpmath.sqrt(2)) for x in row]
        truth = [x / mpmath.fsum(e) for x in e]
        got = [c for c in d["claims"] if c["line"] == first + k]
        assert len(got) == 3
        for c, t in zip(got, truth):
            assert abs(mpmath.mpf(c["exact"]) - t) < mpmath.mpf("1e-12")
            assert c["verdict"] == ("wrong" if k == 2 else "correct"), (k, c)

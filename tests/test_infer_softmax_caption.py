"""A block the text captions as a softmax's output, checked with no spec:

- ``Instead of: … We do:`` two score matrices side by side, an arrow between them on one
  line (``[…]  →   […]``): both are read, and the right one is the left one masked;
- ``After softmax:`` over a block whose rows each sum to 1: the softmax of the block just
  before, whatever its numbers (rows left unnormalised, scores copied: flagged);
- not when the softmax is a call of its own (``softmax([0, 1]) → [0.27, 0.73]``) or the
  block is no softmax's output (a row summing to 1.3).

Truths: mpmath at 30 digits, never symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath

from conftest import causal_softmax

mpmath.mp.dps = 30

SCORES = [["0.30", "0.33", "0.37"], ["0.26", "0.37", "0.37"], ["0.25", "0.36", "0.39"]]


def check(tmp_path, text):
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else {}), r.stderr


def post(weights):
    masked = [[v if j <= i else "-∞" for j, v in enumerate(r)] for i, r in enumerate(SCORES)]
    rows = [f"[{', '.join(a)}]{'  →   ' if i == 1 else '      '}[{', '.join(b)}]"
            for i, (a, b) in enumerate(zip(SCORES, masked))]
    return ("**Masked:**\n```\nInstead of:              We do:\n" + "\n".join(rows) + "\n\n"
            "After softmax:\n" + "\n".join(f"[{', '.join(r)}]" for r in weights) + "\n```\n")


def test_a_block_captioned_after_softmax_is_the_softmax_of_the_block_before(tmp_path):
    w = causal_softmax(SCORES)
    assert [f"{float(v):.2f}" for v in w[1]] == ["0.47", "0.53", "0.00"]
    assert [f"{float(v):.2f}" for v in w[2]] == ["0.31", "0.34", "0.35"]
    printed = [["1.00", "0.00", "0.00"], ["0.30", "0.70", "0.00"], ["0.25", "0.36", "0.39"]]
    rc, d, err = check(tmp_path, post(printed))
    assert rc == 1, err
    got = {(c["line"], tuple(c["at"])): c["verdict"] for c in d["claims"]}
    wrong = {k for k, v in got.items() if v == "wrong"}
    assert wrong == {(10, ("1", "0")), (10, ("1", "1")), (11, ("2", "0")), (11, ("2", "1")), (11, ("2", "2"))}
    assert got[(9, ("0", "0"))] == "correct"


def test_a_right_block_after_softmax_is_correct_throughout(tmp_path):
    w = causal_softmax(SCORES)
    printed = [[f"{float(v):.2f}" for v in r] for r in w]
    rc, d, err = check(tmp_path, post(printed))
    assert rc == 0, err
    assert {c["verdict"] for c in d["claims"] if c["line"] >= 8} == {"correct"}


def test_no_softmax_of_the_block_before_when_the_text_calls_it_on_its_own_list(tmp_path):
    """softmax([0, 1]) is [0.2689, 0.7311]: the output [0.27, 0.73] printed after it is no
    softmax of it (that would be [0.38, 0.62] and flag both)."""
    e = [mpmath.exp(0), mpmath.exp(1)]
    assert [f"{float(x / sum(e)):.2f}" for x in e] == ["0.27", "0.73"]
    text = "Scores:\n\n[0.1, 0.9]\n\n* softmax([0, 1]) → [0.27, 0.73]\n* Output: [0.27, 0.73]\n"
    rc, d, err = check(tmp_path, text)
    assert not [c for c in d.get("claims", []) if c["verdict"] != "correct"]


def test_a_block_whose_rows_do_not_sum_to_one_is_no_softmax_output(tmp_path):
    printed = [["1.00", "0.00", "0.00"], ["0.60", "0.70", "0.00"], ["0.25", "0.36", "0.39"]]
    rc, d, err = check(tmp_path, post(printed))
    assert not [c for c in d.get("claims", []) if c["line"] >= 8]


def test_rows_with_softmax_between_arrows_are_the_softmax_of_the_rows_before(tmp_path):
    """``before: [32, 1, 2]  → softmax → [1.00, 0.00, 0.00] (one-hot)``, a line like it
    under: both sides read (the note after them too), the right the softmax of the left;
    its two slipped prints are flagged, the rest pass."""
    def softmax(row):
        e = [mpmath.exp(mpmath.mpf(x)) for x in row]
        return [x / sum(e) for x in e]
    w = softmax(["4", "0.125", "0.25"])
    assert [f"{float(x):.2f}" for x in w] == ["0.96", "0.02", "0.02"]     # 0.9576, 0.0199, 0.0225
    assert [mpmath.nstr(x, 3) for x in softmax(["32", "1", "2"])] == ["1.0", "3.44e-14", "9.36e-14"]
    text = ("```\nd_k = 64:\n  before: [32, 1, 2]  → softmax → [1.00, 0.00, 0.00] (one-hot)\n"
            "  after: [4, 0.125, 0.25] → softmax → [0.95, 0.02, 0.03] (smooth)\n```\n")
    code, d, err = check(tmp_path, text)
    assert code == 1, err
    got = {(c["at"][0], c["at"][1]): (c["printed"], c["verdict"]) for c in d["claims"]}
    assert got == {("0", "0"): ("1.00", "correct"), ("0", "1"): ("0.00", "correct"),
                   ("0", "2"): ("0.00", "correct"), ("1", "0"): ("0.95", "wrong"),
                   ("1", "1"): ("0.02", "correct"), ("1", "2"): ("0.03", "wrong")}


def test_a_caption_in_any_script_opens_the_rows_and_stray_zeros_and_ones_are_no_weights(tmp_path):
    """``스케일링 전: [32, 1, 2] → softmax → [1.00, 0.00, 0.00]``: read as with an English
    caption. A ``0`` or ``1`` elsewhere (``M_{ij}=0``, a shape ``(B, 1, 1, N)``) is no print
    of a weight near 0 or 1: a weight printed so claims exactly 0 or 1, and these are not."""
    text = ("```\nd_k = 64:\n  스케일링 전: [32, 1, 2]  → softmax → [1.00, 0.00, 0.00] (거의 one-hot)\n"
            "  스케일링 후: [4, 0.125, 0.25] → softmax → [0.95, 0.02, 0.03] (부드러운 분포)\n```\n\n"
            "- 허용 위치: $M_{ij}=0$\n- padding mask shape: `(B, 1, 1, N)`\n")
    code, d, err = check(tmp_path, text)
    assert code == 1, err
    assert {c["line"] for c in d["claims"]} == {3, 4}
    assert sorted(c["verdict"] for c in d["claims"]) == ["correct"] * 4 + ["wrong"] * 2


def _softmax(z):
    e = [mpmath.exp(mpmath.mpf(x)) for x in z]
    return [x / mpmath.fsum(e) for x in e]


def _rounds(x, printed: str) -> bool:
    """Does ``x`` round half-up to ``printed`` at its places?"""
    from decimal import ROUND_HALF_UP, Decimal
    q = Decimal(1).scaleb(-len(printed.partition(".")[2]))
    return Decimal(mpmath.nstr(x, 25, strip_zeros=False)).quantize(q, ROUND_HALF_UP) == Decimal(printed)


STEPS = """# Softmax by hand

```
Before softmax: [2.4, 1.2, 0.3]
After softmax:  [0.66, 0.24, 0.10]  (sum = 1.0)
```

With d_k = 64:

```
1. Compute similarity with all words: [0.4, 0.9, 0.5]
2. Scale: [0.05, 0.11, 0.06]
3. Softmax: [0.3, 0.5, 0.2]
```

```
  Scaled:            [4.0, 2.0, 1.0]
  Softmax:           [0.84, 0.12, 0.04]
```
"""


def test_lists_under_captions_of_steps_are_a_chain_not_a_matrix(tmp_path):
    """``Before softmax: […]`` over ``After softmax: […]`` (and ``Scaled:`` over ``Softmax:``,
    a numbered ``3. Softmax:``) are two vectors, the second the softmax of the first, not two
    rows of one matrix: each entry after is judged against the softmax of the list above it.
    A caption "before softmax" names softmax's input: its numbers are no claim on the softmax."""
    code, d, err = check(tmp_path, STEPS)
    assert code == 1, err
    lines = STEPS.splitlines()
    at = {k: 1 + next(i for i, t in enumerate(lines) if t.strip().startswith(k))
          for k in ("Before softmax", "After softmax", "3. Softmax", "Softmax:")}
    cases = {"After softmax": (["2.4", "1.2", "0.3"], ["0.66", "0.24", "0.10"]),
             "3. Softmax": (["0.05", "0.11", "0.06"], ["0.3", "0.5", "0.2"]),
             "Softmax:": (["4.0", "2.0", "1.0"], ["0.84", "0.12", "0.04"])}
    for caption, (z, printed) in cases.items():
        got = {c["printed"]: c for c in d["claims"] if c["line"] == at[caption]}
        assert set(got) == set(printed), caption
        for p, truth in zip(printed, _softmax(z)):
            assert abs(mpmath.mpf(got[p]["exact"]) - truth) < mpmath.mpf("1e-15")
            assert got[p]["verdict"] == ("correct" if _rounds(truth, p) else "wrong"), (caption, p)
    assert not [c for c in d["claims"] if c["line"] == at["Before softmax"] and c["verdict"] == "wrong"]


def test_a_masked_row_after_softmax_is_one_hot_and_a_slip_of_it_flagged(tmp_path):
    """``Attention scores: [0.9, -∞, -∞]`` over ``After softmax: [1.0, 0.0, 0.0]``: 0s and 1s
    are the softmax of a row masked but for one entry (exactly), not a one-hot label; the
    row after, ``[0.4, 0.8, -∞]`` to ``[0.31, 0.69, 0.0]``, is wrong (0.401, 0.599)."""
    text = ("```\nAttention scores: [0.9, -∞, -∞]\nAfter softmax: [1.0, 0.0, 0.0]\n```\n\n"
            "```\nAttention scores: [0.4, 0.8, -∞]\nAfter softmax: [0.31, 0.69, 0.0]\n```\n")
    code, d, err = check(tmp_path, text)
    assert code == 1, err
    first = {c["printed"]: c["verdict"] for c in d["claims"] if c["line"] == 3}
    assert first == {"1.0": "correct", "0.0": "correct"}
    second = {c["printed"]: c for c in d["claims"] if c["line"] == 8}
    for p, truth in zip(("0.31", "0.69"), _softmax(["0.4", "0.8"])):
        assert abs(mpmath.mpf(second[p]["exact"]) - truth) < mpmath.mpf("1e-15") and second[p]["verdict"] == "wrong"


def test_a_note_of_statistics_after_a_list_is_no_entry_of_it(tmp_path):
    """``After LayerNorm: [-0.40, 0.69, -1.43, 1.15]  (mean≈0, var≈1)``: the list is the
    LayerNorm of the input above (right), and the note's 0 and 1 are a mean and a variance,
    no entry of it (the 0 was once judged a wrong print of -0.40)."""
    text = ("```\nInput \"the\":  [ 0.20,  1.42, -0.96,  1.94]  (mean=0.650, var=1.263)\n\n"
            "After LayerNorm: [-0.40, 0.69, -1.43, 1.15]  (mean≈0, var≈1)  ← centered + scaled\n```\n")
    code, d, err = check(tmp_path, text)
    assert code == 0, err
    x = [mpmath.mpf(v) for v in ("0.20", "1.42", "-0.96", "1.94")]
    mu = mpmath.fsum(x) / 4
    sd = mpmath.sqrt(mpmath.fsum((v - mu) ** 2 for v in x) / 4)
    got = [c for c in d["claims"] if c["line"] == 4]
    assert [c["printed"] for c in got] == ["-0.40", "0.69", "-1.43", "1.15"]
    for c, v in zip(got, x):
        assert abs(mpmath.mpf(c["exact"]) - (v - mu) / sd) < mpmath.mpf("1e-12") and c["verdict"] == "correct"

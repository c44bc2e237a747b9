"""Inference of positional encodings and causal masks (`symattn check ARTICLE`, no spec).

Small articles are written here; their truths are computed in this file with ``mpmath``
at 30 digits (sines, cosines, softmax) and ``fractions``, never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from symattn.article.matrices import find
from symattn.article.read import read_article
from symattn.infer.positions import base_names, free_base

mpmath.mp.dps = 30


def cli(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          timeout=300)


def pe_truth(n: int, d: int, base: int = 10000, halves: bool = False) -> list:
    """PE[pos, j] by the formula, at 30 digits: pairs (sin, cos interleaved) or halves."""
    def angle(pos, i):
        return mpmath.mpf(pos) / mpmath.power(base, mpmath.mpf(2 * i) / d)
    if halves:
        h = d // 2
        return [[mpmath.sin(angle(p, j)) if j < h else mpmath.cos(angle(p, j - h)) for j in range(d)]
                for p in range(n)]
    return [[mpmath.sin(angle(p, j // 2)) if j % 2 == 0 else mpmath.cos(angle(p, j // 2))
             for j in range(d)] for p in range(n)]


def all_correct(path, text: str) -> tuple:
    """(the inferred steps' expressions, the correct numbers) of an article with no wrong one."""
    path.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr + r.stdout
    d = json.loads(r.stdout)
    return [s["expr"] for s in d["inferred"][0]["steps"]], d["summary"]["correct"]


def bmatrix(rows) -> str:
    return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(r) for r in rows) + r" \end{bmatrix}"


def p3(x) -> str:
    return f"{float(x):.3f}"


X = [[F(1, 10), F(2, 10), F(3, 10), F(4, 10)], [F(2, 10), F(3, 10), F(4, 10), F(5, 10)],
     [F(3, 10), F(4, 10), F(5, 10), F(6, 10)]]


def pe_post(rows) -> str:
    lines = ["# Positional encoding by hand", "",
             r"$PE(pos, 2i) = \sin(pos / 10000^{2i/d})$, $PE(pos, 2i+1) = \cos(pos / 10000^{2i/d})$.", "",
             "The embeddings of three tokens:", "",
             f"$$x = {bmatrix([[str(float(v)) for v in r] for r in X])}$$", "",
             "After adding the positional encoding:", "",
             f"$$x_{{PE}} = {bmatrix(rows)}$$", ""]
    return "\n".join(lines)


def test_x_plus_pe_with_one_slip_is_checked_and_the_slip_flagged(tmp_path):
    pe = pe_truth(3, 4)
    rows = [[p3(mpmath.mpf(X[i][j].numerator) / X[i][j].denominator + pe[i][j]) for j in range(4)]
            for i in range(3)]
    good = rows[2][1]
    rows[2][1] = f"{float(rows[2][1]) + 0.3:.3f}"            # one entry off by 0.3
    path = tmp_path / "pe.md"
    path.write_text(pe_post(rows), encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 1, r.stderr
    d = json.loads(r.stdout)
    steps = [s["expr"] for s in d["inferred"][0]["steps"]]
    assert steps == ["x + positional_encoding(3, 4)"], steps
    wrong = [c for c in d["claims"] if c["verdict"] == "wrong"]
    assert [(c["at"], c["printed"]) for c in wrong] == [(["2", "1"], rows[2][1])]
    assert wrong[0]["expected"] == good
    assert d["summary"]["correct"] == 11


def test_three_slips_in_five_are_not_a_derivation(tmp_path):
    """Fewer than three in five entries reproduced: no derivation, so nothing called wrong."""
    pe = pe_truth(3, 4)
    rows = [[p3(mpmath.mpf(X[i][j].numerator) / X[i][j].denominator + pe[i][j]) for j in range(4)]
            for i in range(3)]
    for i, j in ((0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)):
        rows[i][j] = f"{float(rows[i][j]) + 0.25:.3f}"
    path = tmp_path / "pe.md"
    path.write_text(pe_post(rows), encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 2 or not any(c["verdict"] == "wrong" for c in json.loads(r.stdout)["claims"])


def test_a_pe_table_in_the_halves_layout_is_inferred_with_its_layout(tmp_path):
    pe = pe_truth(4, 6, halves=True)
    text = "\n".join(["# Sinusoidal table", "", "```python", "print(pe)", "```", "```",
                      "[[" + "],\n [".join(", ".join(f"{float(v):.4f}" for v in r) for r in pe) + "]]",
                      "```", ""])
    assert all_correct(tmp_path / "halves.md", text) == (['positional_encoding(4, 6, layout="halves")'], 24)


def test_the_halves_layout_is_the_formula():
    import symattn as sa
    got = sa.positional_encoding(3, 4, base=100, layout="halves").numpy()
    for row, want in zip(got.tolist(), pe_truth(3, 4, base=100, halves=True)):
        assert all(abs(a - float(b)) < 1e-12 for a, b in zip(row, want))


def softmax_row(xs):
    e = [mpmath.exp(x) if x is not None else mpmath.mpf(0) for x in xs]
    return [v / mpmath.fsum(e) for v in e]


SCORES = [[F((3 * i + 7 * j) % 10 + 1, 10) for j in range(5)] for i in range(5)]


def mask_post(weights) -> str:
    masked = [[str(float(v)) if j <= i else "-inf" for j, v in enumerate(r)] for i, r in enumerate(SCORES)]
    return "\n".join([
        "# A causal mask", "", "```python", "masked = scores.masked_fill(mask.bool(), -torch.inf)",
        "print(masked)", "```", "```", "tensor([[" + "],\n        [".join(", ".join(r) for r in masked) + "]])",
        "```", "", "```python", "weights = torch.softmax(masked, dim=-1)", "print(weights)", "```", "```",
        "tensor([[" + "],\n        [".join(", ".join(r) for r in weights) + "]])", "```", "",
        "```python", "print(weights.sum(dim=-1))", "```", "```", "tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000])", "```", ""])


def mask_truth():
    rows = [[mpmath.mpf(v.numerator) / v.denominator if j <= i else None for j, v in enumerate(r)]
            for i, r in enumerate(SCORES)]
    return [softmax_row(r) for r in rows]


def test_scores_masked_with_minus_inf_split_into_input_and_mask_step(tmp_path):
    weights = [[f"{float(v):.4f}" for v in r] for r in mask_truth()]
    path = tmp_path / "mask.md"
    path.write_text(mask_post(weights), encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr + r.stdout
    d = json.loads(r.stdout)
    inf = d["inferred"][0]
    steps = {s["name"]: s["expr"] for s in inf["steps"]}
    masked = next(n for n, e in steps.items() if e.endswith("+ causal_mask(5)"))
    assert steps[masked] == f"{masked}_scores + causal_mask(5)"
    assert f"softmax({masked})" in steps.values()
    assert any(e.startswith("(sum(") for e in steps.values())          # the row sums of the weights
    minus = [c for c in d["claims"] if c["printed"] == "-inf"]
    assert len(minus) == 10 and all(c["verdict"] == "correct" for c in minus)
    sums = next(n for n, e in steps.items() if e.startswith("(sum("))
    ones = [c for c in d["claims"] if c["step"] == sums]
    assert len(ones) == 5 and all(c["exact"].startswith("1.000000") for c in ones)


def test_a_wrong_masked_weight_is_flagged(tmp_path):
    truth = mask_truth()
    weights = [[f"{float(v):.4f}" for v in r] for r in truth]
    weights[2][0] = f"{float(truth[2][0]) + 0.02:.4f}"
    path = tmp_path / "mask.md"
    path.write_text(mask_post(weights), encoding="utf-8")
    r = cli("check", "--json", str(path))
    d = json.loads(r.stdout)
    wrong = [c for c in d["claims"] if c["verdict"] == "wrong"]
    assert [(c["at"], c["printed"]) for c in wrong] == [(["2", "0"], weights[2][0])], d["claims"]


def test_a_position_labelled_table_row_is_read(tmp_path):
    path = tmp_path / "t.md"
    path.write_text("| Position | Positional Encoding $P_i$ |\n|---|---|\n| 1 | [0.01, 0.02] |\n"
                    "| 2 | [0.03, 0.04] |\n", encoding="utf-8")
    (p,) = find(read_article(str(path)))
    assert p.name == "P_i" and p.rows == ("1", "2") and p.values == ((F(1, 100), F(2, 100)), (F(3, 100), F(4, 100)))


def test_a_free_index_label_names_its_tensor_the_last_block_so_labelled():
    assert free_base("P_i") == "P" and free_base("X_{pos}") == "X"
    assert free_base("W_Q") == "" and free_base("x_1") == "" and free_base("Q_{love}") == ""
    assert base_names(["P_i", "X", "P_i", "E_i"]) == {2: "P", 3: "E"}


def test_a_letter_subscript_in_a_family_of_names_is_no_free_index():
    """``W_k`` beside ``W_q`` and ``W_v`` is the key's weights, not row k of W."""
    assert base_names(["W_q", "W_k", "W_v"]) == {} and base_names(["W_k", "W_Q"]) == {}
    assert base_names(["P_i", "P_1"]) == {0: "P"}           # P_1: a row of P, no family


def test_a_table_printed_again_with_nothing_computing_it_is_no_step(tmp_path):
    pe = pe_truth(3, 4)
    block = bmatrix([[f"{float(v):.4f}" for v in r] for r in pe])
    text = "# PE\n\n$$P = " + block + "$$\n\nAgain, the same table:\n\n$$P = " + block + "$$\n"
    assert all_correct(tmp_path / "again.md", text) == (["positional_encoding(3, 4)"], 24)


def test_the_encoding_of_one_position_printed_as_a_row(tmp_path):
    row = [f"{float(v):.4f}" for v in pe_truth(3, 4)[2]]
    text = ("# PE of one position\n\nWith $d = 4$, the encoding of position pos = 2 is\n\n"
            f"$$PE_2 = {bmatrix([row])}$$\n")
    assert all_correct(tmp_path / "row.md", text) == (["positional_encoding(3, 4)[2]"], 4)


def test_a_row_of_a_position_that_no_table_gives_is_not_derived(tmp_path):
    path = tmp_path / "row.md"
    path.write_text("# Not a position\n\n$$v = \\begin{bmatrix} 0.9093 & -0.4161 & 0.0300 & 0.9998 "
                    "\\end{bmatrix}$$\n", encoding="utf-8")
    assert cli("check", str(path)).returncode == 2


def test_a_plain_text_table_and_its_masked_twin_are_read(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("The scores:\n\n        a   b\na       1   0\nb       2   3\n\n"
                    "before        after\n[1, 0]        [1, −∞]\n[2, 3]        [2,  3]\n\n"
                    "new = [0.212 + 0 + 0.576,  0 + 0.212]\n", encoding="utf-8")
    found = find(read_article(str(path)))
    assert [(p.shape, p.rows) for p in found] == [((2, 2), ("a", "b")), ((2, 2), None), ((2, 2), None)]
    assert found[1].values == ((1, 0), (2, 3)) and str(found[2].values[0][1]) == "-inf"


def test_masked_scores_an_earlier_block_prints_are_that_block_plus_the_mask(tmp_path):
    s = [[f"{float(v)}" for v in r] for r in SCORES[:3]]
    s = [r[:3] for r in s]
    masked = [[v if j <= i else "-inf" for j, v in enumerate(r)] for i, r in enumerate(s)]
    path = tmp_path / "m.md"
    path.write_text("# Scores, then masked\n\n```\ntensor([[" + "],\n        [".join(", ".join(r) for r in s)
                    + "]])\n```\n\n```\ntensor([[" + "],\n        [".join(", ".join(r) for r in masked)
                    + "]])\n```\n", encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 0, r.stderr + r.stdout
    d = json.loads(r.stdout)
    inf = d["inferred"][0]
    assert [s["expr"] for s in inf["steps"]] == [f"{inf['inputs'][0]} + causal_mask(3)"]
    assert sum(c["printed"] == "-inf" and c["verdict"] == "correct" for c in d["claims"]) == 3


def test_a_base_the_formula_states_is_the_base_checked(tmp_path):
    """``1000^{2i/d}`` in the formula: a table with base 1000 is correct, not a base slip."""
    pe = pe_truth(3, 4, base=1000)
    text = ("# A smaller base\n\n$PE(pos, 2i) = \\sin(pos / 1000^{2i/d})$, $PE(pos, 2i+1) = "
            "\\cos(pos / 1000^{2i/d})$:\n\n$$PE = " + bmatrix([[f"{float(v):.4f}" for v in r] for r in pe]) + "$$\n")
    assert all_correct(tmp_path / "base.md", text) == (["positional_encoding(3, 4, base=1000)"], 12)


def test_bases_as_formulas_write_them():
    from symattn.infer.positions import bases_written
    assert bases_written(r"\sin(pos / 10000^{2i/d_{model}})") == ["10000"]
    assert bases_written(r"\theta_i = 10000^{-2(i-1)/d}") == ["10000"]
    assert bases_written("100 ** (2 * i / d)") == ["100"]
    assert bases_written("2^{2i}, 10^2 k, 10000^{2/4}") == []


def test_a_row_printed_truncated_in_half_its_entries_is_judged_wrong(tmp_path):
    """Markdown-escaped vectors (``\\[0.1, 0.3]``) in a table; position 1's encoding printed
    with two of its four entries truncated (0.00999, 0.9999): the row is still its row, and
    those two are wrong, the other two right."""
    emb = [["0.1", "0.3", "0.4", "0.5"], ["0.2", "0.1", "0.6", "0.3"], ["0.4", "0.3", "0.9", "0.1"]]
    pe = pe_truth(3, 4)
    printed = [["0", "1", "0", "1"], ["0.841", "0.540", "0.00999", "0.9999"],
               [f"{float(v):.3f}" for v in pe[2]]]
    sums = [[f"{float(mpmath.mpf(x) + v):.3f}" for x, v in zip(e, p)] for e, p in zip(emb, pe)]
    text = "# Positional encoding by hand\n\n| Token | Embedding |\n| --- | --- |\n"
    text += "".join(f"| {t} | \\[{', '.join(r)}] |\n" for t, r in zip("abc", emb))
    text += ("\nPE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)), d = 4:"
             "\n\n| Token | Positional encoding | Sum |\n| --- | --- | --- |\n")
    text += "".join(f"| {t} | \\[{', '.join(p)}] | \\[{', '.join(s)}] |\n"
                    for t, p, s in zip("abc", printed, sums))
    path = tmp_path / "pe.md"
    path.write_text(text, encoding="utf-8")
    r = cli("check", "--json", str(path))
    assert r.returncode == 1, r.stderr
    row = {c["printed"]: c for c in json.loads(r.stdout)["claims"] if c["line"] == 14}
    assert {p for p, c in row.items() if c["verdict"] == "wrong"} == {"0.00999", "0.9999"}, row
    for p, truth in zip(printed[1], pe[1]):
        assert abs(mpmath.mpf(row[p]["exact"]) - truth) < mpmath.mpf("1e-18"), (p, row[p])
    assert all(row[p]["verdict"] == "correct" for p in printed[1][:2])

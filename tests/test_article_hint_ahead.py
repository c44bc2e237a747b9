"""A block printed wrong throughout, its rows starting a line or two after the line its step
names (``\\begin{bmatrix}`` or ``Q =`` on the named line): placed as that step's print, each
entry judged, rather than left unverified because no entry is near its cell.

Truths: worked out with ``fractions``, never by symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F


def run(tmp_path, article: str, step_line: int):
    (tmp_path / "post.md").write_text(article, encoding="utf-8")
    (tmp_path / "spec.toml").write_text(
        '[example]\nid = "p"\ntitle = "p"\nsource = "post.md"\n\n[inputs]\n'
        'X = [[1, 2], [3, 4]]\nW = [[1, 0], [1, 1]]\n\n'
        f'[[steps]]\nname = "Y"\nexpr = "X @ W"\nline = {step_line}\n', encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", "spec.toml",
                        "--article", "post.md"], capture_output=True, text=True, cwd=tmp_path)
    if r.returncode == 2 and "no printed number was checked" in r.stderr:
        return []                                # said so, in one line: nothing placed
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["claims"]


TRUTH = [[F(1 + 2), F(2)], [F(3 + 4), F(4)]]          # X @ W
WRONG = [["30.5", "20.5"], ["70.5", "40.5"]]           # nowhere near: no value places them


def block(open_line: str) -> str:
    return f"{open_line}\n" + "\n".join("[ " + "  ".join(r) + " ]" for r in WRONG) + "\n"


def test_rows_one_line_after_the_named_line_are_that_steps_print(tmp_path):
    article = "# Post\n\nThe product:\n\n```\n" + block("the product of the two is") + "```\n"
    claims = run(tmp_path, article, step_line=6)          # the line above the rows
    got = {(c["printed"], F(c["exact"])) for c in claims if c["step"] == "Y"}
    assert got == {(WRONG[i][j], TRUTH[i][j]) for i in range(2) for j in range(2)}
    assert all(c["verdict"] == "wrong" for c in claims if c["step"] == "Y")


def test_rows_too_far_after_the_named_line_are_left_unplaced(tmp_path):
    article = "# Post\n\nThe product:\n\n```\nthe product of the two is\n\n\n" + block("") + "```\n"
    claims = run(tmp_path, article, step_line=6)
    assert [c for c in claims if c["step"] == "Y"] == []


def test_a_lone_number_beside_the_row_leaves_it_the_steps_print(tmp_path):
    """``exp: [...]  sum=8.160``: the sum is no rival block on the line, so the row is the
    step's print, each entry at its place (not placed by value, twice on the same cell)."""
    article = "# Post\n\n```\nY: [30.5, 20.5]  sum=51.0\n```\n"
    (tmp_path / "post.md").write_text(article, encoding="utf-8")
    (tmp_path / "spec.toml").write_text(
        '[example]\nid = "p"\ntitle = "p"\nsource = "post.md"\n\n[inputs]\n'
        'x = [[1, 2]]\nW = [[1, 0], [1, 1]]\n\n'
        '[[steps]]\nname = "Y"\nexpr = "x @ W"\nline = 4\n', encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", "spec.toml",
                        "--article", "post.md"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    got = sorted((c["printed"], tuple(c["at"]), F(c["exact"]), c["verdict"])
                 for c in json.loads(r.stdout)["claims"] if c["step"] == "Y")
    assert got == [("20.5", ("0", "1"), F(2), "wrong"), ("30.5", ("0", "0"), F(3), "wrong")]


def test_an_exp_row_with_its_sum_is_judged_entry_by_entry_when_inferred(tmp_path):
    """Row-by-row softmax: ``exp: [..]  sum=..`` of scores printed to 3 decimals. Each exp
    at its place: two carried from the rounded scores, the one made up wrong; the sum
    written beside is the sum of that row's exps, carried (worked from the rounded scores)."""
    import mpmath
    from conftest import check_post
    shown = ["1.414", "0.707", "0.707"]                     # (Q Kᵀ/√2)[2], rounded
    exps = [mpmath.exp(mpmath.mpf(x)) for x in shown]
    printed = ["4.1323"] + [mpmath.nstr(e, 5) for e in exps[1:]]
    assert printed[1:] == ["2.0279", "2.0279"] and mpmath.nstr(exps[0], 5) != "4.1323"
    rows = ["[0.707, 0.000, 0.707]", "[0.707, 0.707, 0.000]", "[1.414, 0.707, 0.707]"]
    text = ("# Softmax\n\n```\nQ = [[1, 0], [0, 1], [1, 1]]\nK = [[1, 1], [0, 1], [1, 0]]\n```\n\n"
            "S = Q Kᵀ / √2:\n\n```\nS = [" + ",\n     ".join(rows) + "]\n```\n\n")
    for i, r in enumerate(rows):
        e = [mpmath.exp(mpmath.mpf(x)) for x in r.strip("[]").split(", ")]
        shown_e = printed if i == 2 else [mpmath.nstr(x, 5) for x in e]
        a = [mpmath.nstr(x / sum(e), 3) for x in e]
        text += (f"Row {i + 1}: softmax({r})\n```\nexp: [{', '.join(shown_e)}]  sum={mpmath.nstr(sum(e), 5)}\n"
                 f"A_{i + 1} = [{', '.join(a)}]\n```\n\n")
    out = check_post(tmp_path, text)
    line = text.splitlines().index(f"exp: [{', '.join(printed)}]  sum={mpmath.nstr(sum(exps), 5)}") + 1
    mine = [c for c in out["claims"] if c["line"] == line]
    got = sorted((c["at"][1], c["printed"], c["verdict"]) for c in mine if c["printed"] in printed)
    assert got == [("0", "4.1323", "wrong"), ("1", "2.0279", "carried"), ("2", "2.0279", "carried")]
    exact = [c for c in mine if c["at"][1] == "0" and c["printed"] in printed][0]["exact"]
    assert abs(mpmath.mpf(exact) - mpmath.exp(mpmath.sqrt(2))) < mpmath.mpf("1e-9")
    total = [c for c in mine if c["printed"] == mpmath.nstr(sum(exps), 5)]      # the sum beside:
    truth = mpmath.exp(mpmath.sqrt(2)) + 2 * mpmath.exp(1 / mpmath.sqrt(2))   # of the exact exps
    assert len(total) == 1 and total[0]["verdict"] == "carried"
    assert abs(mpmath.mpf(total[0]["exact"]) - truth) < mpmath.mpf("1e-9")

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

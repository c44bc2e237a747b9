"""Rows worked together by hand (``x_3 = [0.2+0.909, 0.2+-0.416, …] = [1.109, -0.216, …]``):
each operand is the entry of the block row that prints that operand's numbers across the
entries (E's row 3, P's row 3: a row of one number over and over only beside another's), and
where a derived block is those rows worked so (``X = E + P``) each result is a claim on that
block's entry, so the table printed later restates it rather than judging it twice. In an
article of two files the same holds, each number judged once.

Truths: ``mpmath`` (sin, cos of the positional encoding) and ``fractions``, never symattn.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
from conftest import check_post

E = [["0.1", "0.2", "0.3", "0.4"], ["0.5", "0.4", "0.3", "0.2"], ["0.2", "0.2", "0.2", "0.2"]]


def _pe(pos: int, k: int, d: int = 4):
    angle = mpmath.mpf(pos) / mpmath.mpf(10000) ** (mpmath.mpf(2 * (k // 2)) / d)
    return mpmath.sin(angle) if k % 2 == 0 else mpmath.cos(angle)


X = [[mpmath.mpf(F(e).numerator) / F(e).denominator + _pe(pos, k) for k, e in enumerate(row)]
     for pos, row in enumerate(E)]
P_SHOWN = [[f"{float(_pe(pos, k)):.3f}" for k in range(4)] for pos in range(3)]
X_SHOWN = [[f"{float(x):.3f}".rstrip("0") for x in row] for row in X]
X_SHOWN[2][3] = "1.02"                        # 1.20 with its digits swapped


def _rows(name, m):
    return [f"{name} = [[{', '.join(m[0])}],"] + [f"     [{', '.join(r)}]{']' if i == len(m) - 1 else ','}"
                                                    for i, r in enumerate(m[1:], 1)]


def _lines(e_row, p_row, x_row, k):
    return f"X_{k} = [{', '.join(f'{a}+{b}' for a, b in zip(e_row, p_row))}] = [{', '.join(x_row)}]"


HEAD = ["# Adding positions by hand", "", "```", *_rows("E", E), "", *_rows("P", P_SHOWN), "```", ""]
BODY = ["Token by token:", "", "```", *[_lines(E[i], P_SHOWN[i], X_SHOWN[i], i + 1) for i in range(3)],
        "```", "", "```", *_rows("X", X_SHOWN), "```", ""]


def test_rows_worked_together_are_claims_on_the_derived_blocks_entries(tmp_path):
    assert X_SHOWN[1] == ["1.341", "0.94", "0.31", "1.2"] and f"{float(X[2][3]):.2f}" == "1.20"
    out = check_post(tmp_path, "\n".join(HEAD + BODY))
    line = len(HEAD) + 6                                  # x_3
    assert out["inferred"][0]["steps"][-1]["expr"] == "E + P"
    got = [c for c in out["claims"] if c["line"] == line and c["printed"] in X_SHOWN[2]]
    assert [(c["step"], c["at"], c["printed"]) for c in got] == \
        [("X", ["2", str(k)], X_SHOWN[2][k]) for k in range(4)]
    assert all(abs(mpmath.mpf(c["exact"]) - X[2][k]) < mpmath.mpf("1e-12") for k, c in enumerate(got))
    assert [c["verdict"] for c in got] == ["correct"] * 3 + ["wrong"]
    table = [c for c in out["claims"] + out.get("restated", []) if c["line"] == line + 6 and c["printed"] == "1.02"]
    assert len(table) == 1 and table[0]["verdict"] == "wrong" and table[0]["restates"] == line


def test_rows_worked_in_an_articles_second_file_are_judged_once(tmp_path):
    import json
    import subprocess
    import sys
    (tmp_path / "post.part1.md").write_text("\n".join(HEAD), encoding="utf-8")
    (tmp_path / "post.part2.md").write_text("\n".join(BODY), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(tmp_path / "post.part1.md"),
                        str(tmp_path / "post.part2.md")], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    slipped = [c for c in out["claims"] if c["printed"] == "1.02" and c["line"] == 6]
    assert len(slipped) == 1 and slipped[0]["verdict"] == "wrong"
    assert abs(mpmath.mpf(slipped[0]["exact"]) - X[2][3]) < mpmath.mpf("1e-12")

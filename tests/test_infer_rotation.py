"""RoPE's rotation matrix R_m as an operation and as a printed block an article computes.

A RoPE walk-through prints R_m = [[cos mθ, −sin mθ], [sin mθ, cos mθ]] (a 3×3 example keeps
its last coordinate) and then q'_m = R_m q_m written out as a product of two printed
matrices. Truths: ``mpmath`` at 40 digits, never symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import pytest

import symattn as sa
from symattn.errors import InputError
from symattn.spec.latex_import import read_matrices

mpmath.mp.dps = 40


def rotation(d: int, m, base=10000, halves: bool = False) -> list:
    """R_m by the formula: pair k turns by m·base^(−2k/d) (an odd d keeps its last coordinate)."""
    r = [[mpmath.mpf(int(i == j)) for j in range(d)] for i in range(d)]
    half = d // 2
    for k in range(half):
        a, b = (k, k + half) if halves else (2 * k, 2 * k + 1)
        t = mpmath.mpf(m) * mpmath.power(base, -mpmath.mpf(2 * k) / (2 * half))
        r[a][a], r[a][b], r[b][a], r[b][b] = mpmath.cos(t), -mpmath.sin(t), mpmath.sin(t), mpmath.cos(t)
    return r


@pytest.mark.parametrize("d, m, base, halves", [(2, 1, 10000, False), (3, 2, 10000, False),
                                                (4, 3, 100, False), (4, 2, 10000, True), (6, 5, 10000, False)])
def test_rope_matrix_is_the_rotation_by_the_formula(d, m, base, halves):
    got = sa.evaluate(sa.rope_matrix(d, m, base=base, layout="halves" if halves else "pairs"), digits=30)
    for g_row, t_row in zip(got, rotation(d, m, base, halves)):
        for g, t in zip(g_row, t_row):
            assert abs(mpmath.mpf(g) - t) < mpmath.mpf(10) ** -28, (g, t)


def test_rope_matrix_refuses_what_it_cannot_be():
    for bad in (lambda: sa.rope_matrix(1, 1), lambda: sa.rope_matrix(3, 1, layout="halves"),
                lambda: sa.rope_matrix(4, 1, layout="rows")):
        with pytest.raises(InputError):
            bad()


def test_a_product_written_out_names_its_result_not_its_first_factor():
    text = (r"$$\mathbf{k}'_1 = R_1\,\mathbf{k}_1 = \begin{bmatrix} 0.5 & -0.8 \\ 0.8 & 0.5 \end{bmatrix}"
            r"\begin{bmatrix} 1 \\ 2 \end{bmatrix} = \begin{bmatrix} -1.1 \\ 1.8 \end{bmatrix}$$")
    names = [m.name for m in read_matrices(text)]
    assert names[0] != "k_1" and "k_1" not in names[:2], names
    assert read_matrices(r"$$S = QK^\top = \begin{bmatrix} 1 & 2 \end{bmatrix}$$")[0].name == "S"


def p4(x) -> str:
    s = f"{float(mpmath.nint(x * 10 ** 4)) / 10 ** 4:.4f}"
    return s if s != "-0.0000" else "0.0000"


def bmatrix(rows) -> str:
    return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(r) for r in rows) + r" \end{bmatrix}"


def test_rotation_matrices_and_the_rotated_queries_are_computed_exactly(tmp_path):
    """R_0 … R_2 printed at four decimals, R_2 with two digits swapped (0.9039 for sin 2),
    then q'_m = R_m q_m written out, R_m printed again as the author copied it. The checks
    use the exact rotations (cos 1, not 0.5403): the rotated queries' exact values are the
    formula's; the swap is wrong; the identity times q_0 derives nothing."""
    q = [["0.35", "-0.17", "-0.27"], ["-0.09", "0.47", "-0.07"], ["0.20", "0.10", "0.30"]]

    def shown(t):
        rows = [[p4(x) for x in row] for row in rotation(3, t)]
        if t == 2:
            assert rows[1][0] == "0.9093"
            rows[1][0] = "0.9039"
        return rows

    lines = ["# RoPE by hand", "", "Each position $t$ has its rotation matrix; the angle is $t$.", ""]
    for t in range(3):
        lines += [f"### Position $t = {t}$", "", f"$$R_{t} = {bmatrix(shown(t))}$$", ""]
    rotated = []
    for t in range(3):
        r = rotation(3, t)
        rotated.append([sum(r[i][j] * mpmath.mpf(q[t][j]) for j in range(3)) for i in range(3)])
        lines += [f"Position $t = {t}$: $q_{t} = {bmatrix([q[t]])}^\\top$", "",
                  f"$$q'_{t} = R_{t}\\,q_{t} = {bmatrix(shown(t))} {bmatrix([[x] for x in q[t]])} = "
                  f"{bmatrix([[p4(x)] for x in rotated[t]])}$$", ""]
    path = tmp_path / "rope.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    steps = [s["expr"] for e in out["inferred"] for s in e["steps"]]
    assert sum(s.startswith("rope_matrix(3") for s in steps) >= 3, steps
    wrong = [c for c in out["claims"] if c["verdict"] == "wrong"]
    assert wrong and {c["printed"] for c in wrong} == {"0.9039"}, wrong
    assert all(abs(mpmath.mpf(c["exact"]) - mpmath.sin(2)) < mpmath.mpf("1e-15") for c in wrong)
    for t in (1, 2):                             # q'_1, q'_2: exact against the exact rotation
        for i in (0, 1):
            assert any(c["verdict"] == "correct" and abs(mpmath.mpf(c["exact"]) - rotated[t][i]) < mpmath.mpf("1e-15")
                       for c in out["claims"]), (t, i)
    assert not [s for s in steps if "@" in s and ("R_0" in s or "position=0" in s)], steps


def test_an_identity_matrix_the_text_gives_is_no_rotation_by_zero(tmp_path):
    """K = I (a weight the author sets) is the rotation by position 0 too; with no position
    stated it stays an input, and the scores computed from it are checked."""
    text = "\n".join([
        "# Identity keys", "",
        "$$Q = \\begin{bmatrix} 1 & 1 & 1 & 1 \\end{bmatrix}, \\quad",
        "K = \\begin{bmatrix} 1 & 0 & 0 & 0 \\\\ 0 & 1 & 0 & 0 \\\\ 0 & 0 & 1 & 0 \\\\ 0 & 0 & 0 & 1 \\end{bmatrix}$$",
        "", "Scores divided by $\\sqrt{4} = 2$:", "",
        "$$\\frac{QK^T}{2} = \\begin{bmatrix} 0.5 & 0.5 & 0.5 & 0.5 \\end{bmatrix}$$", ""])
    path = tmp_path / "id.md"
    path.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert not any("rope_matrix" in s["expr"] for e in out["inferred"] for s in e["steps"]), out["inferred"]
    assert "K" in out["inferred"][0]["inputs"], out["inferred"]

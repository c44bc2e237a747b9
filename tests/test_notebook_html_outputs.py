"""A notebook output that only an HTML table shows (a styled pandas table, whose plain text
is ``<pandas.io.formats.style.Styler at 0x…>``) is read from its HTML: checked with no spec,
and fixed in place in the notebook's JSON.

Truths come from ``mpmath`` (30 digits), never from symattn.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath

from symattn.article.read import read_article

mpmath.mp.dps = 30

X = [["1", "0"], ["0", "1"], ["1", "1"]]


def _styled(rows: list[list[str]]) -> dict:
    html = ["<style type=\"text/css\">\n", "</style>\n", "<table id=\"T_1\">\n", "  <thead>\n",
            "    <tr>\n", "      <th class=\"blank\" >&nbsp;</th>\n"]
    html += [f"      <th class=\"col_heading\" >t{j + 1}</th>\n" for j in range(len(rows[0]))]
    html += ["    </tr>\n", "  </thead>\n", "  <tbody>\n"]
    for i, r in enumerate(rows):
        html += ["    <tr>\n", f"      <th class=\"row_heading\" >t{i + 1}</th>\n"]
        html += [f"      <td class=\"data\" >{v}</td>\n" for v in r]
        html += ["    </tr>\n"]
    html += ["  </tbody>\n", "</table>\n"]
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/html": html, "text/plain": ["<pandas.io.formats.style.Styler at 0x27414da4850>"]}}


def _weights():
    s = [[sum(mpmath.mpf(a) * mpmath.mpf(b) for a, b in zip(p, q)) / mpmath.sqrt(2) for q in X] for p in X]
    return [[mpmath.exp(v) / mpmath.fsum(mpmath.exp(u) for u in r) for v in r] for r in s]


def notebook(wrong: str) -> str:
    w = [[f"{float(v):.3f}" for v in r] for r in _weights()]
    w[2][1] = wrong
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Attention, scaled by √2\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["X = [[1, 0], [0, 1], [1, 1]]\n"]}],
         "source": ["X = np.array([[1, 0], [0, 1], [1, 1]])\n", "print('X =', X.tolist())"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 2, "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["Poids d'attention A :\n"]}, _styled(w)],
         "source": ["A = softmax(X @ X.T / np.sqrt(2))\n", "display(pd.DataFrame(A).style.format('{:.3f}'))"]},
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def test_a_styled_table_is_read_as_table_rows(tmp_path):
    path = tmp_path / "styled.ipynb"
    path.write_text(notebook("0.503"), encoding="utf-8")
    rows = [ln for ln in read_article(str(path)) if ln.kind == "table"]
    assert [ln.text.split("|")[0].strip() for ln in rows] == ["t1", "t1", "t2", "t3"]   # the header, 3 rows
    assert [ln.text.count("|") for ln in rows] == [2, 3, 3, 3]
    assert all(ln.where.startswith("cell 3, output, line ") for ln in rows)


def test_a_wrong_weight_in_a_styled_table_is_flagged_and_fixed(tmp_path):
    path, fixed = tmp_path / "styled.ipynb", tmp_path / "fixed.ipynb"
    w = _weights()
    wrong = f"{float(w[2][1]) + 0.01:.3f}"
    path.write_text(notebook(wrong), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", "--json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    claims = json.loads(r.stdout)["claims"]
    bad = [c for c in claims if c["verdict"] == "wrong"]
    assert [c["printed"] for c in bad] == [wrong]
    assert abs(mpmath.mpf(bad[0]["exact"]) - w[2][1]) < mpmath.mpf("1e-15")
    assert sum(c["verdict"] == "correct" for c in claims) >= 8
    r = subprocess.run([sys.executable, "-m", "symattn", "check", str(path), "--fix", "-o", str(fixed)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    got = json.loads(fixed.read_text(encoding="utf-8"))
    cell = "".join(got["cells"][2]["outputs"][1]["data"]["text/html"])
    assert f">{float(w[2][1]):.3f}</td>\n" in cell and f">{wrong}</td>\n" not in cell

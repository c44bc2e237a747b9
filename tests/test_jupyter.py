"""symattn in Jupyter, as a user meets it: the README's "Use it in Jupyter" cells made into
a notebook and executed by nbconvert (a real kernel), then its outputs read.

Truths are mpmath's (softmax of the README's X), never symattn's. Skipped when nbconvert
or ipykernel is missing (the `test` extra installs them).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path

import mpmath
import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbconvert")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def readme_cells() -> list[tuple[str, str]]:
    """(kind, source) of the blocks of the README's "Use it in Jupyter" section."""
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## Use it in Jupyter\n(.*?)(?=^## )", text, re.S | re.M).group(1)
    return [("markdown" if info == "markdown" else "code", body.rstrip("\n"))
            for info, body in re.findall(r"^```(markdown|ipython)\n(.*?)^```", section, re.S | re.M)]


BAD_TOML = '%%symattn\n[example]\nid = "bad"\n[inputs]\nX = { value = [[1, 0.1.2]] }'
NO_PANDAS = ("import sys; sys.modules['pandas'] = None\n"
             "try:\n    A.to_pandas()\nexcept sa.InputError as e:\n    print('ERR', e)")


def mp_softmax_rows() -> list[list]:
    """softmax(X Xᵀ) for X = I₂: each row [e, 1]/(e + 1) or [1, e]/(e + 1), by mpmath."""
    mpmath.mp.dps = 40
    e = mpmath.e
    return [[e / (e + 1), 1 / (e + 1)], [1 / (e + 1), e / (e + 1)]]


def sig(x, digits: int) -> str:
    return mpmath.nstr(x, digits, strip_zeros=False)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The README's notebook, plus two cells a user gets wrong, run by nbconvert."""
    folder = tmp_path_factory.mktemp("nb")
    cells = readme_cells()
    assert [k for k, _ in cells][:2] == ["markdown", "code"] and len(cells) >= 7
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(src) if kind == "markdown"
                else nbformat.v4.new_code_cell(src) for kind, src in cells]
    nb.cells += [nbformat.v4.new_code_cell(BAD_TOML), nbformat.v4.new_code_cell(NO_PANDAS)]
    path = folder / "weights.ipynb"
    nbformat.write(nb, str(path))
    p = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute",
                        "--ExecutePreprocessor.timeout=300", "--output", "out.ipynb", str(path)],
                       cwd=folder, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads((folder / "out.ipynb").read_text(encoding="utf-8"))
    sources = [src for _, src in cells] + [BAD_TOML, NO_PANDAS]
    return {src: c.get("outputs", []) for src, c in zip(sources, out["cells"])}


def cell_with(executed, text: str) -> list:
    return next(outs for src, outs in executed.items() if text in src)


def data(outputs, mime: str) -> str:
    for o in outputs:
        if mime in o.get("data", {}):
            v = o["data"][mime]
            return "".join(v) if isinstance(v, list) else v
    raise AssertionError(f"no {mime} output in {[list(o.get('data', {})) for o in outputs]}")


class Rows(HTMLParser):
    """The rows of an HTML table: [(tr attributes, [cell texts])]."""

    def __init__(self):
        super().__init__()
        self.rows, self.cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append((dict(attrs), []))
        elif tag in ("td", "th") and self.rows:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1][1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, d):
        if self.cell is not None:
            self.cell.append(d)


def rows_of(html: str) -> list:
    p = Rows()
    p.feed(html)
    return p.rows


def test_the_magic_checks_the_notebooks_own_numbers(executed):
    """%%symattn --article weights.ipynb: the four numbers of the Markdown cell, each against
    mpmath's value rounded to 4 places; the wrong one highlighted with what to print."""
    outs = cell_with(executed, "%%symattn --article")
    html = data(outs, "text/html")
    truth = mp_softmax_rows()
    want = {"a": truth[0], "b": truth[1]}
    claims = [(a, cells) for a, cells in rows_of(html) if "data-verdict" in a]
    assert len(claims) == 4
    for attrs, (line, at, printed, exact, expected, verdict, why) in claims:
        row, col = at.strip("[]").split(", ")
        value = want[row][0 if col == "a" else 1]
        assert expected == sig(value, 4)
        assert verdict == attrs["data-verdict"] == ("correct" if printed == expected else "wrong")
    wrong = [(a, c) for a, c in claims if a["data-verdict"] == "wrong"]
    assert [(c[2], c[4]) for _, c in wrong] == [("0.7412", "0.7311")]
    assert "background:#ffebee" in wrong[0][0]["style"]                 # highlighted
    assert 'data-wrong="1"' in html and "<math" in html                  # the step, as MathML
    assert "weights" in data(outs, "text/plain")                          # a text fallback


def test_a_tensor_shows_the_same_digits_in_html_and_latex(executed):
    outs = cell_with(executed, "A = sa.softmax")
    html, latex = data(outs, "text/html"), data(outs, "text/latex")
    truth = mp_softmax_rows()
    cells = [c for _, cs in rows_of(html) for c in cs]
    shown = [c.strip("\u2007\u2008") for c in cells if re.search(r"\d", c)]
    assert shown == [sig(v, 6) for row in truth for v in row]
    body = re.sub(r"\\phantom\{[^}]*\}", "", latex)
    assert re.findall(r"\d+\.\d+", body) == shown
    # aligned on the point: every cell of a column as wide on each side of it
    for j in range(2):
        col = [c for k, c in enumerate(c for c in cells if re.search(r"\d", c)) if k % 2 == j]
        assert len({len(c.split(".")[0]) for c in col}) == 1
        assert len({len(c.split(".")[1]) for c in col}) == 1


def test_a_heatmap_shows_without_matplotlib_inline(executed):
    assert not any("%matplotlib" in src for src in executed)
    svg = data(cell_with(executed, "sa.plot.heatmap(A)"), "image/svg+xml")
    assert svg.lstrip().startswith("<svg")
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert sig(mp_softmax_rows()[0][0], 4) in " ".join(texts)     # its cell values as text


def test_compare_shows_a_table_with_exact_values(executed):
    html = data(cell_with(executed, "sa.compare(A)"), "text/html")
    assert "float64" in html and "Worst entries" in html
    truth = {(r, c): v for r, row in zip("ab", mp_softmax_rows()) for c, v in zip("ab", row)}
    worst = [c for _, c in rows_of(html) if len(c) == 6 and c[0].startswith("[")]
    assert worst
    for entry, reference, exact, *_ in worst:
        r, c = entry.strip("[]").split(", ")
        assert exact == sig(truth[r, c], 20)


def test_to_pandas_gives_the_labels_and_certified_decimals(executed):
    html = data(cell_with(executed, "A.to_pandas()"), "text/html")
    rows = rows_of(html)
    assert [c.strip() for c in rows[0][1]] == ["", "a", "b"]
    truth = mp_softmax_rows()
    for k, label in enumerate("ab"):
        cells = rows[k + 1][1]
        assert cells[0] == label
        assert [Decimal(x) for x in cells[1:]] == [Decimal(sig(v, 6)) for v in truth[k]]


def test_errors_are_one_line_without_traceback(executed):
    outs = executed[BAD_TOML]
    assert [o["output_type"] for o in outs] == ["stream"]
    err = "".join(outs[0]["text"])
    assert outs[0]["name"] == "stderr" and err.count("\n") == 1
    assert err.startswith("symattn: %%symattn:5: ") and "TOML" in err
    text = "".join(executed[NO_PANDAS][0]["text"])
    assert text.startswith("ERR ") and "pandas" in text and text.count("\n") == 1


def test_symattn_does_not_import_ipython():
    p = subprocess.run([sys.executable, "-c", "import sys, symattn; symattn.load_ipython_extension; "
                        "print('IPython' in sys.modules)"], capture_output=True, text=True)
    assert p.stdout.strip() == "False", p.stderr


HOSTILE = """
[example]
id = "h"
title = "<script>alert(1)</script>"
tokens = ["<img src=x onerror=alert(2)>", "b"]

[inputs]
X = { value = [[1, 0], [0, 1]], rows = "tokens" }

[[steps]]
name = "A"
expr = "softmax(X @ X.T)"

[[claims]]
step = "A"
at = "<img src=x onerror=alert(2)>"
printed = "[0.7311, 0.2690]"
line = 1
"""


def test_the_cell_display_escapes_labels():
    from symattn.jupyter import check_cell
    r = check_cell(HOSTILE)
    html = r._repr_html_()
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert [(c.printed, c.verdict) for c in r.records] == [("0.7311", "correct"), ("0.2690", "wrong")]


def test_article_alone_is_the_notebook_jupyter_names(tmp_path, monkeypatch):
    from symattn.errors import SpecError
    from symattn.jupyter import this_notebook
    nb = tmp_path / "mine.ipynb"
    nb.write_text("{}")
    monkeypatch.setenv("JPY_SESSION_NAME", str(nb))
    assert this_notebook({}) == str(nb)
    monkeypatch.delenv("JPY_SESSION_NAME")
    assert this_notebook({"__vsc_ipynb_file__": str(nb)}) == str(nb)
    with pytest.raises(SpecError) as e:
        this_notebook({})
    assert "--article NAME.ipynb" in str(e.value) and "\n" not in str(e.value)


def test_mixed_columns_line_up_on_the_point_in_html_and_latex():
    """Signs, whole numbers and decimals in one column: the HTML cells (figure and
    punctuation spaces) and the LaTeX cells (phantoms) as wide on each side of the point,
    the same digits in both; truths by Fraction and Decimal."""
    from decimal import Context, ROUND_HALF_EVEN
    from fractions import Fraction
    import symattn as sa
    entries = [["1/3", "-2"], ["25/2", "-7/3"]]
    t = sa.matrix(entries)
    ctx = Context(prec=6, rounding=ROUND_HALF_EVEN)

    def six(q: Fraction) -> str:
        d = ctx.divide(Decimal(q.numerator), Decimal(q.denominator))
        return format(d.normalize() if q.denominator in (1, 2) else d, "f")

    want = [six(Fraction(x)) for row in entries for x in row]
    assert want == ["0.333333", "-2", "12.5", "-2.33333"]
    cells = [c for _, cs in rows_of(t._repr_html_()) for c in cs if re.search(r"\d", c)]
    assert [c.strip("\u2007\u2008").replace("−", "-") for c in cells] == want
    latex = t._repr_latex_()
    body = re.sub(r"\\phantom\{[^}]*\}", "", latex)
    assert re.findall(r"-?\d+(?:\.\d+)?", body) == want
    for j in range(2):
        col = cells[j::2]
        left = {len(c.split(".")[0]) if "." in c else len(c.rstrip("\u2007\u2008")) for c in col}
        right = {len(c) - len(c.split(".")[0]) if "." in c else len(c) - len(c.rstrip("\u2007\u2008"))
                 for c in col}
        assert len(left) == 1 and len(right) == 1, col
    cols = re.search(r"\\begin\{bmatrix\}(.*)\\end\{bmatrix\}", latex).group(1).split(r"\\")
    grid = [[c.strip() for c in row.split("&")] for row in cols]
    for j in range(2):
        widths = {_latex_width(row[j]) for row in grid}
        assert len(widths) == 1, [row[j] for row in grid]


def _latex_width(cell: str) -> tuple:
    """Characters before and after the point, phantoms counted as what they stand for."""
    text = re.sub(r"\\phantom\{([^}]*)\}", r"\1", cell)
    whole, _, frac = text.partition(".")
    return len(whole), len(frac) + (1 if "." in text else 0)

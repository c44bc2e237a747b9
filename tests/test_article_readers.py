"""Article readers: every number of a small file keeps its source line and column.

The truth is the file the test writes: the expected line and column of a number are found
in the raw source with ``str.find``; a reader's place for it is ``Line.number`` and
``Line.column(k)`` where the number starts in ``Line.text``.
"""

from __future__ import annotations

import os
import subprocess
import sys

import nbformat
import pytest

from symattn.article.read import read_article
from symattn.errors import LimitError, SpecError
from symattn.spec.load import MAX_FILE_BYTES


def source_place(source: str, token: str) -> tuple[int, int]:
    """(line, column) of the one occurrence of ``token`` in the raw source, 1-based."""
    hits = [(k, line.find(token)) for k, line in enumerate(source.split("\n"), start=1) if token in line]
    assert len(hits) == 1 and source.count(token) == 1, f"{token} must occur once in the test file"
    line, col = hits[0]
    return line, col + 1


def reader_places(lines, token: str) -> list[tuple[int, int, str]]:
    out = []
    for line in lines:
        k = line.text.find(token)
        while k >= 0:
            out.append((line.number, line.column(k), line.kind))
            k = line.text.find(token, k + 1)
    return out


def assert_at(lines, source: str, token: str, kind: str) -> None:
    assert reader_places(lines, token) == [(*source_place(source, token), kind)]


def write(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


MARKDOWN = r"""# Attention by hand

The scale is $\sqrt{2} \approx 1.414$ here.

$$
s = 0.8188
$$

\begin{aligned}
q &= 0.92 \\
\end{aligned}

W_Q = \begin{bmatrix} 1.25 & 0.2 \\ 0.1 & 0.9 \end{bmatrix}

| token | d1 | d2 |
|---|---|---|
| love | 0.8 | 1.75 |

```python
x = torch.tensor([[2.5, 3.5]])
```

```
tensor([[0.4419, 0.6515]])
```

Out[3]:

    [0.125, 0.375]

Closing words with 6.02.
"""


@pytest.mark.parametrize("token, kind", [
    ("1.414", "text"), ("0.8188", "math"), ("0.92", "math"), ("1.25", "math"), ("1.75", "table"),
    ("2.5", "code"), ("0.4419", "output"), ("0.375", "output"), ("6.02", "text"),
])
def test_markdown_lines_and_columns(tmp_path, token, kind):
    lines = read_article(write(tmp_path, "a.md", MARKDOWN))
    assert_at(lines, MARKDOWN, token, kind)
    assert all(l.columns is None for l in lines)                 # raw source lines
    assert [l.text for l in lines] == MARKDOWN.rstrip("\n").split("\n")


def test_markdown_crlf_and_bom_keep_lines(tmp_path):
    p = tmp_path / "w.markdown"
    p.write_bytes(b"\xef\xbb\xbf" + MARKDOWN.replace("\n", "\r\n").encode())
    assert_at(read_article(str(p)), MARKDOWN, "0.8188", "math")


LATEX = r"""\section{Scores}
The score is 0.8188 % was 9.75 before
Fifty percent: 50\% of 3.25
\begin{equation}
z = 4.125 \\% 6.5 is a comment after a line break
\end{equation}
\[ w = 2.0625 \]
After the display, 1.375.
"""


@pytest.mark.parametrize("token, kind", [
    ("0.8188", "text"), ("3.25", "text"), ("4.125", "math"), ("2.0625", "math"), ("1.375", "text"),
])
def test_latex_lines_and_columns(tmp_path, token, kind):
    assert_at(read_article(write(tmp_path, "a.tex", LATEX)), LATEX, token, kind)


def test_latex_comments_yield_no_numbers_and_keep_columns(tmp_path):
    lines = read_article(write(tmp_path, "a.tex", LATEX))
    text = "\n".join(l.text for l in lines)
    assert "9.75" not in text and "6.5" not in text
    assert "50\\%" in text                                       # an escaped percent stays
    assert [len(l.text) for l in lines] == [len(s) for s in LATEX.rstrip("\n").split("\n")]


HTML = """<!DOCTYPE html>
<html><head><title>9.5</title>
<style>.a { width: 7.25px }</style></head>
<body>
<p>The weight is &minus;0.375 &amp; <b>1.625</b> and &#8722;0.0625</p>
<script>var w = 8.5;</script>
<table>
<tr><th>token</th><th>d1</th></tr>
<tr><td>love</td><td>2.875</td></tr>
</table>
<pre>tensor([[0.4419, 0.6515]])</pre>
<p>\\(x = 3.0625\\) and $$y = 4.5$$</p><!-- 5.75 -->
</body></html>
"""


@pytest.mark.parametrize("token, kind", [
    ("0.375", "text"), ("1.625", "text"), ("0.0625", "text"), ("2.875", "table"),
    ("0.4419", "output"), ("3.0625", "text"), ("4.5", "text"),
])
def test_html_lines_and_columns(tmp_path, token, kind):
    assert_at(read_article(write(tmp_path, "a.html", HTML)), HTML, token, kind)


def test_html_text_without_tags_entities_decoded(tmp_path):
    lines = read_article(write(tmp_path, "a.htm", HTML))
    text = "\n".join(l.text for l in lines)
    for hidden in ("9.5", "7.25", "8.5", "5.75", "<b>", "&minus;"):
        assert hidden not in text
    line5 = [l for l in lines if l.number == 5]
    assert line5[0].text.startswith("The weight is \u22120.375 & 1.625 and \u22120.0625")
    minus = line5[0].text.index("\u2212")
    assert line5[0].column(minus) == HTML.split("\n")[4].index("&minus;") + 1
    row = [l for l in lines if l.number == 9]
    assert [l.text.strip() for l in row] == ["love | 2.875"]
    assert "\\(x = 3.0625\\)" in text


def notebook(tmp_path, cells) -> str:
    p = tmp_path / "n.ipynb"
    p.write_text(nbformat.writes(nbformat.v4.new_notebook(cells=cells)), encoding="utf-8")
    return str(p)


def test_notebook_cells_outputs_and_numbering(tmp_path):
    v4 = nbformat.v4
    path = notebook(tmp_path, [
        v4.new_markdown_cell("# Title\n\nThe value $x = 0.25$\n\n| a | 1.5 |\n|---|---|"),
        v4.new_code_cell("x = torch.tensor([[0.4419, 0.6515]])\nprint(x.sum())", outputs=[
            v4.new_output("stream", name="stdout", text="tensor(1.0934)\nsum done 7\n"),
            v4.new_output("execute_result", data={"text/plain": "tensor([[0.4419, 0.6515]])"},
                          execution_count=1),
            v4.new_output("error", ename="E", evalue="9.99", traceback=["9.99"]),
        ]),
        v4.new_raw_cell("raw 3.5"),
    ])
    lines = read_article(path)
    by = {(l.number, l.where, l.kind, l.text) for l in lines}
    assert (1003, "cell 1, line 3", "text", "The value $x = 0.25$") in by
    assert (1005, "cell 1, line 5", "table", "| a | 1.5 |") in by
    assert (2001, "cell 2, line 1", "code", "x = torch.tensor([[0.4419, 0.6515]])") in by
    assert (2501, "cell 2, output, line 1", "output", "tensor(1.0934)") in by
    assert (2502, "cell 2, output, line 2", "output", "sum done 7") in by
    assert (2503, "cell 2, output, line 3", "output", "tensor([[0.4419, 0.6515]])") in by
    assert (3001, "cell 3, line 1", "text", "raw 3.5") in by
    assert not any("9.99" in l.text for l in lines)              # tracebacks are not read
    assert len({l.number for l in lines}) == len(lines)           # every line its own number


def test_notebook_long_cell_widens_the_scale(tmp_path):
    v4 = nbformat.v4
    path = notebook(tmp_path, [v4.new_code_cell("\n".join(f"x{k} = {k}" for k in range(1, 601))),
                               v4.new_code_cell("y = 2", outputs=[v4.new_output("stream", name="stdout", text="2\n")])])
    lines = read_article(path)
    numbers = {l.where: l.number for l in lines}
    assert numbers["cell 1, line 600"] == 10_600
    assert numbers["cell 2, line 1"] == 20_001
    assert numbers["cell 2, output, line 1"] == 25_001
    assert len(set(numbers.values())) == len(lines)


def test_plain_text_lines_as_they_are(tmp_path):
    text = "Q = [0.92, 1.24] % not a comment 2.5\nW =\n\\begin{bmatrix}\n1.0 & 0.2\n\\end{bmatrix}\n" \
           "tensor([[0.4419,\n        0.6515]])\nlast 3.75\n"
    lines = read_article(write(tmp_path, "a.txt", text))
    assert [l.text for l in lines] == text.rstrip("\n").split("\n")
    assert [l.kind for l in lines] == ["text", "text", "math", "math", "math", "output", "output", "text"]
    assert_at(lines, text, "2.5", "text")
    assert_at(read_article(write(tmp_path, "a.unknown", text)), text, "3.75", "text")


# ---- bad input: one line naming the file, exit 2, nothing written ---------------------------

def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def _bad(tmp_path, case):
    p = tmp_path / f"bad.{case.split('-')[0]}"
    if case == "md-not-utf8":
        p.write_bytes("a\ncafé 0.5\n".encode("latin-1"))
    elif case == "ipynb-not-json":
        p.write_text('{"cells": [\n  {"cell_type": "markdown",\n  oops\n', encoding="utf-8")
    elif case == "ipynb-not-notebook":
        p.write_text('[1, 2, 3]', encoding="utf-8")
    elif case == "txt-binary":
        p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    elif case == "txt-too-big":
        p.write_bytes(b"1 " * ((MAX_FILE_BYTES + 10) // 2))
    elif case == "dir":
        p.mkdir()
    elif case == "missing":
        pass
    elif case == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(p)
    return str(p)


BAD = ["md-not-utf8", "ipynb-not-json", "ipynb-not-notebook", "txt-binary", "txt-too-big", "dir",
       "missing", "fifo"]
MESSAGES = {"md-not-utf8": "UTF-8", "ipynb-not-json": "invalid JSON", "ipynb-not-notebook": "not a Jupyter notebook",
            "txt-binary": "NUL", "txt-too-big": "longer than", "dir": "folder", "missing": "no such file",
            "fifo": "not a regular file"}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_one_line_naming_the_file(tmp_path, case):
    path = _bad(tmp_path, case)
    with pytest.raises((SpecError, LimitError)) as e:
        read_article(path)
    message = str(e.value)
    assert "\n" not in message and message.startswith(path) and MESSAGES[case] in message


@pytest.mark.parametrize("case", ["md-not-utf8", "ipynb-not-json", "txt-binary", "fifo", "dir"])
def test_bad_input_through_new_from_writes_nothing(tmp_path, case):
    path = _bad(tmp_path, case)
    out = tmp_path / "out.toml"
    r = cli("new", "--from", path, "-o", str(out))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and path in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def test_a_device_is_refused(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    with pytest.raises(SpecError, match="not a regular file"):
        read_article("/dev/zero")


@pytest.mark.parametrize("suffix", ["txt", "md", "tex", "html"])
def test_a_line_of_a_million_digits_is_read_as_it_is(tmp_path, suffix):
    digits = "7" * 1_000_000
    lines = read_article(write(tmp_path, f"m.{suffix}", f"before 0.5\n<p>{digits}</p>\nafter 0.25\n"))
    long = [l for l in lines if digits in l.text]
    assert len(long) == 1 and long[0].number == 2
    assert reader_places(lines, "0.25")[0][0] == 3


def test_minified_html_keeps_rows_and_paragraphs_apart(tmp_path):
    source = "<table><tr><td>I</td><td>1.0</td></tr><tr><td>love</td><td>0.8</td></tr></table><p>a 2.5</p><p>b 3.5</p>"
    lines = read_article(write(tmp_path, "min.html", source))
    assert [(l.number, l.kind, l.text) for l in lines] == [
        (1, "table", "I | 1.0"), (1, "table", "love | 0.8"), (1, "text", "a 2.5"), (1, "text", "b 3.5")]
    for token in ("1.0", "0.8", "2.5", "3.5"):
        assert reader_places(lines, token)[0][1] == source.index(token) + 1


def test_a_printout_with_rows_elided_at_its_end_is_the_rows_it_prints():
    """PyTorch ends a long matrix with ``...])``: the rows before it are rows 0, 1, … of
    the tensor, read as printed; an elision anywhere else (inside a row, between rows) leaves
    which entry a number is unsaid: no list."""
    from fractions import Fraction
    from symattn.article.cells import parse_list
    text = "tensor([[ 1.2000e+00, -5.0000e-01],\n        [ 6.0000e-01,  1.3000e+00],\n        ...])"
    value, _ = parse_list(text, text.index("["))
    assert [[v for v, _ in row] for row in value] == [[Fraction(6, 5), Fraction(-1, 2)], [Fraction(3, 5), Fraction(13, 10)]]
    for elided in ("[1.2, ..., 0.8]", "[[1.2, ...], [1, 2]]", "[[1, 2], ..., [3, 4]]", "[..., [1, 2]]"):
        assert parse_list(elided, 0)[0] is None

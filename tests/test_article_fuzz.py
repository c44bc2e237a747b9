"""Property-based fuzzing of the article readers and of ``new --from``.

Any text, in any of the five formats, gives lines or one clean SymattnError; Markdown, LaTeX
and plain text give one Line per source line with its raw text (LaTeX with comments
blanked); an HTML Line's columns point at the source character they came from; and the
starting spec ``new --from`` writes for any article is TOML that ``symattn.spec.load``
accepts. A normal run tries 100 examples of each property, ``-m slow`` 3,000.
"""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from symattn.article import html as html_reader
from symattn.article.latex import source_lines
from symattn.article.read import read_article
from symattn.article.starter import starter_spec
from symattn.errors import SymattnError
from symattn.spec.load import load

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
FRAGMENTS = [
    "[", "]", "[[", "]]", ", ", " ", "0.5", "-1.25", "−0.3", "1e-3", "2.", "7", "|", "| ", "|---|", "\t",
    " = ", ": ", "\n", "\n\n", "\r\n", "\\begin{bmatrix}", "\\end{bmatrix}", " & ", " \\\\ ",
    "\\begin{aligned}", "\\end{aligned}", "$", "$$", "\\[", "\\]", "%", "\\%", "```", "```python",
    "    ", "tensor(", "array(", ")", "Out[1]:", "X", "W_Q", "W_K", "W_V", "x_{\\text{love}}",
    "<p>", "</p>", "<td>", "</td>", "<tr>", "</tr>", "<table>", "</table>", "<pre>", "</pre>",
    "<script>", "</script>", "&amp;", "&minus;", "&#8722;", "&#x41;", "<!-- ", " -->", "猫", "`I`",
    "LayerNorm", "mask", "FFN",
]
articles = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=5), max_size=60).map("".join)


def fuzz(n: int = 100):
    return settings(max_examples=n, deadline=None, derandomize=True, suppress_health_check=_QUIET)


def slow(n: int = 3000):
    return settings(max_examples=n, deadline=None, suppress_health_check=_QUIET)


def _write(tmp_path, suffix: str, text: str) -> str:
    p = tmp_path / f"fuzz.{suffix}"
    p.write_text(text, encoding="utf-8", newline="")
    return str(p)


def _raw_lines(tmp_path, text):
    if "\x00" in text:                                       # a binary file: refused
        with pytest.raises(SymattnError, match="NUL"):
            read_article(_write(tmp_path, "md", text))
        return
    for suffix in ("md", "txt"):
        lines = read_article(_write(tmp_path, suffix, text))
        assert [l.number for l in lines] == list(range(1, len(lines) + 1))
        for line, source in zip(lines, source_lines(text), strict=True):
            if line.columns is None:
                assert line.text == source
            else:                                # Markdown's escapes read: only backslashes dropped
                assert suffix == "md" and len(line.columns) == len(line.text)
                assert all(source[c - 1] == ch for c, ch in zip(line.columns, line.text))
                dropped = set(range(1, len(source) + 1)) - set(line.columns)
                assert all(source[c - 1] == "\\" for c in dropped)
    tex = read_article(_write(tmp_path, "tex", text))
    assert [len(l.text) for l in tex] == [len(s) for s in source_lines(text)]


@fuzz()
@given(articles)
def test_raw_readers_keep_every_line(tmp_path, text):
    _raw_lines(tmp_path, text)


def _html_columns(text):
    src = source_lines(text)
    for line in html_reader.read(text):
        assert line.columns is not None and len(line.columns) == len(line.text)
        source = src[line.number - 1]
        for k, ch in enumerate(line.text):
            at = source[line.column(k) - 1]
            # a character is itself in the source, or an entity's first character (&), or
            # the space / " | " a tag became (at the tag's <)
            assert at == ch or at == "&" or (at == "<" and ch in " |"), (line, k)


@fuzz()
@given(articles)
def test_html_columns_point_at_their_source(text):
    _html_columns(text)


def test_a_noncharacter_in_an_html_article_is_read_as_itself():
    """The reader marks unclosed tag starts with a noncharacter the article does not hold:
    the article's own U+FDD0 stays U+FDD0, not a ``<`` (a case the fuzzing found)."""
    for text in ("\ufdd0", "a <b x \ufdd0 <c", "".join(chr(c) for c in range(0xFDD0, 0xFDF0)) + " <a"):
        _html_columns(text)
        assert "".join(ln.text for ln in html_reader.read(text)).count("\ufdd0") == text.count("\ufdd0")


def _starter(tmp_path, text, suffix):
    try:
        spec_text = starter_spec(_write(tmp_path, suffix, text))
    except SymattnError as e:
        assert "\n" not in str(e)
        return
    tomllib.loads(spec_text)
    load(str(tmp_path / "s.toml"), text=spec_text)


@fuzz(60)
@given(articles, st.sampled_from(["md", "txt", "tex", "html", "ipynb"]))
def test_new_from_any_article_writes_a_spec_that_loads(tmp_path, text, suffix):
    _starter(tmp_path, text, suffix)


TABLE_CELLS = ["1×1 + 0×0 = 1", "1×0.5 + 0×1 = 0.5", "58.7%", "41.3%", "21％", "−∞", "0.7071",
               "0.3536", "≈", "=", "1.5", "-2", "cat", "%", "x = 3", "2：猫", "", "0.0%", "2.0281"]


@st.composite
def tables(draw):
    """A tab table: a header, then labelled rows of (mostly) one width."""
    k = draw(st.integers(2, 4))
    cell = st.sampled_from(TABLE_CELLS)
    rows = [draw(st.sampled_from(["start", "cat", "2：猫", "7", ""])) + "\t" +
            "\t".join(draw(st.lists(cell, min_size=k - draw(st.integers(0, 1)), max_size=k)))
            for _ in range(draw(st.integers(2, 5)))]
    return "\n".join(["key\tQ·K\t√2\tsoftmax"[:8 * k + 3], *rows])


@fuzz(60)
@given(st.tuples(articles, tables()).map("\n".join))
def test_inference_of_any_article_gives_specs_that_load_or_one_clean_error(tmp_path, text):
    """The inference (tab tables of worked cells and percentages too) gives specs that
    load, or one SymattnError: no crash, whatever the text."""
    from symattn.infer import infer
    if "\x00" in text:
        return
    path = _write(tmp_path, "txt", text)
    try:
        found = infer([path])
    except SymattnError:
        return
    for k, ex in enumerate(found):
        (tmp_path / f"s{k}.toml").write_text(ex.text, encoding="utf-8")
        load(str(tmp_path / f"s{k}.toml"), text=ex.text)


@pytest.mark.slow
@slow()
@given(articles, st.sampled_from(["md", "txt", "tex", "html", "ipynb"]))
def test_slow_readers_and_starter(tmp_path, text, suffix):
    _raw_lines(tmp_path, text)
    _html_columns(text)
    _starter(tmp_path, text, suffix)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(FRAGMENTS) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["cells", "cell_type", "source", "outputs", "output_type", "text", "data",
                         "text/plain", "metadata", "nbformat", "nbformat_minor", "name"]) | st.text(max_size=4),
        inner, max_size=5), max_leaves=30)
notebooks = st.fixed_dictionaries({"cells": st.lists(
    st.fixed_dictionaries({"cell_type": st.sampled_from(["code", "markdown", "raw", 3]),
                           "source": json_values,
                           "outputs": st.lists(st.fixed_dictionaries({
                               "output_type": st.sampled_from(["stream", "execute_result", "display_data", "error"]),
                               "text": json_values, "data": json_values}) | json_values, max_size=3)})
    | json_values, max_size=4)}, optional={"nbformat": json_values, "metadata": json_values})


def _notebook(tmp_path, nb):
    import json
    path = _write(tmp_path, "ipynb", json.dumps(nb))
    try:
        lines = read_article(path)
    except SymattnError as e:
        assert "\n" not in str(e)
        return
    assert len({l.number for l in lines}) == len(lines)
    assert all(l.kind in ("text", "math", "code", "table", "output") for l in lines)


@fuzz(150)
@given(notebooks)
def test_any_notebook_json_gives_lines_or_one_clean_error(tmp_path, nb):
    _notebook(tmp_path, nb)


@pytest.mark.slow
@slow()
@given(notebooks)
def test_slow_notebooks(tmp_path, nb):
    _notebook(tmp_path, nb)

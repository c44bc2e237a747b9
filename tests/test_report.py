"""symattn report without a browser: marks, placement, grouping by cause, escaping, errors."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("latex2mathml")

from symattn.cli import main                                     # noqa: E402
from symattn.article.source import Line                          # noqa: E402
from symattn.render.html.marks import locate                     # noqa: E402
from symattn.render.html.mathml import to_mathml                 # noqa: E402
from symattn.render.html.summary import causes, corrections      # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"


class Marks(HTMLParser):
    """The marked numbers of a page (buttons with data-verdict), and every script/link."""

    def __init__(self):
        super().__init__()
        self.marks, self.scripts, self.urls = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "button" and "data-verdict" in a:
            self.marks.append(a)
        if tag == "script":
            self.scripts.append(a)
        for k in ("src", "href", "xlink:href", "action"):
            if a.get(k) and not a[k].startswith("#"):
                self.urls.append(a[k])


def report(tmp_path, capsys, *args) -> tuple[str, str]:
    out = tmp_path / "r.html"
    code = main(["report", *args, "-o", str(out)])
    err = capsys.readouterr().err
    assert code in (0, 1), err                     # 1: wrong numbers found, as check
    return out.read_text(encoding="utf-8"), err


def check_json(capsys, *args) -> dict:
    main(["check", "--json", *args])
    return json.loads(capsys.readouterr().out)


def test_one_mark_per_record_in_the_article(tmp_path, capsys):
    html, _ = report(tmp_path, capsys, "000-self-attention", "--article",
                     str(SEEDS / "000_a092e4009a0e6c2f.txt"))
    truth = check_json(capsys, str(ROOT / "examples" / "000-self-attention.toml"), "--article",
                       str(SEEDS / "000_a092e4009a0e6c2f.txt"))
    p = Marks()
    p.feed(html)
    assert Counter((m["data-line"], m["data-verdict"]) for m in p.marks
                   if m["data-verdict"] != "unmatched") == \
        Counter((str(c["line"]), c["verdict"]) for c in truth["claims"])
    assert Counter((m["data-line"], m.get("data-column")) for m in p.marks
                   if m["data-verdict"] == "unmatched") == \
        Counter((str(u["line"]), str(u["column"])) for u in truth.get("unmatched", []))
    assert len(p.scripts) == 1 and p.urls == []             # one inline script, no links out
    # each wrong mark sits on its article line, on the printed text itself
    for m in re.finditer(r'<div class="l" id="a0-L(\d+)">(.*?)</div>', html):
        for b in re.finditer(r'data-line="(\d+)"[^>]*>([^<]*)</button>', m.group(2)):
            assert b.group(1) == m.group(1)
            assert b.group(2) in (SEEDS / "000_a092e4009a0e6c2f.txt").read_text().split("\n")[
                int(m.group(1)) - 1]


def test_content_security_policy_allows_only_the_page_script(tmp_path, capsys):
    html, _ = report(tmp_path, capsys, "002-counts", "--no-diagnosis")
    script = re.search(r"<script>(.*?)</script>", html, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html).group(1)
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp


def test_locate_uses_the_column_then_the_first_unused_occurrence():
    line = Line(7, "w = [0.25, 0.5, 0.25] and 10.5")
    r = SimpleNamespace(printed="0.25", column=None)
    used = []
    first = locate(r, line, used)
    assert line.text[slice(*first)] == "0.25" and first[0] == 5
    used.append(first)
    second = locate(r, line, used)
    assert second[0] == 16                                  # the next one, not the same
    assert locate(SimpleNamespace(printed="0.25", column=17), line, [])[0] == 16
    half = locate(SimpleNamespace(printed="0.5", column=None), line, [])
    assert half[0] == 11                                    # not inside 10.5
    assert locate(SimpleNamespace(printed="0.75", column=None), line, []) is None
    minus = Line(1, "x = −0.5")
    assert locate(SimpleNamespace(printed="-0.5", column=None), minus, []) == (4, 8)


def rec(line, printed, expected, diagnosis=None, example="ex", verdict="wrong"):
    return SimpleNamespace(example=example, source="a.txt", line=line, step="A", at=["x", "y"],
                           printed=printed, expected=expected, verdict=verdict,
                           diagnosis=diagnosis, column=None)


def test_wrong_numbers_are_grouped_under_their_root():
    root = rec(10, "0.3383", "0.3382", ["last entry adjusted so the printed row sums to 1"])
    f1 = rec(12, "0.90", "0.89", ["follows from the wrong number printed at line 10"])
    f1.root = {"step": "A", "at": ["x", "y"], "line": 10, "printed": "0.3383"}
    f2 = rec(14, "0.3383", "0.3382", ["restates the number printed at line 12"])
    other = rec(20, "1.5", "1.4", None)
    ok = rec(11, "0.1", "0.1", verdict="correct")
    records = [root, f1, f2, other, ok]
    ids = {id(r): f"r{k}" for k, r in enumerate(records)}
    html = causes(records, ids)
    assert "4 wrong numbers from 2 causes" in re.sub("<[^>]+>", "", html)
    first, second = html.split('<li class="root">')[1:]
    assert 'href="#r0"' in first and 'href="#r1"' in first and 'href="#r2"' in first
    assert "2 more wrong because of it" in first and "last entry adjusted" in first
    assert 'href="#r3"' in second and "no known mistake" in second
    f1.root, f1.diagnosis = None, None
    f1.follows_from = [10]
    assert "2 more wrong because of it" in causes(records, ids)
    fixes = corrections(records, ids)
    assert [m for m in re.findall(r"line (\d+)", fixes)] == ["10", "12", "14", "20"]
    assert "<del>0.3383</del> by <ins>0.3382</ins>" in fixes


def test_no_all_clear_while_numbers_are_unverified():
    ok = rec(11, "0.1", "0.1", verdict="correct")
    ids = {id(ok): "r0"}
    assert "No wrong numbers." in causes([ok], ids)
    text = re.sub("<[^>]+>", "", causes([ok], ids, unverified=2))
    assert "No wrong numbers." not in text and "2 printed numbers unverified" in text


def test_mathml_is_rebuilt_from_a_whitelist():
    m = to_mathml(r"\text{<b>bold</b><script>x</script>} = \frac{1}{2}")
    assert "<b>" not in m and "<script" not in m and "<mfrac>" in m and "bold" in m
    odd = to_mathml(r"\text{<b onclick=x>bold</b>}")        # not XML: shown as escaped source
    assert odd.startswith('<pre class="tex">') and "<b" not in odd
    aligned = to_mathml(r"\begin{aligned} a &= b \\ &= \begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}\end{aligned}")
    assert aligned.count("<mtr>") == 2 + 2                 # two rows, and the matrix's two
    assert to_mathml(r"\frac{").startswith("<pre")         # unreadable: shown as source


HOSTILE = """
[example]
id = "x"
title = "<script>alert(1)</script>"
source = "x.txt"
tokens = ["<b>a</b>", "b&amp;"]

[inputs]
X = { value = [[1, 0], [0, 1]], rows = "tokens", line = 1 }

[[steps]]
name = "A"
expr = "softmax(X @ X.T)"

[[claims]]
step = "A"
at = "<b>a</b>"
printed = "[0.7311, 0.2689]"
line = 2
"""


def test_labels_and_article_text_are_escaped(tmp_path, capsys):
    spec = tmp_path / "x.toml"
    spec.write_text(HOSTILE)
    art = tmp_path / "x.txt"
    art.write_text("<script>alert(2)</script>\n0.7311 <i>and</i> 0.2689\n")
    html, _ = report(tmp_path, capsys, str(spec), "--article", str(art))
    body = html.split("<body>", 1)[1].rsplit("<script>", 1)[0]
    assert "<script" not in body and "<b>" not in body and "<i>" not in body
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in body
    assert "&lt;b&gt;a&lt;/b&gt;" in body and "b&amp;amp;" in body


def test_no_overwrite_without_force(tmp_path, capsys):
    out = tmp_path / "r.html"
    out.write_text("mine")
    assert main(["report", "002-counts", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "exists already" in err and err.count("\n") == 1
    assert out.read_text() == "mine"
    assert main(["report", "002-counts", "-o", str(out), "--force", "--no-diagnosis"]) == 0
    assert out.read_text().startswith("<!doctype html>")


def test_a_failing_spec_gives_the_same_line_as_check(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[example]\nid = "b"\n[inputs]\nX = { value = [[1, 0.1.2]] }\n')
    assert main(["check", str(bad)]) == 2
    want = capsys.readouterr().err
    out = tmp_path / "r.html"
    assert main(["report", str(bad), "-o", str(out)]) == 2
    assert capsys.readouterr().err == want and want.count("\n") == 1
    assert not out.exists()


def test_a_missing_article_is_one_line(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", "002-counts", "--article", str(tmp_path / "none.txt"),
                 "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "none.txt" in err and "no such" in err and err.count("\n") == 1
    assert not out.exists()


FOLLOWS = """
[example]
id = "follows"
title = "a typo and what follows"
source = "f.txt"
tokens = ["a", "b"]

[inputs]
X = { value = [[1, 0], [0, 1]], rows = "tokens", line = 1 }
V = { value = [[2, 0], [0, 4]], line = 1 }

[[steps]]
name = "A"
expr = "softmax(X @ X.T)"

[[steps]]
name = "Z"
expr = "A @ V"

[[claims]]
step = "A"
at = "a"
printed = "[0.7411, 0.2689]"
line = 2

[[claims]]
step = "Z"
at = "a"
printed = "[1.4822, 1.0756]"
line = 3
"""


def test_a_number_that_follows_from_a_wrong_one_is_grouped_under_it(tmp_path, capsys):
    """0.7411 for softmax([1, 0])[0] = 0.7311 (by hand: 1/(1+e^-1) = 0.731058...), and
    2 × 0.7411 = 1.4822 printed from it: one cause, line 3 follows from line 2."""
    spec = tmp_path / "f.toml"
    spec.write_text(FOLLOWS)
    art = tmp_path / "f.txt"
    art.write_text("weights and outputs\nA = [0.7411, 0.2689]\nZ = [1.4822, 1.0756]\n")
    html, _ = report(tmp_path, capsys, str(spec), "--article", str(art))
    p = Marks()
    p.feed(html)
    wrong = {(m["data-line"], m.get("data-follows")) for m in p.marks
             if m["data-verdict"] == "wrong"}
    assert wrong == {("2", None), ("3", "2")}
    text = re.sub("<[^>]+>", "", html)
    assert "2 wrong numbers from 1 cause" in text and "1 more wrong because of it" in text
    assert "replace 0.7411 by 0.7311" in text and "replace 1.4822 by 1.4621" in text


def test_counts_and_places_read_as_english(tmp_path, capsys):
    """One example is "1 example"; a number found in the article (no line in the spec) is
    not placed at "spec.toml:0"."""
    (tmp_path / "ex.toml").write_text(
        '[example]\nid = "one"\nsource = "post.md"\n[inputs]\nx = [[0.0, 1.0]]\n'
        '[[steps]]\nname = "w"\nexpr = "softmax(x)"\n', encoding="utf-8")
    (tmp_path / "post.md").write_text("$w = [0.2689, 0.7311]$\n", encoding="utf-8")
    html, _ = report(tmp_path, capsys, str(tmp_path / "ex.toml"), "--article", str(tmp_path / "post.md"))
    text = re.sub("<[^>]+>", " ", html)
    assert "1 example" in text and "1 examples" not in text
    assert "ex.toml:0" not in html and "ex.toml" in html

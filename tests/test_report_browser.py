"""The report in a real browser: Debian's headless Chromium driven by Playwright.

Skipped when chromium or playwright is missing (.ci/run installs both). The truths are
`symattn check --json` for the counts and mpmath for the heatmap cells, never the report.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from decimal import Decimal, ROUND_HALF_UP
from pathlib import Path

import mpmath
import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

sync_api = pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM) and not shutil.which("chromium"):
    pytest.skip("chromium is not installed", allow_module_level=True)


def symattn(*args, check=True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "symattn", *args], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    if check and p.returncode not in (0, 1):
        raise AssertionError(p.stderr)
    return p


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM)
                              else shutil.which("chromium"), args=ARGS)
        yield b
        b.close()


class Opened:
    """A page with every request recorded and every non-file request refused."""

    def __init__(self, browser, path: Path, width=1100, height=900):
        self.ctx = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.ctx.new_page()
        self.requests, self.errors = [], []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", lambda route: route.continue_()
                        if route.request.url == path.as_uri() else route.abort())
        self.page.goto(path.as_uri())

    def close(self):
        self.ctx.close()


ARTICLES = ["000_a092e4009a0e6c2f.txt", "002_7b7c9657c1cd8eb2.txt"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The report of every bundled example with articles 000 and 002, and `check --json`
    with the same articles (the truth the marks are counted against)."""
    out = tmp_path_factory.mktemp("report") / "corpus.html"
    arts = [x for a in ARTICLES for x in ("--article", str(SEEDS / a))]
    symattn("report", "-o", str(out), *arts)
    truth = json.loads(symattn("check", "--json", str(ROOT / "examples"), *arts).stdout)
    return out, truth


def test_article_003_gives_what_check_gives(tmp_path):
    """Article 003 as well: the same records as check, or the same one-line error."""
    art = ("--article", str(SEEDS / "003_de90d9f4095cfd5d.txt"))
    specs = [str(p) for p in sorted((ROOT / "examples").glob("003-*.toml"))]
    out = tmp_path / "003.html"
    rep = symattn("report", *specs, *art, "-o", str(out), "--no-diagnosis", check=False)
    chk = symattn("check", *specs, *art, "--json", "--no-diagnosis", check=False)
    if chk.returncode == 2:
        assert rep.returncode == 2 and rep.stderr == chk.stderr and not out.exists()
        return
    truth = json.loads(chk.stdout)
    html = out.read_text(encoding="utf-8")
    n = len(re.findall(r'<button type="button" class="num v-(?!unmatched)\w+" id="r\d+"', html))
    assert n == len(truth["claims"])


def test_every_record_is_marked_once(browser, corpus):
    path, truth = corpus
    o = Opened(browser, path)
    try:
        marks = o.page.eval_on_selector_all(
            "button.num[data-verdict]:not([data-verdict=unmatched])",
            "els => els.map(e => [e.dataset.example, e.dataset.line, e.dataset.verdict])")
        want = Counter((c["example"], str(c["line"]), c["verdict"]) for c in truth["claims"])
        assert len(marks) == len(truth["claims"]) == truth["summary"]["claims"]
        assert Counter(tuple(m) for m in marks) == want
        for verdict in ("correct", "carried", "wrong"):
            n = o.page.locator(f"main button.num[data-verdict={verdict}][data-line]").count()
            assert n == truth["summary"][verdict]
        unmatched = o.page.locator("main button.num[data-verdict=unmatched]").count()
        assert unmatched == len(truth.get("unmatched", []))
        assert o.requests == [path.as_uri()]          # nothing else was even asked for
        assert o.errors == []
    finally:
        o.close()


def test_each_bundled_example_by_step_on_a_phone(browser, tmp_path):
    """Without --article: every bundled example's claims by step, one mark per record of
    check --json (per example), on a phone-sized screen that does not scroll sideways."""
    out = tmp_path / "by-step.html"
    symattn("report", "-o", str(out), "--no-diagnosis")
    truth = json.loads(symattn("check", "--json", "--no-diagnosis").stdout)
    o = Opened(browser, out, 420, 800)
    try:
        marks = o.page.eval_on_selector_all(
            "main button.num[data-line]", "els => els.map(e => e.dataset.example)")
        assert Counter(marks) == Counter(c["example"] for c in truth["claims"])
        assert len(Counter(marks)) == len(list((ROOT / "examples").glob("*.toml")))
        assert o.requests == [out.as_uri()]
        width = o.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 420, "the page scrolls sideways on a phone"
    finally:
        o.close()


def test_clicking_a_wrong_number_shows_its_diagnosis(browser, corpus):
    path, truth = corpus
    wrong = [c for c in truth["claims"] if c["verdict"] == "wrong"]
    assert wrong
    o = Opened(browser, path)
    try:
        panel = o.page.locator("#panel")
        assert panel.is_hidden()
        o.page.locator("main button.num[data-verdict=wrong]").first.click()
        assert panel.is_visible()
        text = panel.inner_text()
        first = min(wrong, key=lambda c: (c["source"], c["line"]))
        assert first["expected"] in text and first["exact"] in text
        diag = first["diagnosis"]
        assert (diag[0] if diag else "no known mistake reproduces it") in text
        assert panel.locator("math").count() >= 1      # the step's LaTeX as MathML
        o.page.keyboard.press("Escape")
        assert panel.is_hidden()
        o.page.locator("#corrections + ol a").first.click()         # a correction's link
        panel.wait_for(state="visible", timeout=10_000)             # opened on 'hashchange', later
        assert first["expected"] in panel.inner_text()
        assert o.page.evaluate("document.activeElement.dataset.verdict") == "wrong"
        o.page.keyboard.press("Escape")
        o.page.locator("main button.num[data-verdict=correct]").first.focus()
        assert panel.is_visible() and "correct" in panel.inner_text()
    finally:
        o.close()


def test_screenshot_is_not_blank(browser, corpus, tmp_path):
    from PIL import Image
    path, _ = corpus
    o = Opened(browser, path)
    try:
        shot = tmp_path / "shot.png"
        o.page.screenshot(path=str(shot))
        im = Image.open(shot).convert("RGB").resize((200, 160))
        colors = im.getcolors(maxcolors=200 * 160)
        assert len(colors) > 50                         # text, marks, table: not one colour
        assert max(n for n, _ in colors) < 0.9 * 200 * 160
    finally:
        o.close()


def _softmax_masked_truth(spec: Path) -> list[list[str | None]]:
    """002-causal-mask: softmax(X Xᵀ + causal mask), by mpmath from the TOML inputs."""
    mpmath.mp.dps = 40
    X = [[mpmath.mpf(str(v)) for v in row] for row in tomllib.loads(spec.read_text())["inputs"]["X"]["value"]]
    n = len(X)
    out = []
    for i in range(n):
        s = [sum(a * b for a, b in zip(X[i], X[j])) for j in range(i + 1)]
        e = [mpmath.exp(v) for v in s]
        t = sum(e)
        out.append([mpmath.nstr(v / t, 30) for v in e] + [None] * (n - i - 1))
    return out


def test_heatmap_cells_match_independent_values(browser, corpus):
    path, _ = corpus
    truth = _softmax_masked_truth(ROOT / "examples" / "002-causal-mask.toml")
    o = Opened(browser, path)
    try:
        fig = o.page.locator("figure.heatmap[data-step=Am]")
        assert fig.count() == 1
        for i, row in enumerate(truth):
            for j, want in enumerate(row):
                text = o.page.eval_on_selector_all(
                    f"[id='hm-002-causal-mask-Am-cell-{i}-{j}'] text",
                    "els => els.map(e => e.textContent).join(' ')")
                if want is None:
                    assert "masked" in text
                    continue
                shown = text.split()[0]
                places = Decimal(shown).as_tuple().exponent
                assert places <= -2
                assert Decimal(shown) == Decimal(want).quantize(Decimal(1).scaleb(places),
                                                                 rounding=ROUND_HALF_UP)
    finally:
        o.close()


HOSTILE_SPEC = """
[example]
id = "hostile"
title = "<script>window.__pwned = 1</script> title"
source = "hostile.txt"
tokens = ["<script>window.__pwned=2</script>", "<img src=x onerror=window.__pwned=3>"]

[inputs]
X = { value = [[1, 0], [0, 1]], rows = "tokens", line = 1 }

[[steps]]
name = "S"
expr = "X @ X.T"

[[steps]]
name = "A"
expr = "softmax(S)"

[[claims]]
step = "A"
at = "<script>window.__pwned=2</script>"
printed = "[0.7311, 0.2689]"
line = 2
"""

HOSTILE_ARTICLE = ("<script>window.__pwned = 4</script> an article\n"
                   "weights 0.7311 and 0.2689 <img src=x onerror=\"window.__pwned=5\">\n")


def test_script_in_article_or_label_is_text(browser, tmp_path):
    spec = tmp_path / "hostile.toml"
    spec.write_text(HOSTILE_SPEC)
    art = tmp_path / "hostile.txt"
    art.write_text(HOSTILE_ARTICLE)
    out = tmp_path / "hostile.html"
    p = symattn("report", str(spec), "--article", str(art), "-o", str(out))
    assert p.returncode == 0, p.stderr
    o = Opened(browser, out)
    try:
        assert o.page.evaluate("window.__pwned") is None
        body = o.page.locator("main").inner_text()
        assert "<script>window.__pwned = 4</script>" in body
        assert "<img src=x onerror=" in body
        assert o.page.locator("main script, main img, svg script").count() == 0
        checked = "button.num[data-line='2']:not([data-verdict=unmatched])"
        assert o.page.locator(checked).count() == 2
        o.page.locator(checked).first.click()
        assert o.page.evaluate("window.__pwned") is None
        assert o.requests == [out.as_uri()]
    finally:
        o.close()


# -- the per-number table, the phone, rendered articles (issue 23, item 5) -----------------

def _truth_rows(truth) -> Counter:
    rows = Counter((str(c["line"]), c["printed"], c["verdict"]) for c in truth["claims"])
    rows.update((str(u["line"]), u["text"], "unmatched") for u in truth.get("unmatched", []))
    return rows


def _download(page) -> list[dict]:
    import csv
    import io
    with page.expect_download() as d:
        page.locator("#csv").click()
    text = Path(d.value.path()).read_text(encoding="utf-8-sig")
    assert d.value.suggested_filename.endswith(".csv")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_numbers_table_filters_sorts_and_downloads_csv(browser, corpus):
    """Every record of check --json is a row; unticking verdicts hides rows; the CSV the page
    makes (no request) holds the rows shown, exact values in full; headings sort."""
    path, truth = corpus
    o = Opened(browser, path)
    try:
        page = o.page
        rows = page.locator("#numbers-table tbody tr")
        assert rows.count() == sum(_truth_rows(truth).values())
        every = _download(page)
        assert Counter((r["line"], r["printed"], r["verdict"]) for r in every) == _truth_rows(truth)
        full = Counter((r["example"], r["step"], r["at"], r["line"], r["printed"], r["exact"])
                       for r in every if r["verdict"] != "unmatched")
        assert full == Counter((c["example"], c["step"], ", ".join(str(a) for a in c["at"]),
                                str(c["line"]), c["printed"], c["exact"]) for c in truth["claims"])
        for box in page.locator(".filters input[name=verdict]").all():
            if box.get_attribute("value") != "wrong":
                box.uncheck()
        wrong = [c for c in truth["claims"] if c["verdict"] == "wrong"]
        assert page.locator("#numbers-table tbody tr:visible").count() == len(wrong)
        assert f"{len(wrong)} of {rows.count()} rows shown" in page.locator("#shown").inner_text()
        shown = _download(page)
        assert sorted((r["line"], r["printed"], r["expected"]) for r in shown) == \
            sorted((str(c["line"]), c["printed"], c["expected"]) for c in wrong)
        assert all(r["note"] for r in shown)                    # the diagnosis, or that none is known
        for box in page.locator(".filters input[name=verdict]").all():
            box.check()
        lines = "els => els.map(e => e.cells[0].textContent)"
        page.locator("#numbers-table th[data-key=line] button").click()
        up = [int(x) for x in page.eval_on_selector_all("#numbers-table tbody tr", lines)]
        assert up == sorted(up)
        page.locator("#numbers-table th[data-key=line] button").click()
        down = [int(x) for x in page.eval_on_selector_all("#numbers-table tbody tr", lines)]
        assert down == sorted(up, reverse=True)
        assert page.locator("#numbers-table th[data-key=line]").get_attribute("aria-sort") == "descending"
        assert [u for u in o.requests if not u.startswith("data:")] == [path.as_uri()]
        assert o.errors == []
    finally:
        o.close()


def test_summary_and_panel_on_a_390px_phone(browser, corpus, tmp_path):
    """At 390 px every example's wrong count is on screen, the page does not scroll sideways,
    and a number tapped near the bottom stays visible above the panel."""
    path, truth = corpus
    o = Opened(browser, path, 390, 844)
    try:
        page = o.page
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        cells = page.locator("table.counts td.c-wrong:visible")
        examples = {c["example"] for c in truth["claims"]}
        assert cells.count() >= len(examples) + 1                 # each example and the total
        for k in range(cells.count()):
            box = cells.nth(k).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
        total = page.locator("table.counts tr.total td.c-wrong").inner_text()
        assert total.split()[-1] == str(truth["summary"]["wrong"])
        target = page.locator("main .art button.num[data-verdict=wrong]").first
        y = target.evaluate("e => e.getBoundingClientRect().top + window.scrollY")
        page.evaluate(f"window.scrollTo(0, {y} - 780)")          # near the bottom of the screen
        target.click()
        panel = page.locator("#panel").bounding_box()
        box = target.bounding_box()
        assert panel["y"] > 0 and box["y"] >= 0 and box["y"] + box["height"] <= panel["y"]
        page.screenshot(path=str(tmp_path / "phone.png"))
    finally:
        o.close()


RENDER_SPEC = """
[example]
id = "w"
title = "two tokens"
source = "{name}"
tokens = ["a", "b"]

[inputs]
X = {{ value = [[1, 0], [0, 1]], rows = "tokens", line = 1 }}

[[steps]]
name = "A"
expr = "softmax(X @ X.T)"
"""

RENDER_MD = """# Weights <script>window.__pwned = 6</script>

The weights of *a* are **0.7311** and 0.2689, see [the note](https://example.com/x).

| token | first | second |
|---|---|---|
| b | 0.2689 | 0.7412 |

![a picture](https://example.com/p.png)
"""


def _notebook(path: Path):
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("## Row a <img src=x onerror=window.__pwned=7>\n\n"
                                              "The first row is **0.7311** and 0.2689."),
                nbformat.v4.new_code_cell("print(A)")]
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout",
                                                  text="[[0.7311, 0.2689],\n [0.2689, 0.7412]]\n")]
    nbformat.write(nb, str(path))


@pytest.mark.parametrize("name", ["w.md", "w.ipynb"])
def test_markdown_and_notebooks_rendered_with_their_marks(browser, tmp_path, name):
    """Markdown as a reader sees it (heading, bold, table), a notebook's cells and outputs;
    one mark per record of check --json, inert HTML, no link or image to follow."""
    spec = tmp_path / "w.toml"
    spec.write_text(RENDER_SPEC.format(name=name))
    art = tmp_path / name
    if name.endswith(".md"):
        art.write_text(RENDER_MD)
    else:
        _notebook(art)
    out = tmp_path / "w.html"
    symattn("report", str(spec), "--article", str(art), "-o", str(out))
    truth = json.loads(symattn("check", str(spec), "--article", str(art), "--json").stdout)
    o = Opened(browser, out)
    try:
        page = o.page
        marks = page.eval_on_selector_all(
            "main .art button.num", "els => els.map(e => [e.dataset.line, e.textContent, e.dataset.verdict])")
        assert Counter(tuple(m) for m in marks) == _truth_rows(truth)
        assert page.locator(".art strong button.num[data-verdict=correct]").count() == 1   # **0.7311**
        if name.endswith(".md"):
            assert page.locator(".art h1").inner_text().startswith("Weights <script>")
            assert page.locator(".art table td button.num[data-verdict=wrong]").inner_text() == "0.7412"
            assert "[image: a picture]" in page.locator(".art").inner_text()
        else:
            assert page.locator(".art .cell-markdown h2").inner_text().startswith("Row a <img")
            assert page.locator(".art .cell-code .output button.num[data-verdict=wrong]").inner_text() == "0.7412"
        assert page.locator(".art a[href^=http], .art img, .art script").count() == 0
        assert page.evaluate("window.__pwned") is None
        page.locator(".art button.num[data-verdict=wrong]").click()
        assert "0.7311" in page.locator("#panel").inner_text()      # the expected print
        assert o.requests == [out.as_uri()] and o.errors == []
    finally:
        o.close()


FORMULA_SPEC = """
[example]
id = "formula"
title = "labels a spreadsheet would run"
source = "f.txt"
tokens = ["=1+2", "@SUM(A1)"]

[inputs]
X = { value = [[1, 0], [0, 1]], rows = "tokens", line = 1 }

[[steps]]
name = "A"
expr = "softmax(X @ X.T)"

[[claims]]
step = "A"
at = "=1+2"
printed = "[0.7311, 0.2689]"
line = 1
"""


def test_csv_cells_a_spreadsheet_would_run_are_quoted(browser, tmp_path):
    spec = tmp_path / "f.toml"
    spec.write_text(FORMULA_SPEC)
    out = tmp_path / "f.html"
    symattn("report", str(spec), "-o", str(out), "--no-diagnosis")
    o = Opened(browser, out)
    try:
        rows = _download(o.page)
        assert [r["at"] for r in rows] == ["'=1+2, =1+2", "'=1+2, @SUM(A1)"]
        assert [r["printed"] for r in rows] == ["0.7311", "0.2689"]     # numbers as they are
    finally:
        o.close()

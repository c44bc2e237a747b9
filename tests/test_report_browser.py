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
        assert panel.is_visible() and first["expected"] in panel.inner_text()
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

"""The LaTeX that `symattn latex` writes, put through real renderers.

- KaTeX (node + the npm package katex, ``throwOnError: true``, ``strict: "error"``) renders
  every formula the bundled examples produce, in every mode; all formulas go to one node
  process.
- LuaLaTeX (TeX Live, luatexja) compiles every bundled example's standalone document with
  its Japanese labels: the documents share one preamble, so their bodies are compiled
  together in one run, and one document is compiled exactly as written, turned into PNG by
  pdftoppm and checked not to be blank.

``.ci/install-renderers.sh`` installs the tools (CI runs it). Locally a missing tool skips
these tests with the reason; under CI=true a missing tool is a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from symattn.errors import LimitError
from symattn.render.latex import document
from symattn.render.latex_document import TEX_PREAMBLE

from test_latex_steps import ALL_OPS          # a spec that uses every operation

pytestmark = pytest.mark.render

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
KATEX_DIR = Path(os.environ.get("SYMATTN_KATEX_DIR", ROOT / ".ci" / "node" / "node_modules" / "katex"))
INSTALL = "run .ci/install-renderers.sh (as root) to install it"


def need(ok: bool, what: str):
    if ok:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is missing on CI: .ci/install-renderers.sh should have installed it")
    pytest.skip(f"{what} is not installed; {INSTALL}")


# -- KaTeX ------------------------------------------------------------------------------

KATEX_SCRIPT = r"""
const katex = require(process.argv[2]);
let data = "";
process.stdin.on("data", d => data += d);
process.stdin.on("end", () => {
  const formulas = JSON.parse(data);
  const failures = [];
  for (const [where, tex] of formulas) {
    try {
      katex.renderToString(tex, {displayMode: true, throwOnError: true, strict: "error"});
    } catch (e) {
      failures.push([where, String(e.message).slice(0, 400)]);
    }
  }
  process.stdout.write(JSON.stringify({count: formulas.length, failures}));
});
"""


def katex_render(formulas: list[tuple[str, str]], tmp_path) -> dict:
    need(shutil.which("node") is not None, "node")
    need((KATEX_DIR / "package.json").exists(), f"the npm package katex ({KATEX_DIR})")
    script = tmp_path / "render.js"
    script.write_text(KATEX_SCRIPT, encoding="utf-8")
    out = subprocess.run(["node", str(script), str(KATEX_DIR)], input=json.dumps(formulas),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def sources(tmp_path) -> list:
    ops = tmp_path / "all-ops.toml"
    ops.write_text(ALL_OPS, encoding="utf-8")
    return EXAMPLES + [ops]


def all_formulas(paths) -> list[tuple[str, str]]:
    formulas = []
    for path in paths:
        for mode, opts in (("digits", {}), ("corrections", {"corrections": True}),
                           ("all rows", {"rows": "all", "digits": 6}), ("exact", {"exact": True})):
            try:
                doc = document(path, **opts)
            except LimitError:
                assert mode == "exact"          # a closed form too large is refused, by design
                continue
            formulas += [(f"{path.name} [{mode}] #{k}", f) for k, f in enumerate(doc.formulas())]
    return formulas


def test_katex_renders_every_formula_of_the_bundled_examples(tmp_path):
    """All formulas of every bundled example (and of a spec using every operation)."""
    formulas = all_formulas(sources(tmp_path))
    assert len(formulas) > 300
    res = katex_render(formulas, tmp_path)
    assert res["count"] == len(formulas)
    assert res["failures"] == [], "\n".join(f"{w}: {m}" for w, m in res["failures"][:10])


def test_katex_refuses_what_it_should(tmp_path):
    """The harness really reports errors (an undefined macro, unbalanced braces)."""
    res = katex_render([("bad macro", r"\notamacro{1}"), ("braces", r"\frac{1}{"),
                        ("good", r"\begin{bmatrix} 1 & -\infty \end{bmatrix}")], tmp_path)
    assert [w for w, _ in res["failures"]] == ["bad macro", "braces"]


def test_markdown_blocks_hold_exactly_the_formulas():
    doc = document(ROOT / "examples" / "002-causal-mask.toml")
    md = doc.markdown()
    blocks = re.findall(r"^\$\$\n(.*?)\n\$\$$", md, re.S | re.M)
    assert blocks == doc.formulas()
    for b in blocks:
        assert "\n\n" not in b           # a blank line would end the block in Markdown


# -- LuaLaTeX ---------------------------------------------------------------------------

def lualatex(tex: str, folder: Path, name: str) -> tuple[subprocess.CompletedProcess, str]:
    need(shutil.which("lualatex") is not None, "lualatex (texlive-luatex)")
    kpse = subprocess.run(["kpsewhich", "luatexja.sty"], capture_output=True, text=True)
    need(bool(kpse.stdout.strip()), "luatexja (texlive-lang-japanese)")
    (folder / f"{name}.tex").write_text(tex, encoding="utf-8")
    out = subprocess.run(["lualatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
                         cwd=folder, capture_output=True, text=True, timeout=600)
    log = (folder / f"{name}.log").read_text(encoding="utf-8", errors="replace")
    return out, log


def body(tex: str) -> str:
    return tex.split(r"\begin{document}", 1)[1].rsplit(r"\end{document}", 1)[0]


def test_every_bundled_example_compiles_with_lualatex(tmp_path):
    docs = []
    for path in sources(tmp_path):
        tex = document(path, format="tex", corrections=True).tex()
        assert tex.startswith(TEX_PREAMBLE)      # one preamble: the bodies can share a run
        assert tex.rstrip().endswith(r"\end{document}")
        docs.append((path.name, body(tex)))
    combined = TEX_PREAMBLE + r"\begin{document}" + "\n".join(
        "\n" + rf"% ---- {name}" + "\n" + b + "\n\\clearpage" for name, b in docs) + "\n\\end{document}\n"
    out, log = lualatex(combined, tmp_path, "corpus")
    assert out.returncode == 0, _tex_error(log)
    assert (tmp_path / "corpus.pdf").exists()
    assert "Missing character" not in log, _missing(log)
    pages = int(re.search(r"Output written on corpus\.pdf \((\d+) pages?", log).group(1))
    assert pages >= len(docs)


def test_a_standalone_document_compiles_and_its_page_is_not_blank(tmp_path):
    tex = document(ROOT / "examples" / "003-ch8-vocab-softmax.toml", format="tex",
                   corrections=True).tex()
    out, log = lualatex(tex, tmp_path, "vocab")
    assert out.returncode == 0, _tex_error(log)
    assert "Missing character" not in log, _missing(log)
    pdf = tmp_path / "vocab.pdf"
    need(shutil.which("pdftoppm") is not None, "pdftoppm (poppler-utils)")
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True).stdout
    assert re.search(r"HaranoAji|Noto.*CJK|IPA|Mincho|Gothic", fonts), fonts   # 猫, 眠る typeset
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "1",
                    str(pdf), str(tmp_path / "page")], check=True, timeout=120)
    png = next(tmp_path.glob("page*.png"))
    width, height, pixels = read_png(png.read_bytes())
    dark = sum(1 for p in pixels if p < 128)
    assert width > 300 and height > 400
    assert dark > 0.002 * width * height, f"only {dark} dark pixels: the page is blank"
    assert min(pixels) < 64 and max(pixels) > 250


def read_png(data: bytes) -> tuple[int, int, bytes]:
    """Width, height and gray levels (0 black .. 255 white) of an 8-bit gray or RGB PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, bpp = 8, b"", 0, 0, 1
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and color in (0, 2), f"depth {depth}, color type {color}"
            bpp = 1 if color == 0 else 3
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp + 1
    prev = bytearray(width * bpp)
    gray = bytearray()
    for y in range(height):
        f, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
        for x in range(len(line)):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        gray += bytes(sum(line[x:x + bpp]) // bpp for x in range(0, len(line), bpp))
        prev = line
    return width, height, bytes(gray)


def _tex_error(log: str) -> str:
    lines = log.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("!"):
            return "\n".join(lines[k:k + 12])
    return "\n".join(lines[-30:])


def _missing(log: str) -> str:
    return "\n".join(l for l in log.splitlines() if "Missing character" in l)[:2000]

"""The docs run: every fenced block of README.md and docs/*.md that shows a command, a spec
or Python is executed, and what it shows as output is compared with what it prints.

Kinds of block (found by their info string and content, so new sections are covered):
- ``python``: run in a fresh interpreter; a run of full-line comments right after a
  ``print(...)`` statement is what that print shows;
- ``sh``/``bash``/``shell``/``console``, or any block whose first line starts with ``$ ``:
  with ``$ `` prompts, each command's following lines are its output (stdout and stderr);
  without prompts, each line is a command that must succeed;
- ``toml`` with an ``[example]`` table: a spec, checked by ``symattn check``; other TOML
  (an ``[inputs]`` table, say) must parse.
Shown output is compared as doctest does with ELLIPSIS and NORMALIZE_WHITESPACE: ``...``
stands for any text. Exit status 0 passes, 1 too for ``symattn check`` and ``report`` (wrong printed
numbers are its finding); 2 only when the shown output is the error line ``symattn: ...``.

A block that cannot run in a test (an install, a multi-minute benchmark) is excluded by
``<!-- no-run -->`` on the line above its fence; output-only blocks and LaTeX quotes are
not commands and are not run. Commands run in a temporary folder that links the
repository's top-level folders (``examples/``, ``docs/``, ...), with ``../shared`` beside it
as beside a clone, and ``symattn`` and ``python`` meaning this checkout.
"""

from __future__ import annotations

import ast
import doctest
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

# A block may use what an earlier one wrote (love.toml): one worker runs them all, in order.
pytestmark = pytest.mark.xdist_group("docs")

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
NO_RUN = "<!-- no-run -->"
SHELL = {"sh", "bash", "shell", "console", "shell-session"}
TIMEOUT = 600
_CHECKER = doctest.OutputChecker()
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass(frozen=True)
class Block:
    path: Path
    line: int          # the line of the opening fence
    info: str
    text: str
    no_run: bool

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def kind(self) -> str | None:
        first = self.text.lstrip("\n").split("\n", 1)[0]
        if self.info == "python":
            return "python"
        if self.info in SHELL or first.startswith("$ "):
            return "shell"
        if self.info == "toml":
            return "spec" if re.search(r"^\[example\]", self.text, re.M) else "toml"
        return None


def blocks(path: Path) -> list[Block]:
    out, lines = [], path.read_text(encoding="utf-8").split("\n")
    k = 0
    while k < len(lines):
        m = re.match(r"^(`{3,})\s*([\w-]*)", lines[k])
        if not m:
            k += 1
            continue
        fence, start = m.group(1), k
        end = next((j for j in range(k + 1, len(lines)) if lines[j].startswith(fence)), len(lines))
        above = next((lines[j].strip() for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        out.append(Block(path, start + 1, m.group(2), "\n".join(lines[start + 1:end]) + "\n",
                         above == NO_RUN))
        k = end + 1
    return out


ALL = [b for p in DOCS for b in blocks(p)]
RUN = [b for b in ALL if b.kind and not b.no_run]


# -- where things run --------------------------------------------------------------------

@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A folder linking the repository's top-level entries, with symattn and python on PATH."""
    d = tmp_path_factory.mktemp("docs") / "repo"      # ../shared beside it, as beside a clone
    d.mkdir()
    if (ROOT.parent / "shared").is_dir():
        (d.parent / "shared").symlink_to(ROOT.parent / "shared")
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (d / entry.name).symlink_to(entry)
    bin_ = tmp_path_factory.mktemp("bin")
    (bin_ / "python").symlink_to(sys.executable)
    shim = bin_ / "symattn"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m symattn "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8", COLUMNS="200")
    env.pop("NO_COLOR", None)
    return d, env


def _same(want: str, got: str) -> bool:
    return _CHECKER.check_output(want.strip() + "\n", got.strip() + "\n", _FLAGS)


def _diff(want: str, got: str) -> str:
    return f"\n--- shown ---\n{want.strip()}\n--- printed ---\n{got.strip()}\n"


# -- python ----------------------------------------------------------------------------------

def expected_prints(code: str) -> str:
    """What the block says it prints: per print statement, the comments right after it
    (``...`` for a print whose output is not shown)."""
    lines = code.split("\n")
    shown = []
    for node in ast.parse(code).body:
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", None) == "print"):
            continue
        out, k = [], node.end_lineno          # 0-based index of the line after the statement
        while k < len(lines) and lines[k].lstrip().startswith("#"):
            out.append(lines[k].lstrip()[1:].removeprefix(" "))
            k += 1
        shown.append("\n".join(out) if out else "...")
    return "\n".join(shown)


def run_python(block: Block, workdir) -> None:
    d, env = workdir
    r = subprocess.run([sys.executable, "-c", block.text], cwd=d, env=env, capture_output=True,
                       text=True, timeout=TIMEOUT)
    assert r.returncode == 0, f"{block.id}: exit {r.returncode}\n{r.stderr[-3000:]}"
    want = expected_prints(block.text)
    assert _same(want, r.stdout), block.id + _diff(want, r.stdout)


# -- shell ---------------------------------------------------------------------------------

def commands(text: str) -> list[tuple[str, str | None]]:
    """(command, shown output or None) for a block with ``$ `` prompts, or one per line."""
    lines = text.strip("\n").split("\n")
    if not lines[0].startswith("$ "):
        return [(l, None) for l in lines if l.strip() and not l.lstrip().startswith("#")]
    out = []
    for line in lines:
        if line.startswith("$ "):
            out.append([line[2:], []])
        else:
            out[-1][1].append(line)
    return [(c, "\n".join(o)) for c, o in out]


def _ok_status(command: str, status: int, shown: str | None) -> bool:
    if status == 0:
        return True
    if status == 1:
        return bool(re.search(r"\bsymattn (?:check|report)\b", command))   # wrong numbers found
    return status == 2 and shown is not None and shown.lstrip().startswith("symattn: ")


def run_shell(block: Block, workdir) -> None:
    d, env = workdir
    for command, shown in commands(block.text):
        r = subprocess.run(["bash", "-c", command], cwd=d, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT)
        assert _ok_status(command, r.returncode, shown), \
            f"{block.id}: `{command}` exit {r.returncode}\n{r.stdout[-3000:]}"
        if shown is not None:
            assert _same(shown, r.stdout), f"{block.id}: `{command}`" + _diff(shown, r.stdout)


# -- specs -----------------------------------------------------------------------------------

def run_spec(block: Block, workdir) -> None:
    d, env = workdir
    path = d / f"spec-{block.path.stem}-{block.line}.toml"
    path.write_text(block.text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "symattn", "check", str(path)], cwd=d, env=env,
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode in (0, 1), f"{block.id}: symattn check: exit {r.returncode}\n{r.stderr}"


# -- the tests ---------------------------------------------------------------------------------

@pytest.mark.parametrize("block", RUN, ids=[b.id for b in RUN])
def test_block_runs_and_prints_what_it_shows(block, workdir):
    if block.kind == "python":
        run_python(block, workdir)
    elif block.kind == "shell":
        run_shell(block, workdir)
    elif block.kind == "spec":
        run_spec(block, workdir)
    else:
        tomllib.loads(block.text)


def test_docs_have_runnable_blocks_and_few_exclusions():
    kinds = {b.kind for b in RUN}
    assert {"python", "shell", "spec"} <= kinds
    excluded = [b.id for b in ALL if b.no_run]
    assert len(excluded) <= max(4, (len(RUN) + len(excluded)) // 4), \
        f"too many <!-- no-run --> blocks: {excluded}"


def test_expected_prints_reads_comments_after_print():
    code = 'x = 1\nprint(x)   # note\n# 1\nprint(\n  2)\n# 2\n#   more\nprint(3)\ny = 2\n'
    assert expected_prints(code) == "1\n2\n  more\n..."
    assert _same("[['a',\n  'b']]", "[['a', 'b']]") and not _same("1", "2")
    assert _same("A\n...\nZ", "A\nB\nC\nZ")

"""Reading a spec file: TOML with exact numbers, validated, with line numbers for errors.

Numbers never pass through a binary float: TOML floats reach us as their decimal text
(``parse_float``) and become ``Fraction``. Every problem is a :class:`SpecError` naming the
file and the line.
"""

from __future__ import annotations

import bisect
import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from . import expr as E
from .build import build, as_tensor
from .functions import check_entries
from ..errors import SymattnError, SpecError, LimitError
from ..numbers import parse_exact, normalize_minus, shown, exact, MAX_DIGITS
from ..tensor import Tensor, NEG_INF
from ..evaluation.rounding import MODES

MAX_FILE_BYTES = 4_000_000
MAX_STEP_CHAIN = 256        # steps in the longest chain of steps that use each other
NAME = re.compile(r"[^\W\d]\w*")
RESERVED = {"inf"}
# Text a report or a message shows must not move the cursor, colour the terminal or
# reorder what follows: control characters and bidirectional overrides are refused.
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


class _DecimalText(str):
    """A TOML float kept as its text."""


@dataclass
class Step:
    name: str
    expr_text: str
    tree: object
    line: int                      # line of the spec file
    article_line: int | None = None
    decimals: int | None = None
    rows: tuple | None = None
    cols: tuple | None = None
    note: str = ""
    latex: str | None = None       # how the step's name is typeset (``\\sigma^2``)


@dataclass
class Claim:
    index: int
    step: str
    at: object
    printed: str
    line: int                      # line of the article
    spec_line: int
    decimals: int | None = None
    rounding: str | None = None
    note: str = ""
    columns: tuple | None = None   # found in the article: the column of each printed entry
    found: bool = False


@dataclass
class Spec:
    path: str
    id: str
    title: str
    source: str
    rounding: str
    tokens: tuple | None
    lines: tuple | None = None                        # ((first, last), …) of the article
    inputs: dict = field(default_factory=dict)        # name -> Tensor
    input_lines: dict = field(default_factory=dict)   # name -> spec line
    rounded: dict = field(default_factory=dict)       # name -> decimals of each entry (a printout)
    steps: list = field(default_factory=list)         # [Step]
    claims: list = field(default_factory=list)        # [Claim]
    tensors: dict = field(default_factory=dict)       # name -> Tensor (inputs and steps)
    latex: dict = field(default_factory=dict)         # name -> LaTeX of its symbol (``latex = ...``)

    _step_index: dict = field(default_factory=dict, repr=False, compare=False)

    def where(self, line: int | None) -> str:
        return f"{self.path}:{line}" if line else self.path

    def step(self, name: str) -> Step | None:
        if len(self._step_index) != len(self.steps):
            self._step_index = {s.name: s for s in self.steps}
        return self._step_index.get(name)


def read_text(path: str) -> str:
    return decode(read_regular(path, MAX_FILE_BYTES, "a spec file"), path)


def read_regular(path: str, limit: int, what: str = "a file") -> bytes:
    """At most ``limit`` + 1 bytes of the regular file ``path``; a FIFO, a socket or a
    device is refused in one line before anything is read, so no read can block or stream
    forever (the file is opened without blocking, then checked with fstat)."""
    import os
    import stat
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise SpecError("no such file", where=path) from None
    except IsADirectoryError:
        raise SpecError(f"is a folder, not {what}", where=path) from None
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}", where=path) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise SpecError(f"is a folder, not {what}", where=path)
        if not stat.S_ISREG(mode):
            raise SpecError("is not a regular file (a pipe, a socket or a device)", where=f"{path}:1",
                            hint="save it to a file first")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}", where=path) from None
    finally:
        os.close(fd)


def decode(data: bytes, path: str) -> str:
    """The text of a spec file's bytes: at most MAX_FILE_BYTES of UTF-8, without a byte-order
    mark or NUL bytes (errors name ``path`` and the line)."""
    if len(data) > MAX_FILE_BYTES:
        line = data.count(b"\n", 0, MAX_FILE_BYTES) + 1
        raise LimitError(f"the file is longer than {MAX_FILE_BYTES} bytes (line {line} passes it)",
                         where=f"{path}:{line}",
                         hint="split it or raise symattn.spec.load.MAX_FILE_BYTES on purpose")
    if data.startswith(b"\xef\xbb\xbf"):
        raise SpecError("the file starts with a byte-order mark", where=f"{path}:1",
                        hint="save it as UTF-8 without BOM")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise SpecError("the file contains a NUL byte", where=f"{path}:{line}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise SpecError(f"invalid UTF-8 at byte {e.start}", where=f"{path}:{line}",
                        hint="save the file as UTF-8") from None


def _table_lines(text: str, name: str) -> list[int]:
    pat = re.compile(r"^\s*\[\[\s*" + re.escape(name) + r"\s*\]\]", re.M)
    lines, strings = _Lines(text), _MultilineStrings.of(text)
    return [lines.line(m.end()) for m in pat.finditer(text) if not strings.inside(m.end())]


class _MultilineStrings:
    """The spans of a text's multi-line strings (\"\"\"…\"\"\" and '''…'''), found in one
    scan that skips comments and one-line strings: a header or a key written inside one is
    text, not TOML, and must not move the lines of the real ones."""

    _last: tuple = (None, None)

    def __init__(self, text: str):
        self.starts, self.ends = [], []
        for m in _TOML_SCAN.finditer(text):
            if m.group().startswith(('"""', "'''")):
                self.starts.append(m.start())
                self.ends.append(m.end())

    @classmethod
    def of(cls, text: str) -> "_MultilineStrings":
        if cls._last[0] is not text:
            cls._last = (text, cls(text))
        return cls._last[1]

    def inside(self, pos: int) -> bool:
        k = bisect.bisect_right(self.starts, pos) - 1
        return k >= 0 and pos < self.ends[k]


_KEY = re.compile(r"""^[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([A-Za-z0-9_-]+))[ \t]*[=.]""", re.M)


def _key_lines(text: str, start: int = 0) -> dict[str, int]:
    """The line of each key written at the start of a line, from ``start`` on (first one wins)."""
    out: dict[str, int] = {}
    lines, strings = _Lines(text), _MultilineStrings.of(text)
    for m in _KEY.finditer(text, start):
        if strings.inside(m.start()):
            continue
        key = next(g for g in m.groups() if g is not None)
        if m.group(1) is not None and "\\" in key:         # "a\nb": TOML says what it means
            try:
                key = tomllib.loads(f'k = "{key}"')["k"]
            except tomllib.TOMLDecodeError:
                continue
        out.setdefault(key, lines.line(m.start()))
    return out


class _Lines:
    """Line numbers of positions in a text (1-based), by bisection."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)


def _text(v, where: str, what: str, multiline: bool = False) -> str:
    """A string of the spec that a message or a report shows: no control characters."""
    if not isinstance(v, str):
        raise SpecError(f"{what} must be text", where=where)
    bad = next((c for c in v if (unicodedata.category(c) == "Cc" and not (multiline and c in "\n\t"))
                or c in _BIDI), None)
    if bad is not None:
        raise SpecError(f"{what} '{shown(v)}' contains the control character {bad!r}", where=where,
                        hint="labels and names are printed text")
    return v


def _number(v, where: str):
    if isinstance(v, bool):
        raise SpecError(f"{v!r} is not a number", where=where)
    if isinstance(v, int):
        try:
            return exact(v)                       # the digit limit of every number
        except SymattnError as e:
            raise e.located(where) from None
    if isinstance(v, str):
        t = normalize_minus(v.strip())
        if t in ("-inf", "-∞"):
            return NEG_INF
        if isinstance(v, _DecimalText) and t.lstrip("+-") in ("inf", "nan"):
            raise SpecError(f"'{v}' is not a finite number", where=where,
                            hint="write −∞ as the string \"-inf\" in a mask")
        try:
            return parse_exact(t)
        except SymattnError as e:
            raise e.located(where) from None
    raise SpecError(f"{shown(repr(v))} is not a number", where=where)


def _matrix(v, where: str) -> list:
    if not isinstance(v, list):
        return [[_number(v, where)]]
    if not v:
        raise SpecError("an empty matrix", where=where)
    if not isinstance(v[0], list):
        _entries(1, len(v), where)
        return [[_number(x, where) for x in v]]
    _entries(len(v), len(v[0]), where)
    rows = []
    for i, r in enumerate(v):
        if not isinstance(r, list):
            raise SpecError(f"row {i} is not a list", where=where)
        if len(r) != len(v[0]):
            raise SpecError(f"ragged matrix: row 0 has {len(v[0])} entries, row {i} has {len(r)}",
                            where=where)
        rows.append([_number(x, where) for x in r])
    return rows


def _entries(m: int, n: int, where: str):
    """The size limit, before thousands of numbers are read."""
    try:
        check_entries(m, n)
    except SymattnError as e:
        raise e.located(where) from None


def _labels(v, tokens, where, what):
    if v is None:
        return None
    if v == "tokens":
        if not tokens:
            raise SpecError(f"{what} = \"tokens\" but [example] has no tokens", where=where)
        return tokens
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise SpecError(f"{what} must be a list of labels (strings) or \"tokens\"", where=where)
    return tuple(_text(x, where, "a label") for x in v)


def _check_keys(d: dict, allowed: set, where: str, what: str):
    extra = set(d) - allowed
    if extra:
        raise SpecError(f"unknown key{'s' if len(extra) > 1 else ''} in {what}: "
                        f"{shown(', '.join(sorted(extra)))}", where=where,
                        hint=f"allowed: {', '.join(sorted(allowed))}")


def _int_field(v, where, what, lo=0, hi=10_000):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise SpecError(f"{what} must be a whole number from {lo} to {hi}", where=where)
    return v


def load(path: str, text: str | None = None) -> Spec:
    """Read and validate a spec; build every input and step into engine Tensors."""
    path = str(path)
    if text is None:
        text = read_text(path)
    try:
        data = tomllib.loads(text, parse_float=_DecimalText)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column \d+\)", msg)
        line = int(m.group(1)) if m else text.count("\n") + 1      # else: at the end
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
        msg = re.sub(r"\s*\(at end of document\)", "", msg)
        raise SpecError(f"not valid TOML: {shown(msg)}", where=f"{path}:{line}") from None
    except RecursionError:
        raise LimitError("TOML nested too deeply (arrays or tables inside each other)",
                         where=f"{path}:{_deepest_line(text)}") from None
    except ValueError:                        # an integer too long for Python to convert
        line = _long_number_line(text)
        raise LimitError(f"a whole number of more than {MAX_DIGITS} digits",
                         where=f"{path}:{line}" if line else path,
                         hint="raise symattn.numbers.MAX_DIGITS on purpose") from None
    top = _Where(path, text)
    _check_keys(data, {"example", "inputs", "steps", "claims"}, top.of(*data), "the file")
    ex = data.get("example")
    if not isinstance(ex, dict):
        raise SpecError("missing [example] table", where=top.of("example"),
                        hint="see docs/spec-format.md or run `symattn new`")
    wex = top.of("example")
    _check_keys(ex, {"id", "title", "source", "rounding", "tokens", "note", "lines"}, wex, "[example]")
    if not isinstance(ex.get("id"), str) or not ex["id"]:
        raise SpecError("[example] needs an id (text)", where=wex)
    rounding = ex.get("rounding", "half-up")
    if rounding not in MODES:
        raise SpecError(f"rounding = {shown(repr(rounding))}", where=wex,
                        hint=f"use one of {', '.join(MODES)}")
    tokens = ex.get("tokens")
    if tokens is not None:
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens) or not tokens:
            raise SpecError("tokens must be a list of labels", where=wex)
        tokens = tuple(_text(t, wex, "a token") for t in tokens)
    spec = Spec(path, _text(ex["id"], wex, "the id"),
                _text(ex.get("title", ""), wex, "the title", multiline=True),
                _text(ex.get("source", ""), wex, "the source"), rounding, tokens)
    _text(ex.get("note", ""), wex, "the note", multiline=True)
    spec.lines = _line_ranges(ex.get("lines"), wex)
    _load_inputs(spec, data.get("inputs", {}), text, top)
    _load_steps(spec, data.get("steps", []), text, top)
    _load_claims(spec, data.get("claims", []), text, top)
    return spec


class _Where:
    """``path:line`` of the top-level tables and keys of a spec (line 1 if not found)."""

    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self._keys: dict | None = None

    def header(self, name: str):
        pat = re.compile(r"^[ \t]*\[\[?[ \t]*[\"']?" + re.escape(name) + r"[\"']?[ \t]*\]", re.M)
        strings = _MultilineStrings.of(self.text)
        return next((m for m in pat.finditer(self.text) if not strings.inside(m.start())), None)

    def line(self, name: str) -> int:
        m = self.header(name)
        if m:
            return self.text.count("\n", 0, m.start()) + 1
        if self._keys is None:
            self._keys = _key_lines(self.text)
        return self._keys.get(name, 1)

    def of(self, *names) -> str:
        """The location of the first of ``names`` that is not a known top-level name."""
        known = {"example", "inputs", "steps", "claims"}
        name = next((n for n in names if n not in known), names[0] if names else "")
        return f"{self.path}:{self.line(name)}"


_TOML_SCAN = re.compile(                       # strings, comments and brackets of TOML
    r'"""(?:[^\\]|\\.)*?"""' r"|'''.*?'''" r'|"(?:[^"\\\n]|\\.)*"' r"|'[^'\n]*'" r"|#[^\n]*|[\[\]{}]",
    re.S)


def _deepest_line(text: str) -> int:
    """The line where arrays and inline tables are nested deepest (strings and comments skipped)."""
    depth = best = best_pos = 0
    for m in _TOML_SCAN.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > best:
                best, best_pos = depth, m.start()
        elif c in "]}":
            depth -= 1
    return text.count("\n", 0, best_pos) + 1


def _long_number_line(text: str) -> int | None:
    m = re.search(r"[0-9](?:_?[0-9]){%d,}" % MAX_DIGITS, text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _load_inputs(spec: Spec, inputs, text: str, top: _Where):
    if not isinstance(inputs, dict):
        raise SpecError("[inputs] must be a table", where=top.of("inputs"))
    base, m = top.line("inputs"), top.header("inputs")
    key_lines = _key_lines(text, m.end() if m else 0)
    for name, v in inputs.items():
        line = key_lines.get(name, base)
        where = spec.where(line)
        if not NAME.fullmatch(name) or name in RESERVED:
            raise SpecError(f"'{shown(name)}' cannot be a name", where=where,
                            hint="use letters, digits and _, not starting with a digit")
        rows = cols = printout = None
        if isinstance(v, dict):
            _check_keys(v, {"value", "rows", "cols", "line", "symbol", "note", "latex", "rounded", "decimals"},
                        where, f"input {name}")
            from ..claims.consistent import printout_of
            printout = printout_of(v, where)
            if "latex" in v:
                spec.latex[name] = _latex(v["latex"], where)
            if "symbol" in v:
                import sympy
                s = v["symbol"]
                if not isinstance(s, str) or not NAME.fullmatch(s):
                    raise SpecError("symbol must be a plain name", where=where)
                t = Tensor("const", (), {"entries": ((sympy.Symbol(s, real=True),),)}, (1, 1))
                spec.inputs[name] = spec.tensors[name] = t.named(name)
                spec.input_lines[name] = line
                continue
            if "value" not in v:
                raise SpecError(f"input {name} has no value", where=where)
            rows = _labels(v.get("rows"), spec.tokens, where, "rows")
            cols = _labels(v.get("cols"), spec.tokens, where, "cols")
            v = v["value"]
        entries = _matrix(v, where)
        try:
            from ..ops.primitives import const
            t = const(entries, rows, cols, name=name)
        except SymattnError as e:
            raise e.located(where) from None
        spec.inputs[name] = spec.tensors[name] = t
        spec.input_lines[name] = line
        if printout is not None:
            from ..claims.consistent import entry_decimals
            spec.rounded[name] = entry_decimals(v, entries, printout)


def _line_ranges(v, where: str) -> tuple | None:
    """``lines = [first, last]`` or ``[[first, last], …]``: the article lines of an example."""
    if v is None:
        return None
    pairs = [v] if isinstance(v, list) and len(v) == 2 and all(type(x) is int for x in v) else v
    if not isinstance(pairs, list) or not pairs or not all(
            isinstance(p, list) and len(p) == 2 and all(type(x) is int and x >= 1 for x in p)
            and p[0] <= p[1] for p in pairs):
        raise SpecError("lines must be [first, last] (article lines, first ≤ last) or a list of them",
                        where=where, hint="e.g. lines = [43, 218]")
    return tuple((a, b) for a, b in pairs)


def _load_steps(spec: Spec, steps, text: str, top: _Where):
    if not isinstance(steps, list):
        raise SpecError("steps must be an array of tables [[steps]]", where=top.of("steps"))
    lines = _table_lines(text, "steps")
    last = {s["name"]: k for k, s in enumerate(steps)
            if isinstance(s, dict) and isinstance(s.get("name"), str)}
    chain: dict[str, int] = {}                   # step -> steps in its longest chain
    for k, s in enumerate(steps):
        line = lines[k] if len(lines) == len(steps) else top.line("steps")
        where = spec.where(line)
        if not isinstance(s, dict):
            raise SpecError("a step must be a table", where=where)
        _check_keys(s, {"name", "expr", "rows", "cols", "decimals", "line", "note", "latex"}, where, "[[steps]]")
        name, text_expr = s.get("name"), s.get("expr")
        if not isinstance(name, str) or not NAME.fullmatch(name) or name in RESERVED:
            raise SpecError(f"step name {shown(repr(name))} is not a plain name", where=where)
        if name in spec.tensors:
            raise SpecError(f"'{shown(name)}' is defined twice", where=where)
        if not isinstance(text_expr, str):
            raise SpecError(f"step '{shown(name)}' needs expr (text)", where=where)
        try:
            tree = E.parse(text_expr)
        except SymattnError as e:
            raise SpecError(f"step '{shown(name)}': {e.message}", where=where, hint=e.hint) from None
        refs = E.names(tree)
        if name in refs:
            raise SpecError(f"step '{shown(name)}' refers to itself", where=where)
        later = sorted(r for r in refs if r not in spec.tensors and last.get(r, -1) >= k)
        if later:
            raise SpecError(f"step '{shown(name)}' uses '{shown(later[0])}', which is defined after it",
                            where=where, hint="steps may only use inputs and earlier steps")
        chain[name] = 1 + max((chain.get(r, 0) for r in refs), default=0)
        if chain[name] > MAX_STEP_CHAIN:
            raise LimitError(f"step '{shown(name)}' ends a chain of {chain[name]} steps that use "
                             f"each other, more than {MAX_STEP_CHAIN}", where=where,
                             hint="raise symattn.spec.load.MAX_STEP_CHAIN on purpose")
        step = Step(name, text_expr, tree, line or 0,
                    article_line=s.get("line") if isinstance(s.get("line"), int) else None,
                    decimals=_int_field(s["decimals"], where, "decimals", 0, 1000) if "decimals" in s else None,
                    rows=_labels(s.get("rows"), spec.tokens, where, "rows"),
                    cols=_labels(s.get("cols"), spec.tokens, where, "cols"),
                    note=_text(s.get("note", ""), where, "the note", multiline=True),
                    latex=_latex(s["latex"], where) if "latex" in s else None)
        if step.latex:
            spec.latex[name] = step.latex
        spec.steps.append(step)
        spec.tensors[name] = build_step(spec, step, spec.tensors)


def _latex(v, where: str) -> str:
    """A ``latex = "\\sigma^2"`` key: LaTeX for a name, from a small safe vocabulary."""
    from ..render.latex_values import check_symbol_latex
    if not isinstance(v, str):
        raise SpecError("latex must be text such as \"\\\\sigma^2\"", where=where)
    problem = check_symbol_latex(v)
    if problem:
        raise SpecError(f"latex {shown(repr(v))}: {problem}", where=where,
                        hint="letters, digits, _ ^ { } ' and commands such as \\sigma, "
                             "\\mathbf, \\hat, \\text")
    return v


def build_step(spec: Spec, step: Step, env: dict, tree=None) -> Tensor:
    """The Tensor of one step, with its labels, in the given environment of names."""
    where = spec.where(step.line)
    try:
        t = as_tensor(build(tree if tree is not None else step.tree, env))
        return t.named(step.name, step.rows, step.cols)
    except SymattnError as e:
        if e.where is None:
            e.message = f"step '{step.name}': {e.message}"
        raise e.located(where) from None
    except RecursionError:
        raise LimitError(f"step '{step.name}' is nested too deeply", where=where) from None


def _load_claims(spec: Spec, claims, text: str, top: _Where):
    if not isinstance(claims, list):
        raise SpecError("claims must be an array of tables [[claims]]", where=top.of("claims"))
    lines = _table_lines(text, "claims")
    for k, c in enumerate(claims):
        line = lines[k] if len(lines) == len(claims) else top.line("claims")
        where = spec.where(line)
        if not isinstance(c, dict):
            raise SpecError("a claim must be a table", where=where)
        _check_keys(c, {"step", "at", "printed", "line", "decimals", "rounding", "note"}, where, "[[claims]]")
        step = c.get("step")
        if not isinstance(step, str) or step not in spec.tensors:
            known = ", ".join(spec.tensors)
            raise SpecError(f"claim points at step {shown(repr(step))}, which does not exist",
                            where=where, hint=f"known: {shown(known, 200)}")
        printed = c.get("printed")
        if not isinstance(printed, str):
            raise SpecError("printed must be text, exactly as the article prints it "
                            "(e.g. printed = \"[0.92, 1.24]\")", where=where)
        art = c.get("line")
        if isinstance(art, bool) or not isinstance(art, int) or art < 1:
            raise SpecError("line must be the article's line number (a whole number ≥ 1)", where=where)
        rounding = c.get("rounding")
        if rounding is not None and rounding not in MODES:
            raise SpecError(f"rounding = {shown(repr(rounding))}", where=where,
                            hint=f"use one of {', '.join(MODES)}")
        at = c.get("at")
        if at is not None and not _valid_at(at):
            raise SpecError(f"at = {shown(repr(at))}: give a row label or index, [row, column], or "
                            "[\":\", column]", where=where)
        for x in (at if isinstance(at, list) else [at]):
            if isinstance(x, str):
                _text(x, where, "a label")
        spec.claims.append(Claim(k, step, at, printed, art, line or 0,
                                 _int_field(c["decimals"], where, "decimals", 0, 1000) if "decimals" in c else None,
                                 rounding, _text(c.get("note", ""), where, "the note", multiline=True)))


def _valid_at(at) -> bool:
    def key(x):
        return (isinstance(x, str) or (isinstance(x, int) and not isinstance(x, bool)))
    if key(at):
        return True
    return isinstance(at, list) and len(at) == 2 and all(key(x) for x in at)

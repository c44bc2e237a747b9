"""Reading a spec file: TOML with exact numbers, validated, with line numbers for errors.

Numbers never pass through a binary float: TOML floats reach us as their decimal text
(``parse_float``) and become ``Fraction``. Every problem is a :class:`SpecError` naming the
file and the line.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from . import expr as E
from .build import build, as_tensor
from ..errors import SymattnError, SpecError, LimitError
from ..numbers import parse_exact, normalize_minus
from ..tensor import Tensor, NEG_INF
from ..evaluation.rounding import MODES

MAX_FILE_BYTES = 4_000_000
NAME = re.compile(r"[^\W\d]\w*")
RESERVED = {"inf"}


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


@dataclass
class Spec:
    path: str
    id: str
    title: str
    source: str
    rounding: str
    tokens: tuple | None
    inputs: dict = field(default_factory=dict)        # name -> Tensor
    input_lines: dict = field(default_factory=dict)   # name -> spec line
    steps: list = field(default_factory=list)         # [Step]
    claims: list = field(default_factory=list)        # [Claim]
    tensors: dict = field(default_factory=dict)       # name -> Tensor (inputs and steps)

    def where(self, line: int | None) -> str:
        return f"{self.path}:{line}" if line else self.path

    def step(self, name: str) -> Step | None:
        return next((s for s in self.steps if s.name == name), None)


def read_text(path: str) -> str:
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise SpecError("no such file", where=path) from None
    except IsADirectoryError:
        raise SpecError("is a folder, not a spec file", where=path) from None
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}", where=path) from None
    if len(data) > MAX_FILE_BYTES:
        raise LimitError(f"the file has {len(data)} bytes, more than {MAX_FILE_BYTES}", where=path)
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
    return [text.count("\n", 0, m.start()) + 1 for m in pat.finditer(text)]


def _key_line(text: str, key: str, default: int | None = None) -> int | None:
    m = re.search(r"^\s*\"?" + re.escape(key) + r"\"?\s*=", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else default


def _number(v, where: str):
    if isinstance(v, bool):
        raise SpecError(f"{v!r} is not a number", where=where)
    if isinstance(v, int):
        return Fraction(v)
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
    raise SpecError(f"{v!r} is not a number", where=where)


def _matrix(v, where: str) -> list:
    if not isinstance(v, list):
        return [[_number(v, where)]]
    if not v:
        raise SpecError("an empty matrix", where=where)
    if not isinstance(v[0], list):
        return [[_number(x, where) for x in v]]
    rows = []
    for i, r in enumerate(v):
        if not isinstance(r, list):
            raise SpecError(f"row {i} is not a list", where=where)
        if len(r) != len(v[0]):
            raise SpecError(f"ragged matrix: row 0 has {len(v[0])} entries, row {i} has {len(r)}",
                            where=where)
        rows.append([_number(x, where) for x in r])
    return rows


def _labels(v, tokens, where, what):
    if v is None:
        return None
    if v == "tokens":
        if not tokens:
            raise SpecError(f"{what} = \"tokens\" but [example] has no tokens", where=where)
        return tokens
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise SpecError(f"{what} must be a list of labels (strings) or \"tokens\"", where=where)
    return tuple(v)


def _check_keys(d: dict, allowed: set, where: str, what: str):
    extra = set(d) - allowed
    if extra:
        raise SpecError(f"unknown key{'s' if len(extra) > 1 else ''} in {what}: "
                        f"{', '.join(sorted(extra))}", where=where,
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
        line = int(m.group(1)) if m else None
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
        msg = re.sub(r"\s*\(at end of document\)", "", msg)
        raise SpecError(f"not valid TOML: {msg}", where=f"{path}:{line}" if line else path) from None
    except RecursionError:
        raise LimitError("TOML nested too deeply", where=path) from None
    _check_keys(data, {"example", "inputs", "steps", "claims"}, path, "the file")
    ex = data.get("example")
    ex_line = _key_line(text, "[example]") or 1
    if not isinstance(ex, dict):
        raise SpecError("missing [example] table", where=path,
                        hint="see docs/spec-format.md or run `symattn new`")
    wex = f"{path}:{_line_of(text, '[example]')}"
    _check_keys(ex, {"id", "title", "source", "rounding", "tokens", "note"}, wex, "[example]")
    if not isinstance(ex.get("id"), str) or not ex["id"]:
        raise SpecError("[example] needs an id (text)", where=wex)
    rounding = ex.get("rounding", "half-up")
    if rounding not in MODES:
        raise SpecError(f"rounding = {rounding!r}", where=wex, hint=f"use one of {', '.join(MODES)}")
    tokens = ex.get("tokens")
    if tokens is not None:
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens) or not tokens:
            raise SpecError("tokens must be a list of labels", where=wex)
        tokens = tuple(tokens)
    spec = Spec(path, ex["id"], str(ex.get("title", "")), str(ex.get("source", "")), rounding, tokens)
    _load_inputs(spec, data.get("inputs", {}), text)
    _load_steps(spec, data.get("steps", []), text)
    _load_claims(spec, data.get("claims", []), text)
    return spec


def _line_of(text: str, marker: str) -> int:
    i = text.find(marker)
    return text.count("\n", 0, i) + 1 if i >= 0 else 1


def _load_inputs(spec: Spec, inputs, text: str):
    if not isinstance(inputs, dict):
        raise SpecError("[inputs] must be a table", where=spec.path)
    base = _line_of(text, "[inputs]")
    for name, v in inputs.items():
        line = _key_line(text[text.find("[inputs]"):], name)
        line = base + line - 1 if line else base
        where = spec.where(line)
        if not NAME.fullmatch(name) or name in RESERVED:
            raise SpecError(f"'{name}' cannot be a name", where=where,
                            hint="use letters, digits and _, not starting with a digit")
        from .functions import FUNCTIONS
        if name in FUNCTIONS:
            raise SpecError(f"'{name}' is the name of an operation", where=where)
        rows = cols = None
        if isinstance(v, dict):
            _check_keys(v, {"value", "rows", "cols", "line", "symbol", "note"}, where, f"input {name}")
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


def _load_steps(spec: Spec, steps, text: str):
    if not isinstance(steps, list):
        raise SpecError("steps must be an array of tables [[steps]]", where=spec.path)
    lines = _table_lines(text, "steps")
    from .functions import FUNCTIONS
    for k, s in enumerate(steps):
        line = lines[k] if k < len(lines) else None
        where = spec.where(line)
        if not isinstance(s, dict):
            raise SpecError("a step must be a table", where=where)
        _check_keys(s, {"name", "expr", "rows", "cols", "decimals", "line", "note"}, where, "[[steps]]")
        name, text_expr = s.get("name"), s.get("expr")
        if not isinstance(name, str) or not NAME.fullmatch(name) or name in RESERVED:
            raise SpecError(f"step name {name!r} is not a plain name", where=where)
        if name in spec.tensors:
            raise SpecError(f"'{name}' is defined twice", where=where)
        if name in FUNCTIONS:
            raise SpecError(f"'{name}' is the name of an operation", where=where)
        if not isinstance(text_expr, str):
            raise SpecError(f"step '{name}' needs expr (text)", where=where)
        try:
            tree = E.parse(text_expr)
        except SymattnError as e:
            raise SpecError(f"step '{name}': {e.message}", where=where, hint=e.hint) from None
        refs = E.names(tree)
        if name in refs:
            raise SpecError(f"step '{name}' refers to itself", where=where)
        later = [r for r in refs if r not in spec.tensors and any(t.get("name") == r for t in steps[k:])]
        if later:
            raise SpecError(f"step '{name}' uses '{later[0]}', which is defined after it",
                            where=where, hint="steps may only use inputs and earlier steps")
        step = Step(name, text_expr, tree, line or 0,
                    article_line=s.get("line") if isinstance(s.get("line"), int) else None,
                    decimals=_int_field(s["decimals"], where, "decimals", 0, 1000) if "decimals" in s else None,
                    rows=_labels(s.get("rows"), spec.tokens, where, "rows"),
                    cols=_labels(s.get("cols"), spec.tokens, where, "cols"),
                    note=str(s.get("note", "")))
        spec.steps.append(step)
        spec.tensors[name] = build_step(spec, step, spec.tensors)


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


def _load_claims(spec: Spec, claims, text: str):
    if not isinstance(claims, list):
        raise SpecError("claims must be an array of tables [[claims]]", where=spec.path)
    lines = _table_lines(text, "claims")
    for k, c in enumerate(claims):
        line = lines[k] if k < len(lines) else None
        where = spec.where(line)
        if not isinstance(c, dict):
            raise SpecError("a claim must be a table", where=where)
        _check_keys(c, {"step", "at", "printed", "line", "decimals", "rounding", "note"}, where, "[[claims]]")
        step = c.get("step")
        if not isinstance(step, str) or step not in spec.tensors:
            known = ", ".join(spec.tensors)
            raise SpecError(f"claim points at step {step!r}, which does not exist", where=where,
                            hint=f"known: {known}")
        printed = c.get("printed")
        if not isinstance(printed, str):
            raise SpecError("printed must be text, exactly as the article prints it "
                            "(e.g. printed = \"[0.92, 1.24]\")", where=where)
        art = c.get("line")
        if isinstance(art, bool) or not isinstance(art, int) or art < 1:
            raise SpecError("line must be the article's line number (a whole number ≥ 1)", where=where)
        rounding = c.get("rounding")
        if rounding is not None and rounding not in MODES:
            raise SpecError(f"rounding = {rounding!r}", where=where, hint=f"use one of {', '.join(MODES)}")
        at = c.get("at")
        if at is not None and not _valid_at(at):
            raise SpecError(f"at = {at!r}: give a row label or index, [row, column], or "
                            "[\":\", column]", where=where)
        spec.claims.append(Claim(k, step, at, printed, art, line or 0,
                                 _int_field(c["decimals"], where, "decimals", 0, 1000) if "decimals" in c else None,
                                 rounding, str(c.get("note", ""))))


def _valid_at(at) -> bool:
    def key(x):
        return (isinstance(x, str) or (isinstance(x, int) and not isinstance(x, bool)))
    if key(at):
        return True
    return isinstance(at, list) and len(at) == 2 and all(key(x) for x in at)

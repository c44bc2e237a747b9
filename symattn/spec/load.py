"""Reading a spec file: TOML with exact numbers, validated, with line numbers for errors.

Numbers never pass through a binary float: TOML floats reach us as their decimal text
(``parse_float``) and become ``Fraction``. Every problem is a :class:`SpecError` naming the
file and the line.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field

from . import expr as E
from .build import build, as_tensor
from .files import MAX_FILE_BYTES, read_text, read_regular, decode  # noqa: F401 (their old home)
from .toml_lines import table_lines, key_lines, Where, deepest_line, long_number_line
from .values import (DecimalText, text_field, matrix, labels, check_keys, aliases,
                     int_field, latex_field, printout_of, entry_printouts)
from ..errors import SymattnError, SpecError, LimitError
from ..suggest import with_suggestion
from ..numbers import shown, MAX_DIGITS
from ..tensor import Tensor
from ..evaluation.rounding import MODES

MAX_STEP_CHAIN = 256        # steps in the longest chain of steps that use each other
NAME = re.compile(r"[^\W\d]\w*")
RESERVED = {"inf"}


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
    source: str                    # the article the example comes from (the first of ``sources``)
    rounding: str
    tokens: tuple | None
    lines: tuple | None = None                        # ((first, last), …) of the article
    inputs: dict = field(default_factory=dict)        # name -> Tensor
    input_lines: dict = field(default_factory=dict)   # name -> spec line
    rounded: dict = field(default_factory=dict)       # name -> each entry as printed (a printout)
    steps: list = field(default_factory=list)         # [Step]
    claims: list = field(default_factory=list)        # [Claim]
    tensors: dict = field(default_factory=dict)       # name -> Tensor (inputs and steps)
    latex: dict = field(default_factory=dict)         # name -> LaTeX of its symbol (``latex = ...``)
    aliases: dict = field(default_factory=dict)       # step -> other names an article calls it
    sources: tuple = ()                               # every file the example is printed in
    inferred: bool = False                            # inferred from its article (symattn.infer)

    _step_index: dict = field(default_factory=dict, repr=False, compare=False)

    def where(self, line: int | None) -> str:
        return f"{self.path}:{line}" if line else self.path

    def step(self, name: str) -> Step | None:
        if len(self._step_index) != len(self.steps):
            self._step_index = {s.name: s for s in self.steps}
        return self._step_index.get(name)


def load(path: str, text: str | None = None) -> Spec:
    """Read and validate a spec; build every input and step into engine Tensors."""
    from .. import deadline
    path = str(path)
    deadline.check(f"{shown(path, 200)}:1")    # the file an error with no line of its own names
    if text is None:
        text = read_text(path)
    try:
        data = tomllib.loads(text, parse_float=DecimalText)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column \d+\)", msg)
        line = int(m.group(1)) if m else text.count("\n") + 1      # else: at the end
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
        msg = re.sub(r"\s*\(at end of document\)", "", msg)
        raise SpecError(f"not valid TOML: {shown(msg)}", where=f"{path}:{line}") from None
    except RecursionError:
        raise LimitError("TOML nested too deeply (arrays or tables inside each other)",
                         where=f"{path}:{deepest_line(text)}") from None
    except ValueError:                        # an integer too long for Python to convert
        line = long_number_line(text)
        raise LimitError(f"a whole number of more than {MAX_DIGITS} digits",
                         where=f"{path}:{line}" if line else path,
                         hint="raise symattn.numbers.MAX_DIGITS on purpose") from None
    top = Where(path, text)
    check_keys(data, {"example", "inputs", "steps", "claims"}, top.of(*data), "the file")
    ex = data.get("example")
    if not isinstance(ex, dict):
        raise SpecError("missing [example] table", where=top.of("example"),
                        hint="see docs/spec-format.md or run `symattn new`")
    wex = top.of("example")
    check_keys(ex, {"id", "title", "source", "rounding", "tokens", "note", "lines"}, wex, "[example]")
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
        tokens = tuple(text_field(t, wex, "a token") for t in tokens)
    sources = _sources(ex.get("source", ""), wex)
    spec = Spec(path, text_field(ex["id"], wex, "the id"),
                text_field(ex.get("title", ""), wex, "the title", multiline=True),
                sources[0] if sources else "", rounding, tokens, sources=sources)
    text_field(ex.get("note", ""), wex, "the note", multiline=True)
    spec.lines = _line_ranges(ex.get("lines"), wex)
    _load_inputs(spec, data.get("inputs", {}), text, top)
    _load_steps(spec, data.get("steps", []), text, top)
    _load_claims(spec, data.get("claims", []), text, top)
    return spec


def _load_inputs(spec: Spec, inputs, text: str, top: Where):
    if not isinstance(inputs, dict):
        raise SpecError("[inputs] must be a table", where=top.of("inputs"))
    base, m = top.line("inputs"), top.header("inputs")
    keys_at = key_lines(text, m.end() if m else 0)
    for name, v in inputs.items():
        line = keys_at.get(name, base)
        where = spec.where(line)
        if not NAME.fullmatch(name) or name in RESERVED:
            raise SpecError(f"'{shown(name)}' cannot be a name", where=where,
                            hint="use letters, digits and _, not starting with a digit")
        rows = cols = printout = None
        if isinstance(v, dict):
            check_keys(v, {"value", "rows", "cols", "line", "symbol", "note", "latex", "rounded", "decimals"},
                       where, f"input {name}")
            printout = printout_of(v, where)
            if "latex" in v:
                spec.latex[name] = latex_field(v["latex"], where)
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
            rows = labels(v.get("rows"), spec.tokens, where, "rows")
            cols = labels(v.get("cols"), spec.tokens, where, "cols")
            v = v["value"]
        entries = matrix(v, where)
        try:
            from ..ops.primitives import const
            t = const(entries, rows, cols, name=name)
        except SymattnError as e:
            raise e.located(where) from None
        spec.inputs[name] = spec.tensors[name] = t
        spec.input_lines[name] = line
        if printout is not None:
            spec.rounded[name] = entry_printouts(v, entries, printout)


def _sources(v, where: str) -> tuple:
    """``source``: the article file (a path relative to the spec), or a list of them for an
    example printed across several files."""
    items = v if isinstance(v, list) else [v]
    if not items or not all(isinstance(x, str) for x in items):
        raise SpecError("source must be a file name or a list of file names", where=where)
    return tuple(t for t in (text_field(x, where, "the source") for x in items) if t)


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


def _load_steps(spec: Spec, steps, text: str, top: Where):
    if not isinstance(steps, list):
        raise SpecError("steps must be an array of tables [[steps]]", where=top.of("steps"))
    lines = table_lines(text, "steps")
    last = {s["name"]: k for k, s in enumerate(steps)
            if isinstance(s, dict) and isinstance(s.get("name"), str)}
    chain: dict[str, int] = {}                   # step -> steps in its longest chain
    for k, s in enumerate(steps):
        line = lines[k] if len(lines) == len(steps) else top.line("steps")
        where = spec.where(line)
        if not isinstance(s, dict):
            raise SpecError("a step must be a table", where=where)
        check_keys(s, {"name", "expr", "rows", "cols", "decimals", "line", "note", "latex", "aliases"},
                   where, "[[steps]]")
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
                    decimals=int_field(s["decimals"], where, "decimals", 0, 1000) if "decimals" in s else None,
                    rows=labels(s.get("rows"), spec.tokens, where, "rows"),
                    cols=labels(s.get("cols"), spec.tokens, where, "cols"),
                    note=text_field(s.get("note", ""), where, "the note", multiline=True),
                    latex=latex_field(s["latex"], where) if "latex" in s else None)
        if step.latex:
            spec.latex[name] = step.latex
        if "aliases" in s:
            spec.aliases[name] = aliases(s["aliases"], where)
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


def _load_claims(spec: Spec, claims, text: str, top: Where):
    if not isinstance(claims, list):
        raise SpecError("claims must be an array of tables [[claims]]", where=top.of("claims"))
    lines = table_lines(text, "claims")
    for k, c in enumerate(claims):
        line = lines[k] if len(lines) == len(claims) else top.line("claims")
        where = spec.where(line)
        if not isinstance(c, dict):
            raise SpecError("a claim must be a table", where=where)
        check_keys(c, {"step", "at", "printed", "line", "decimals", "rounding", "note"}, where, "[[claims]]")
        step = c.get("step")
        if not isinstance(step, str) or step not in spec.tensors:
            known = ", ".join(spec.tensors)
            raise SpecError(f"claim points at step {shown(repr(step))}, which does not exist",
                            where=where, hint=with_suggestion(f"known: {shown(known, 200)}",
                                                              str(step), spec.tensors))
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
                text_field(x, where, "a label")
        spec.claims.append(Claim(k, step, at, printed, art, line or 0,
                                 int_field(c["decimals"], where, "decimals", 0, 1000) if "decimals" in c else None,
                                 rounding, text_field(c.get("note", ""), where, "the note", multiline=True)))


def _valid_at(at) -> bool:
    def key(x):
        return (isinstance(x, str) or (isinstance(x, int) and not isinstance(x, bool)))
    if key(at):
        return True
    return isinstance(at, list) and len(at) == 2 and all(key(x) for x in at)

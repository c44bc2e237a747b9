"""Derivations an article's program states: the code that printed a block says what it is.

``print(f"Original stds per token: {embeddings.std(dim=-1)}")`` above the output line
``Original stds per token: tensor([0.3640, …])`` states that block's derivation, whatever its
numbers: here the unbiased standard deviation (PyTorch's default), so a printout of the
biased one is wrong, as a reader running the code would find. The program is read as a
parse tree (:mod:`ast`; nothing is run) and translated into the spec language by
:mod:`.torch_terms` where every part of an expression has a known meaning; a part that has
none (a loop, an unknown call) makes the value unknown and nothing is derived from it.

A print is found in the output by its text (the f-string's words before the value, or the
heading a ``print("…")`` just before it printed), in program order after the print; the
printout under a ``print(x)`` in a comment (``# tensor([[…``) is x's. A printed block whose
print is found is derived by the program's expression (over the blocks its literals are);
a value printed where no block is (a lone ``Variance: 0.132``) becomes a step after the
block derived last, named by the print's words (``variance``; else as the program names it,
``out_std``), for the article check to place.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from ..article.code import PRINTED_BESIDE, program as is_program
from ..article.prints import FENCE, print_parts, printed_name
from .blocks import Block, spec_name
from .search import Derivation, Search
from .stated import fresh
from .torch_terms import NAME, Unknown, Value, Terms

MAX_DEPTH = 4               # nested calls of the program's own functions followed
MAX_AHEAD = 400             # output lines searched for a print's text
_WORD = re.compile(r"[^\W\d_]{3}")
_QUOTES = ('"' * 3, "'" * 3, "")     # a line that opens or closes a string printed into


def program_derivations(search: Search, parts: list, printed: list) -> None:
    """Derive the blocks the articles' programs print (``search.derived`` changed in place;
    ``printed``: every block found, those the search dropped as printed again too: a
    print the program computes is a step again)."""
    from ..spec.functions import names
    used = {b.name for b in printed} | set(names())     # a step is no function's name
    for path, lines in parts:
        by_line = {ln.number: ln for ln in lines}
        at = {b.line: b for b in printed if b.path == path and b.parent is None}
        state = _State(search, path, by_line, at, used)
        for run in _code_runs(lines):
            state.run_source(run)


def _code_runs(lines: list) -> list[list]:
    """The runs of consecutive code lines (a fenced block, a notebook cell) that parse."""
    runs, cur = [], []
    for ln in lines:
        fence = FENCE.match(ln.text) is not None
        if ln.kind == "code" and not fence and (not cur or ln.number == cur[-1].number + 1):
            cur.append(ln)
            continue
        if cur:
            runs.append(cur)
        cur = [ln] if ln.kind == "code" and not fence else []
    if cur:
        runs.append(cur)
    return runs


class _State:
    """One article file's program, run symbolically: names bound to :class:`Value`."""

    def __init__(self, search: Search, path: str, by_line: dict, at: dict, used: set):
        self.search, self.path, self.by_line, self.at, self.used = search, path, by_line, at, used
        self.env: dict = {}
        self.block = {b.index: b for b in search.blocks}
        self.cursor = 0                     # the output line the last found print was on
        self.last: Derivation | None = None
        self.heading = None

    def run_source(self, run: list) -> None:
        import textwrap
        texts = [ln.text for ln in run]
        tree = None
        for src in (textwrap.dedent("\n".join(texts)), "\n".join([texts[0].lstrip()] + texts[1:])):
            try:                             # a forum's first line indented as the fence was
                tree = ast.parse(src)
                break
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue                     # (a nesting too deep to parse: no program)
        if tree is None:
            return
        self.terms = Terms(src, [ln.number for ln in run], self._literal)
        self.body(tree.body, self.env, 0)

    def _literal(self, first: int, last: int, values: tuple) -> Value | None:
        """The block a literal on article lines first..last prints (or, where that print is
        a block printed again, the block of the same numbers), as a value."""
        shape = (len(values[0]),) if len(values) == 1 else (len(values), len(values[0]))
        here = [self.block[self.at[n].index] for n in range(first, last + 1)
                if n in self.at and self.at[n].index in self.block]
        same = [b for b in here if b.printed.values == values] or \
            [b for b in self.search.blocks if b.parent is None and b.printed.values == values]
        if not same:
            return None
        return Value(same[0].name, shape, frozenset({same[0].index}))

    def body(self, stmts: list, env: dict, depth: int):
        for s in stmts:
            if isinstance(s, ast.Return):
                return self.value(s.value, env, depth) if s.value is not None else None
            self.statement(s, env, depth)
        return None

    def statement(self, s, env: dict, depth: int) -> None:
        if isinstance(s, ast.FunctionDef):
            env[s.name] = (s, self.terms)          # its text: the piece of program it is in
        elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            env[s.targets[0].id] = self.value(s.value, env, depth)
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
                isinstance(s.value.func, ast.Name) and s.value.func.id == "print":
            self.printed(s.value, env, depth)
        elif isinstance(s, ast.Expr) and not isinstance(s.value, ast.Constant):
            v = self.value(s.value, env, depth)     # a REPL's or a cell's last line: displayed
            if isinstance(v, Value) and depth == 0:
                self.found(v, s.value, self.terms.line(s.value, last=True), "", None, env, shown=True)
        elif not isinstance(s, (ast.Import, ast.ImportFrom, ast.Expr, ast.Pass)):
            for node in ast.walk(s):              # a loop or a branch: what it binds is unknown
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    env[node.id] = None

    def value(self, node, env: dict, depth: int):
        """The node's value: a :class:`Value`, a function of the program, a module of the
        library, or None (unknown)."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and isinstance(env.get(node.func.id), tuple):
            return self.call(*env[node.func.id], node, env, depth)
        try:
            return self.terms.value(node, lambda n: self.value(n, env, depth), env)
        except (Unknown, RecursionError):        # too deep to follow: unknown as well
            return None

    def call(self, fn: ast.FunctionDef, terms, node: ast.Call, env: dict, depth: int):
        """A call of the program's own function, followed into its body (read in the piece
        of program that defines it)."""
        if depth >= MAX_DEPTH:
            return None
        a = fn.args
        params = [p.arg for p in a.posonlyargs + a.args]
        args = [self.value(arg, env, depth) for arg in node.args]
        kwargs = {kw.arg: self.value(kw.value, env, depth) for kw in node.keywords if kw.arg in params}
        caller, self.terms = self.terms, terms
        try:
            local = dict(env)
            defaults = dict(zip(params[len(params) - len(a.defaults):], a.defaults))
            for p in params:
                local[p] = self.value(defaults[p], env, depth) if p in defaults else None
            local.update(zip(params, args))
            local.update(kwargs)
            return self.body(fn.body, local, depth + 1)
        finally:
            self.terms = caller

    def printed(self, call: ast.Call, env: dict, depth: int) -> None:
        """A ``print(…)``: its value found in the output and derived there."""
        heading, self.heading = self.heading, None
        prefix, node = print_parts(call)
        if node is None:
            self.heading = prefix
            return
        v = self.value(node, env, depth)
        if isinstance(v, Value):
            self.found(v, node, self.terms.line(call), prefix, heading, env)

    def found(self, v: Value, node, line: int, prefix: str, heading, env: dict, shown: bool = False) -> None:
        """Value ``v`` (of ``node``), printed by the statement at ``line``: found in the
        output, derived there (``shown``: an expression displayed, its printout just below)."""
        out = self.output(line, prefix, heading, shown)
        if out is None:
            return
        n, b = out
        self.cursor = n
        if (b is not None and b.shape != _two_d(v.shape)) or \
                (b is None and not _fits_line(self.by_line.get(n), v, beside=n == line)):
            if isinstance(node, ast.Name):       # printed otherwise than the program says: the
                env[node.id] = None              # run was of another program; nothing follows
            return
        if b is not None:
            self.derive(b, v, node, env)
        elif self.last is not None and v.blocks and (_label_name(prefix) or _program_name(node)):
            self.after(_label_name(prefix) or _program_name(node), v, n)

    def derive(self, b: Block, v: Value, node, env: dict) -> None:
        """Block ``b`` derived as the program computes it (not a name printed again; not
        from a block that is computed from ``b``)."""
        if NAME.fullmatch(v.text) or not v.blocks or any(_uses(self.search.derived, self.block[i], b.index) for i in v.blocks):
            return
        operands = tuple(self.block[i] for i in sorted(v.blocks))
        got, err = self.search.matched(self.search.value(v.text, operands), b, operands)
        self.search.derived[b.index] = self.last = Derivation(b, v.text, operands, got, 0, form="program", error=err)
        if b.index not in self.block:                # dropped as printed again: a step now
            self.block[b.index] = b
            self.search.blocks.append(b)
            self.search.blocks.sort(key=lambda x: x.index)
        if isinstance(node, ast.Name):
            env[node.id] = Value(b.name, v.shape, frozenset({b.index}))

    def after(self, name: str, v: Value, line: int) -> None:
        """A value printed on ``line`` where no block is: a step after the block derived last."""
        last = self.last
        last.after += ((fresh(name, self.used), v.text, line),)
        last.operands += tuple(self.block[i] for i in sorted(v.blocks)
                               if self.block[i] not in last.operands and i != last.block.index)

    def output(self, line: int, prefix: str, heading: str | None, shown: bool = False):
        """(output line, the block printed there or None) of a print at ``line``; of an
        expression displayed (``shown``), the block just below it (past a line of quotes)."""
        start = max(line, self.cursor)
        if shown:
            for n in range(line + 1, line + 3):
                if n in self.at and not is_program(self.by_line[n]):
                    return n, self.at[n]
                if n not in self.by_line or self.by_line[n].text.strip() not in _QUOTES:
                    return None
            return None
        here = self.by_line.get(line)
        if here is not None and PRINTED_BESIDE.match(here.text):
            return line, self.at.get(line)                   # ``print(x)   # tensor([5., 7.])``
        below = self.by_line.get(line + 1)
        if below is not None and not prefix and not is_program(below) and \
                (below.number in self.at or below.kind == "output" or below.kind == "code"):
            return below.number, self.at.get(below.number)   # ``# tensor([[…`` under print(x)
        anchor = (prefix or heading or "").strip()
        if not _WORD.search(anchor):
            return None
        for n in range(start + 1, start + MAX_AHEAD):
            ln = self.by_line.get(n)
            if ln is None or (ln.kind == "code" and is_program(ln)):
                continue
            text = ln.text.strip().lstrip("#").strip()
            if prefix and text.startswith(anchor):
                return n, self.at.get(n)
            if not prefix and text == anchor:
                nxt = self.at.get(n + 1)
                return (n + 1, nxt) if nxt is not None else None
        return None


def _fits_line(line, v: Value, beside: bool = False) -> bool:
    """Does the output line (``beside``: the comment after the print on its line) print as
    many numbers as the value has entries (a lone number for a number)?"""
    from ..article.tokens import numbers_in
    if line is None:
        return False
    if beside:
        line = replace(line, text=line.text[line.text.index("#"):])
    size = 1
    for k in v.shape:
        size *= k
    return len(numbers_in(line)) == size


def _label_name(prefix: str) -> str:
    """The words a print labels its value with, as a name (``Standard deviation: `` →
    ``standard_deviation``): what the output line calls it, and its words are not a
    prose abbreviation's (``std=``) of another quantity."""
    words = re.findall(r"[^\W\d_]+", prefix.lower())
    return spec_name("_".join(words)) if 0 < len(words) <= 4 else ""


def _program_name(node) -> str:
    """The name a print prints, as the article check reads it (``variance``;
    ``out.std()``: ``out_std``)."""
    return spec_name(printed_name(node))


def _uses(derived: dict, b: Block, index: int, seen: frozenset = frozenset()) -> bool:
    """Is block ``b`` computed, through derivations, from the block of ``index`` (or it)?"""
    if b.index == index:
        return True
    d = derived.get(b.index)
    if d is None or b.index in seen:
        return False
    return any(_uses(derived, o.parent or o, index, seen | {b.index}) for o in d.operands)


def _two_d(shape: tuple) -> tuple:
    """A value's shape as a block prints it: a vector is one row, a number 1×1."""
    return (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else tuple(shape)

"""The expression language of specs: a tokenizer and a recursive-descent parser.

Text becomes a small tree of frozen nodes; nothing is ever evaluated here and no Python
machinery (``eval``, ``ast``, ``sympify``) sees the text. Only the syntax in the table of
docs/spec-format.md exists. Depth, length and token count are bounded.

>>> parse("softmax(Q @ K.T / sqrt(2))")
Call(name='softmax', args=(BinOp(op='/', left=BinOp(op='@', left=Name(id='Q'), right=Transpose(operand=Name(id='K'))), right=Call(name='sqrt', args=(Num(value=Fraction(2, 1)),), kwargs=())),), kwargs=())
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from ..errors import ParseError, LimitError
from ..numbers import parse_exact, normalize_minus, shown

MAX_LENGTH = 10_000
MAX_DEPTH = 64          # levels of the tree: calls, indexes, signs, each operator of a chain
MAX_TOKENS = 5_000
# Python's names for operations the spec language spells as the articles do: read as the
# same call, so every consumer of a tree (interpreter, LaTeX, diagnosis) sees one name.
CALL_ALIASES = {"row_sum": "sum", "row_max": "max"}


@dataclass(frozen=True)
class Num:
    value: Fraction

@dataclass(frozen=True)
class Str:
    value: str

@dataclass(frozen=True)
class Name:
    id: str

@dataclass(frozen=True)
class BinOp:
    op: str           # + - * / @ **
    left: object
    right: object

@dataclass(frozen=True)
class Neg:
    operand: object

@dataclass(frozen=True)
class Transpose:
    operand: object

@dataclass(frozen=True)
class Call:
    name: str
    args: tuple
    kwargs: tuple     # ((key, node), ...)

@dataclass(frozen=True)
class Index:
    target: object
    keys: tuple       # each a node or ALL

@dataclass(frozen=True)
class ListLit:
    items: tuple

@dataclass(frozen=True)
class All:
    """The ':' of a[:, j]."""

ALL = All()

@dataclass(frozen=True)
class Slice:
    """``a:b``, ``a:`` or ``:b`` in an index: positions a … b − 1 (0-based, as Python)."""
    start: object     # a node or None
    stop: object

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<str>"[^"\\\x00-\x1f\x7f-\x9f]*"|'[^'\\\x00-\x1f\x7f-\x9f]*')
  | (?P<name>[^\W\d]\w*)
  | (?P<op>\*\*|[-+*/@()\[\],:=.])
""", re.VERBOSE)


def tokenize(text: str) -> list[tuple[str, str, int]]:
    if not isinstance(text, str):
        raise ParseError("an expression must be text")
    if len(text) > MAX_LENGTH:
        raise LimitError(f"expression of {len(text)} characters is longer than {MAX_LENGTH}",
                         hint="split it into steps or raise symattn.spec.expr.MAX_LENGTH on purpose")
    text = normalize_minus(text).replace("·", "*").replace("×", "*")
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m and text[pos] in "\"'":
            raise ParseError(f"a label at column {pos + 1} is not closed on its line, or holds "
                             "a backslash or a control character")
        if not m:
            raise ParseError(f"unexpected character {text[pos]!r} at column {pos + 1}",
                             hint="expressions use names, numbers, + - * / ** @ .T [] and calls")
        kind = m.lastgroup
        if kind != "ws":
            out.append((kind, m.group(), pos + 1))
            if len(out) > MAX_TOKENS:
                raise LimitError(f"expression has more than {MAX_TOKENS} tokens",
                                 hint="split it into steps or raise symattn.spec.expr.MAX_TOKENS on purpose")
        pos = m.end()
    out.append(("end", "", len(text) + 1))
    return out


_DEPTH_HINT = "split it into steps or raise symattn.spec.expr.MAX_DEPTH on purpose"


class _Parser:
    def __init__(self, text: str):
        self.toks = tokenize(text)
        self.i = 0
        self.depth = 0

    def peek(self, value: str | None = None, kind: str | None = None) -> bool:
        k, v, _ = self.toks[self.i]
        return (value is None or v == value) and (kind is None or k == kind) and k != "end" \
            if value is not None or kind is not None else k != "end"

    def take(self):
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, value: str):
        k, v, col = self.take()
        if v != value or k == "end" and value:
            raise ParseError(f"expected '{value}' at column {col}, found "
                             f"{'the end' if k == 'end' else repr(shown(v))}")

    def enter(self):
        self.depth += 1
        if self.depth > 2 * MAX_DEPTH:       # the parser's own stack: brackets count too
            raise LimitError(f"expression has more than {2 * MAX_DEPTH} brackets, calls and signs "
                             "inside each other", hint=_DEPTH_HINT)

    def leave(self):
        self.depth -= 1

    def parse(self):
        node = self.additive()
        k, v, col = self.toks[self.i]
        if k != "end":
            raise ParseError(f"unexpected {shown(v)!r} at column {col}")
        return node

    def additive(self):
        node = self.term()
        while self.peek("+") or self.peek("-"):
            op = self.take()[1]
            node = BinOp(op, node, self.term())
        return node

    def term(self):
        node = self.unary()
        while self.peek("*") or self.peek("/") or self.peek("@"):
            op = self.take()[1]
            node = BinOp(op, node, self.unary())
        return node

    def unary(self):
        if self.peek("-") or self.peek("+"):
            op = self.take()[1]
            self.enter()
            inner = self.unary()
            self.leave()
            return Neg(inner) if op == "-" else inner
        return self.power()

    def power(self):
        base = self.postfix()
        if self.peek("**"):
            self.take()
            self.enter()
            exponent = self.unary()
            self.leave()
            return BinOp("**", base, exponent)
        return base

    def postfix(self):
        node = self.atom()
        while True:
            if self.peek("("):
                if not isinstance(node, Name):
                    raise ParseError(f"only operation names can be called, at column {self.toks[self.i][2]}")
                node = self.call(node.id)
            elif self.peek("["):
                node = self.index(node)
            elif self.peek("."):
                _, _, col = self.take()
                k, v, _ = self.take()
                if v != "T":
                    raise ParseError(f"'.{shown(v)}' at column {col}: the only attribute is .T (transpose)")
                node = Transpose(node)
            else:
                return node

    def call(self, name: str):
        self.expect("(")
        self.enter()
        args, kwargs, keys = [], [], set()
        while not self.peek(")"):
            k, v, col = self.toks[self.i]
            if k == "name" and self.toks[self.i + 1][1] == "=":
                self.i += 2
                if v in keys:
                    raise ParseError(f"keyword '{v}' given twice at column {col}")
                keys.add(v)
                kwargs.append((v, self.additive()))
            else:
                if kwargs:
                    raise ParseError(f"positional argument after a keyword at column {col}")
                args.append(self.additive())
            if not self.peek(","):
                break
            self.take()
        self.expect(")")
        self.leave()
        if name == "matmul" and len(args) == 2 and not kwargs:
            return BinOp("@", args[0], args[1])
        return Call(CALL_ALIASES.get(name, name), tuple(args), tuple(kwargs))

    def index(self, target):
        self.expect("[")
        self.enter()
        keys = []
        while True:
            start = None if self.peek(":") else self.additive()
            if self.peek(":"):
                self.take()
                stop = None if self.peek(",") or self.peek("]") else self.additive()
                keys.append(ALL if start is None and stop is None else Slice(start, stop))
            else:
                keys.append(start)
            if not self.peek(","):
                break
            self.take()
        self.expect("]")
        self.leave()
        if len(keys) > 2:
            raise ParseError("an index takes [row] or [row, column]")
        return Index(target, tuple(keys))

    def atom(self):
        k, v, col = self.take()
        if k == "num":
            try:
                return Num(parse_exact(v))
            except LimitError:
                raise
            except Exception:
                raise ParseError(f"bad number {shown(v)!r} at column {col}") from None
        if k == "str":
            return Str(v[1:-1])
        if k == "name":
            return Name(v)
        if v == "(":
            self.enter()
            node = self.additive()
            self.expect(")")
            self.leave()
            return node
        if v == "[":
            self.enter()
            items = []
            while not self.peek("]"):
                items.append(self.additive())
                if not self.peek(","):
                    break
                self.take()
            self.expect("]")
            self.leave()
            return ListLit(tuple(items))
        if k == "end":
            raise ParseError("the expression ends too early")
        raise ParseError(f"unexpected {shown(v)!r} at column {col}")


def parse(text: str):
    """Parse expression text into a tree of nodes (raises ParseError/LimitError).

    The tree is at most MAX_DEPTH levels deep, so everything that walks it recursively
    (the interpreter, the diagnosis) stays far from Python's recursion limit; the parser's
    own nesting (brackets included) is bounded by 2 × MAX_DEPTH, room enough for the
    parentheses that :func:`unparse` writes.
    """
    try:
        node = _Parser(text).parse()
    except RecursionError:
        raise LimitError("expression nested too deeply for Python's stack", hint=_DEPTH_HINT) from None
    d = depth(node)
    if d > MAX_DEPTH:
        raise LimitError(f"expression nested {d} levels deep, more than {MAX_DEPTH} (each call, "
                         "bracket, sign and operator of a chain such as a + b + c is a level)",
                         hint=_DEPTH_HINT)
    return node


def _children(n) -> list:
    if isinstance(n, BinOp):
        return [n.left, n.right]
    if isinstance(n, (Neg, Transpose)):
        return [n.operand]
    if isinstance(n, Call):
        return list(n.args) + [v for _, v in n.kwargs]
    if isinstance(n, Index):
        return [n.target] + [k for k in n.keys if k is not ALL]
    if isinstance(n, Slice):
        return [k for k in (n.start, n.stop) if k is not None]
    if isinstance(n, ListLit):
        return list(n.items)
    return []


def depth(node) -> int:
    """Levels of the tree (a leaf is 1), computed without recursion."""
    best, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        best = max(best, d)
        stack += [(c, d + 1) for c in _children(n)]
    return best


def walk(node):
    """Every node of the tree, the root first, without recursion."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack += _children(n)


def names(node) -> set[str]:
    """Every Name the tree refers to."""
    return {n.id for n in walk(node) if isinstance(n, Name)}


def numbers(node) -> set[Fraction]:
    """Every number the tree writes (``exp(1.0)``: 1), signs apart."""
    return {n.value for n in walk(node) if isinstance(n, Num)}


def unparse(node) -> str:
    """Text for a tree (used in diagnoses to show a variant) that parses back to the same
    tree, up to fractions and negative numbers (``1/2`` reads back as a division)."""
    if isinstance(node, Num):
        v = node.value
        text = str(abs(v.numerator)) if v.denominator == 1 else f"({abs(v.numerator)} / {v.denominator})"
        return f"-{text}" if v < 0 else text
    if isinstance(node, Str):
        q = "'" if '"' in node.value else '"'     # the tokenizer forbids only the delimiter
        return f"{q}{node.value}{q}"
    if isinstance(node, Name):
        return node.id
    if isinstance(node, BinOp):
        left = _wrapped(node.left) if node.op == "**" else unparse(node.left)
        return f"({left} {node.op} {unparse(node.right)})"
    if isinstance(node, Neg):
        return f"-{unparse(node.operand)}"
    if isinstance(node, Transpose):
        return f"{_wrapped(node.operand)}.T"
    if isinstance(node, Call):
        parts = [unparse(a) for a in node.args] + [f"{k}={unparse(v)}" for k, v in node.kwargs]
        return f"{node.name}({', '.join(parts)})"
    if isinstance(node, Index):
        keys = ", ".join(":" if k is ALL else unparse(k) for k in node.keys)
        return f"{_wrapped(node.target)}[{keys}]"
    if isinstance(node, Slice):
        return ":".join("" if k is None else unparse(k) for k in (node.start, node.stop))
    if isinstance(node, ListLit):
        return "[" + ", ".join(unparse(i) for i in node.items) + "]"
    return "?"


def _wrapped(node) -> str:
    """A base of ** or the target of .T or [...]: a sign or a number goes in parentheses."""
    text = unparse(node)
    return f"({text})" if isinstance(node, (Neg, Num)) and not text.startswith("(") else text

"""Blocks the text labels with a formula: ``QK^T = \\begin{bmatrix}…``.

A worked example often writes what a matrix is on its left (on its line or the one above):
``QK^T =``,
``\\text{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right) =``, ``X W_Q =``. The label is read
as an expression over the blocks printed before it (matched by name: ``QK^T`` is the block
printed as ``QK^T`` before, else ``Q`` times ``K`` transposed when both are blocks) and the
parameters the text states (``d_k = 4``);
a block no pass derived is then derived as the text says, whatever its numbers, as a
program's print is (:mod:`.program`), when the expression's value has the block's shape and
reproduces at least :data:`~.tried.PARTLY` of its entries where a name was read as
adjacent blocks (``QK``: the label is then read as meant, not some other formula): the
article check judges every number, wrong ones included.

A tutorial may instead write the program statement just above the block
(```attention_scores = Q @ K.T``` over ``\\text{Scores} = \\begin{bmatrix}…``): when the
statement's name ends with the block's label, the block is that statement, and later
statements name the block so, as they name a block by its label's words (``masked_scores``
for ``\\text{Masked Scores}``). ``d_k`` that the text does not state is the one width of
every matrix printed before, if they have one. A block under ``After softmax:`` whose rows
each sum to 1 is the softmax of the block just before it.

Read: names of blocks (letters with a subscript, adjacent ones multiplied: ``QK``), numbers,
``^T``/``^\\top``/``ᵀ``, ``\\frac{a}{b}``, ``\\sqrt{…}``, ``/``, ``\\cdot``/``×``/``*``,
``+``/``-``, parentheses (``\\left(…\\right)``) and the functions of :data:`FUNCTIONS`.
Anything else: no formula, nothing derived.
"""

from __future__ import annotations

import re

import numpy as np

from ..article.labels import TRANSPOSE, WRAP, name_words
from .blocks import roots, spec_name, stated
from .evidence import binary
from .masks import rows_sum_to_one
from .search import Derivation, Search
from .tried import PARTLY

FUNCTIONS = ("softmax", "relu", "exp", "sqrt", "layer_norm", "concat")   # as written in any case
VARIADIC = ("concat",)       # of several arguments: ``\\text{Concat}(C_1, C_2)``
PARAMETERS = ("d_k", "d_{k}", "d_model", "d_{model}", "d_v", "d_{v}")
MAX_LABEL = 120             # characters of a label read as a formula

_BEGIN = re.compile(r"\\begin\s*\{(?:[a-zA-Z]*matrix\*?|array)\}")
_LIST = re.compile(r"(?<![\[\w])(?:(?:torch|np|numpy)\.\w+\(\s*)?\[")      # a list opens
_SIZING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)\b|\\[,;:! ]")
_TRANSPOSE = re.compile(TRANSPOSE)         # the article reading's transpose mark
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}|√\s*(\w+(?:_\{?\w+\}?)?)")
_SCRIPT = re.compile(r"([_^])\{\s*([A-Za-z0-9]+)\s*\}")       # ``_{pe}``: ``_pe``
_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<name>[A-Za-z]+[₀-₉]*(?:_[A-Za-z0-9]+)?(?:\^[A-Za-z])?)"
                    r"|(?P<op>\.T|[()+\-/*@,]|\\cdot|\\times|×|·))")


def labelled(search: Search, parts: list) -> None:
    """Derive each block no pass derived whose label, or the program statement written just
    above it, is a formula over earlier blocks (``parts``: the article's (path, lines)); and
    each the search derived in part only when the formula takes the names as written (not
    read as adjacent blocks): what the text says comes before a near guess."""
    texts = {(path, ln.number): ln.text for path, lines in parts for ln in lines}
    coded: dict = {}                             # a program's name -> the block it was seen to compute
    for b in search.blocks:
        found = search.derived.get(b.index)
        if (found is not None and (found.form == "stated" or found.matched >= b.floats.size)) \
                or b.index in search.reprints or b.given or b.parent is not None:
            continue
        earlier = {x.name: x for x in search.blocks if x.index < b.index and x.parent is None}
        expr = _written(search, texts, b, earlier, coded)
        tried = [expr] if expr is not None else _softmax_said(texts, b, earlier)
        best = None
        for text, names, split in tried:
            if found is not None and split:
                continue                         # a guess at the label's names: not over the search's
            operands = tuple(earlier[n] for n in names)
            v = search.value(text, operands)
            if v is None or v.shape != b.shape:
                continue
            got, err = search.matched(v, b, operands)
            if got >= PARTLY * b.floats.size * split and (best is None or got > best.matched):
                best = Derivation(b, text, operands, got, 0, form="stated", error=err)
        if best is not None:
            search.derived[b.index] = best


def _written(search: Search, texts: dict, b, earlier: dict, coded: dict):
    """:func:`formula` of the block's label, else of the statement in code just above it
    (its name then joins ``coded``), or None."""
    beside = sum(x.path == b.path and x.line == b.line and x.index < b.index and x.parent is None
                 for x in search.blocks)     # the blocks opened on its line before it
    label = _label(_with_left(texts, b.path, b.line) if not beside else texts.get((b.path, b.line), ""),
                   beside)
    widths = {x.shape[1] for x in earlier.values()}
    width = widths.pop() if len(widths) == 1 else None
    written = {a: n for a, n in search.aliases.items()       # C_1 = … ≈ [..]: over a print restated there
               if n in earlier and (a not in earlier or earlier[a].index in search.reprints)}
    expr = formula(label, {**dict.fromkeys(earlier), **written}, search.text, width) if label is not None else None
    if expr is not None:
        return expr
    since = max((x.line for x in earlier.values() if x.path == b.path), default=0)
    name, code = _in_code(texts, b, since) or (None, None)
    said = {"_".join(name_words(x.label)): x.name for x in earlier.values() if x.label}   # masked_scores
    names = {**said, **{k: x.name for k, x in coded.items()}, **dict.fromkeys(earlier)}
    expr = formula(code, names, search.text, width) if code else None
    if expr is not None:
        coded[name] = b
    return expr


_SOFTMAX = re.compile(r"\bsoft-?max\b(?!\s*\}?\s*(?:\\left\s*)?\\?[(\[](?![a-z]{3,}\s))", re.I)   # a caption, not a call
                                                     # of its own (an aside in words may follow: ``(rows sum to 1)``)


def _softmax_said(texts: dict, b, earlier: dict) -> list:
    """``softmax`` of the block printed just before (and of it over each root the text takes,
    ``√2``) when the lines between the two say softmax (``After softmax:``, no call of its own
    and no list printed there) and the block reads as a softmax's output: each row within
    [0, 1] summing to 1 as printed, not 0s and 1s only (unless the block before is masked:
    ``[2.1, -∞, -∞]`` gives ``[1.0, 0.0, 0.0]``)."""
    prev = max(earlier.values(), key=lambda x: x.index, default=None)
    if prev is None or prev.shape != b.shape or prev.path != b.path or not _sums_to_one(b) or \
            (binary(b) and not np.isneginf(prev.floats).any()):
        return []                                # 0s and 1s: a one-hot label, not weights (but
                                                 # the softmax of a row masked but for one entry)
    first = b.line if prev.line == b.line else prev.end + 1     # side by side: the lines they share
    between = "\n".join(texts.get((b.path, k), "") for k in range(first, b.line + 1))
    if not _SOFTMAX.search(between) or "[" in between[:between.rfind("\n") + 1]:
        return []                                # lists printed between: not the block before
    return [(f"softmax({prev.name})", [prev.name], 0)] + \
        [(f"softmax({prev.name} / sqrt({k}))", [prev.name], 0) for k in dict.fromkeys(roots(between))]


def _sums_to_one(b) -> bool:
    f = b.floats
    return bool(np.all(np.isfinite(f)) and f.min() >= 0 and f.max() <= 1 and b.shape[1] >= 2) \
        and rows_sum_to_one(b)


def _with_left(texts: dict, path: str, line: int) -> str:
    """The line a block opens, after the line above when the block opens its line and that
    one ends with ``=`` (``Q = X \\cdot W_q =`` over ``\\begin{bmatrix}``)."""
    here, above = texts.get((path, line), ""), texts.get((path, line - 1), "")
    opened = _BEGIN.search(here) or _LIST.search(here)
    if opened is None or here[:opened.start()].strip(" $") or not above.rstrip().endswith("="):
        return here
    return above.rstrip() + " " + here


_CODE_STATEMENT = re.compile(r"`\s*(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<expr>[^`=]+?)\s*`")


def _in_code(texts: dict, b, since: int) -> tuple[str, str] | None:
    """(name, expression) of the one program statement ``name = expr`` written inline
    (in backticks) after line ``since`` and before block ``b``, when its name ends with the
    last word of the block's label (```attention_scores = Q @ K.T``` over
    ``\\text{Scores} = \\begin{bmatrix}…``); None else."""
    last = name_words(b.label or "")[-1:]
    found = [m for k in range(since + 1, b.line + 1)
             for m in _CODE_STATEMENT.finditer(texts.get((b.path, k), ""))]
    if not last or len(found) != 1 or name_words(found[0].group("name"))[-1:] != last:
        return None
    return found[0].group("name"), found[0].group("expr")


def _label(line: str, beside: int = 0) -> str | None:
    """The text between the last ``=`` before the block (or the line's start) and the ``=``
    that opens it (``QK^T = \\begin{…}``, ``q = x × W^Q = [0.31, …]``; ``beside``: how many
    blocks open on ``line`` before it), or None when the block is not opened so."""
    opened = list(_BEGIN.finditer(line)) or list(_LIST.finditer(line))
    if len(opened) <= beside:
        return None
    left = line[:opened[beside].start()].rstrip()
    if not left.endswith("="):
        return None
    left = re.split(r"(?<!\\)=|\$|\\end\s*\{[^{}]*\}|`", left[:-1])[-1].strip()
    return left if 0 < len(left) <= MAX_LABEL else None


def formula(label: str, blocks: dict, text: str, width: int | None = None) -> tuple[str, list[str], int] | None:
    """(the spec-language expression ``label`` writes, the block names it takes, 1 when a
    name was split into blocks (``QK``: a guess) else 0) or None: a label that is one name
    is no formula. ``blocks``: the names it may take, each to the block's name it stands for
    (None: itself); ``width``: d_k when the text states none."""
    s = _normalise(label)
    tokens = _tokens(s)
    if tokens is None:
        return None
    params = {spec_name(p): v for p in PARAMETERS for v in stated(text, (p,))[:1]}
    if width is not None:
        params.setdefault("d_k", str(width))
    p = _Parser(tokens, blocks, params)
    try:
        out = p.expr()
    except ValueError:
        return None
    if p.k != len(tokens) or not p.names or not p.operations:
        return None
    return out, list(dict.fromkeys(p.names)), int(p.split)


def _normalise(s: str) -> str:
    s = _SIZING.sub(" ", s)
    for _ in range(3):
        s = WRAP.sub(r"\1", s)
        s = _FRAC.sub(r"((\1)/(\2))", s)
        s = _SQRT.sub(lambda m: f"sqrt({m.group(1) or m.group(2)})", s)
    s = _SCRIPT.sub(r"\1\2", _TRANSPOSE.sub(".T", s))
    return s.replace("{", "(").replace("}", ")")


def _tokens(s: str) -> list[tuple[str, str]] | None:
    out, i = [], 0
    s = s.strip()
    while i < len(s):
        m = _TOKEN.match(s, i)
        if m is None or m.end() == i:
            return None
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        i = m.end()
        while i < len(s) and s[i].isspace():
            i += 1
    return out


class _Parser:
    """expr := term (± term)*; term := factor ((/ | * | adjacent) factor)*; factor := atom .T?"""

    def __init__(self, tokens: list, blocks: dict, params: dict):
        self.t, self.k, self.blocks, self.params = tokens, 0, blocks, params
        self.names: list[str] = []
        self.operations = 0
        self.split = False                  # a name read as adjacent blocks

    def peek(self):
        return self.t[self.k] if self.k < len(self.t) else (None, None)

    def take(self):
        tok = self.peek()
        self.k += 1
        return tok

    def expr(self) -> str:
        out = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            out = f"{out} {op} {self.term()}"
            self.operations += 1
        return out

    def term(self) -> str:
        out, scalar = self.factor()
        while True:
            kind, tok = self.peek()
            if tok in ("/", "*", "\\cdot", "\\times", "×", "·", "@"):
                self.take()
                right, right_scalar = self.factor()
                op = "/" if tok == "/" else "*" if scalar or right_scalar else "@"
            elif kind in ("name", "num") or tok == "(":
                right, right_scalar = self.factor()
                op = "*" if scalar or right_scalar else "@"
            else:
                return out
            out, scalar = f"{out} {op} {right}", scalar and right_scalar
            self.operations += 1

    def factor(self) -> tuple[str, bool]:
        kind, tok = self.take()
        if kind == "num":
            out, scalar = tok, True
        elif tok == "(":
            named = len(self.names)
            inner = self.expr()
            if self.take()[1] != ")":
                raise ValueError
            out = inner if " " not in inner or _wrapped(inner) else f"({inner})"   # no parentheses
            scalar = len(self.names) == named                                       # around one term
        elif kind == "name" and tok.lower() in FUNCTIONS and self.peek()[1] == "(":
            self.take()
            named, tok = len(self.names), tok.lower()
            args = [self.expr()]
            while tok in VARIADIC and self.peek()[1] == ",":
                self.take()
                args.append(self.expr())
            if self.take()[1] != ")":
                raise ValueError
            inner = ", ".join(a[1:-1] if _wrapped(a) else a for a in args)
            out, scalar = f"{tok}({inner})", tok == "sqrt" and len(self.names) == named
            self.operations += 1
        elif kind == "name" and self.peek()[1] == ".T" and spec_name(f"{tok}_T") in self.blocks:
            self.take()                                 # ``QK^T`` where a block is named so
            out, scalar = spec_name(f"{tok}_T"), False
            self.names.append(out)
        elif kind == "name":
            out, scalar = self._name(tok)
        else:
            raise ValueError
        if self.peek()[1] == ".T":                     # ``QK^T``: the last of the letters
            self.take()
            out = f"{out}.T" if " @ " not in out or out.startswith("(") else \
                " @ ".join(out.split(" @ ")[:-1] + [out.split(" @ ")[-1] + ".T"])
            self.operations += 1
        return out, scalar

    def _name(self, tok: str) -> tuple[str, bool]:
        name = spec_name(tok.replace("^", "_")) or tok
        if name in self.params:
            return self.params[name], True
        if name in self.blocks:
            name = self.blocks[name] or name           # a program's name for a block: the block
            self.names.append(name)
            return name, False
        parts = [self.blocks[p] or p for p in _split(tok, self.blocks)]   # ``QK``, ``XW_Q``: a product
        if not parts:
            raise ValueError
        self.names += parts
        self.operations += len(parts) - 1
        self.split = True
        return " @ ".join(parts), False


def _wrapped(text: str) -> bool:
    """Is ``text`` one parenthesised whole (``(a / b)``)?"""
    if not text.startswith("("):
        return False
    depth = 0
    for k, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return k == len(text) - 1
    return False


def _split(tok: str, blocks: dict) -> list[str]:
    """``tok`` as adjacent block names, the longest first from the left (``XW_Q``: X, W_Q),
    or []."""
    if not tok:
        return []
    for i in range(len(tok), 0, -1):
        head = spec_name(tok[:i].replace("^", "_"))
        if head in blocks and not tok[i:i + 1] in ("_", "^"):
            rest = _split(tok[i:], blocks) if i < len(tok) else []
            if i == len(tok) or rest:
                return [head] + rest
    return []

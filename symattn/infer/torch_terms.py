"""PyTorch and NumPy expressions of an article's program, in the spec language.

Each term below has one meaning, the library's (PyTorch's ``std`` and ``var`` are the
unbiased estimators unless ``unbiased=False`` or ``correction=0``; NumPy's are biased unless
``ddof=1``), and values keep the library's shapes (at most two axes: a vector prints as
one row, ``x.mean(dim=-1)`` of an m×n matrix is a vector of m, ``keepdim=True`` a column).
An expression with a part not listed here is :class:`Unknown`: nothing is guessed.

>>> t = Terms("m = x.std(dim=-1)", [7], lambda a, b, s: Value("X", (6, 4), frozenset({0})))
>>> t.value(ast.parse("x.std(dim=-1)").body[0].value, None, {"x": Value("X", (6, 4), frozenset({0}))}).text
'sqrt(var(X, ddof=1)).T'
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_NUMBER = re.compile(r"\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?")
NAME = re.compile(r"[A-Za-z_]\w*")                       # a term that is one spec name
_ATOM = re.compile(NAME.pattern + r"(?:\[\d+\])?|" + _NUMBER.pattern)
_ARRAYS = {"torch.tensor": "torch", "torch.Tensor": "torch", "torch.FloatTensor": "torch",
           "np.array": "numpy", "numpy.array": "numpy", "np.asarray": "numpy"}
_IMPORTED = {"tensor": "torch", "array": "numpy"}        # from torch import tensor
_LIBS = {"torch": "torch", "np": "numpy", "numpy": "numpy", "math": "math", "F": "torch"}
_REDUCE = ("mean", "sum", "var", "std")
_SAME = ("float", "double", "clone", "detach", "numpy", "item", "contiguous")


class Unknown(Exception):
    """A part of the program with no translation."""


@dataclass(frozen=True)
class Value:
    """A program value: its spec-language ``text``, the library's ``shape`` and the blocks
    (indices) it is computed from; ``lib`` decides the defaults of ``std`` and ``var``."""
    text: str
    shape: tuple
    blocks: frozenset
    lib: str = "torch"


@dataclass(frozen=True)
class LayerNorm:
    """An ``nn.LayerNorm(…)`` module: called on x, the layer norm with its ε (its γ = 1 and
    β = 0 as initialised)."""
    eps: str


@dataclass(frozen=True)
class CrossEntropyLoss:
    """An ``nn.CrossEntropyLoss()`` module: called on (logits, targets), the mean over rows
    of −log softmax at each row's target (one row here)."""


@dataclass(frozen=True)
class Indices:
    """A literal of one whole number, no printed block (``torch.tensor([0])``): class
    indices, as the spec writes them (``[0]``)."""
    text: str


def _indices(node) -> Indices | None:
    if isinstance(node, ast.List) and len(node.elts) == 1 and isinstance(node.elts[0], ast.Constant) \
            and type(node.elts[0].value) is int:
        return Indices(f"[{node.elts[0].value}]")
    return None


def _wrap(text: str) -> str:
    """``text`` as an operand: a name, a number or one call as it is, else in brackets."""
    return text if _ATOM.fullmatch(text) or _one_call(text) else f"({text})"


def _one_call(text: str) -> bool:
    m = re.match(r"[A-Za-z_]\w*\(", text)
    if not m:
        return False
    depth = 0
    for k, c in enumerate(text[m.end() - 1:], m.end() - 1):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0:
            return k == len(text) - 1
    return False


def _broadcast(a: tuple, b: tuple) -> tuple:
    """NumPy's (and PyTorch's) broadcast of two shapes of at most two axes."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise Unknown("shapes do not broadcast")
        out.append(max(x, y))
    return tuple(out)


class Terms:
    """The translation of one piece of program (``src``, whose k-th line is article line
    ``lines[k-1]``); ``literal(first, last, numbers)`` gives the block a literal prints."""

    def __init__(self, src: str, lines: list, literal):
        self.src, self.lines, self.literal = src, lines, literal

    def line(self, node, last: bool = False) -> int:
        """The article line of ``node`` (``last``: of its last line)."""
        k = node.end_lineno if last else node.lineno
        return self.lines[min(k, len(self.lines)) - 1]

    def value(self, node, sub, env: dict):
        """The value of ``node`` (``sub(n)``: the value of a sub-node, the caller's way)."""
        sub = sub or (lambda n: self.value(n, None, env))
        if isinstance(node, ast.Name):
            v = env.get(node.id)
            if v is None:
                raise Unknown(node.id)
            return v
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            text = ast.get_source_segment(self.src, node) or ""
            if not _NUMBER.fullmatch(text):
                raise Unknown(text)
            return Value(text, (), frozenset())
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = _value(sub(node.operand))
            return v if isinstance(node.op, ast.UAdd) else Value(f"-{_wrap(v.text)}", v.shape, v.blocks, v.lib)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, _value(sub(node.left)), _value(sub(node.right)))
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return _transpose(_value(sub(node.value)))
        if isinstance(node, ast.Subscript):
            return self.subscript(node, sub)
        if isinstance(node, ast.Call):
            return self.call(node, sub, env)
        raise Unknown(type(node).__name__)

    def binop(self, op, a: Value, b: Value) -> Value:
        blocks, lib = a.blocks | b.blocks, a.lib if a.blocks else b.lib
        if isinstance(op, ast.MatMult):
            return _matmul(a, b)
        sign = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}.get(type(op))
        if sign is None:
            raise Unknown("operator")
        return Value(f"{_wrap(a.text)} {sign} {_wrap(b.text)}", _broadcast(a.shape, b.shape), blocks, lib)

    def subscript(self, node: ast.Subscript, sub) -> Value:
        k = _int(node.slice)
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            shape = _value(sub(node.value.value)).shape
            return Value(str(shape[k]), (), frozenset())
        v = _value(sub(node.value))
        if len(v.shape) != 2 or not _ATOM.fullmatch(v.text) or "[" in v.text:
            raise Unknown("index")
        return Value(f"{v.text}[{k % v.shape[0]}]", (v.shape[1],), v.blocks, v.lib)

    def call(self, node: ast.Call, sub, env: dict) -> Value:
        f = node.func
        dotted = _dotted(f)
        if dotted in _ARRAYS or dotted in _IMPORTED and dotted not in env or dotted == "torch.LongTensor":
            return (_indices(node.args[0]) if node.args else None) or \
                self.array(node, _ARRAYS.get(dotted) or _IMPORTED.get(dotted, "torch"))
        if dotted in ("nn.LayerNorm", "torch.nn.LayerNorm"):
            eps = _kw(node, "eps")
            return LayerNorm(_value(sub(eps)).text if eps is not None else "1e-5")
        if dotted in ("nn.CrossEntropyLoss", "torch.nn.CrossEntropyLoss") and not node.args:
            return CrossEntropyLoss()
        if isinstance(f, ast.Name) and isinstance(env.get(f.id), CrossEntropyLoss) or \
                dotted in ("F.cross_entropy", "torch.nn.functional.cross_entropy"):
            x = _value(sub(node.args[0]))
            if len(node.args) != 2 or node.keywords or len(x.shape) != 2 or x.shape[0] != 1:
                raise Unknown("cross entropy")
            target = sub(node.args[1])
            if not isinstance(target, Indices):
                raise Unknown("target")
            return Value(f"cross_entropy({x.text}, {target.text})", (), x.blocks, x.lib)
        if isinstance(f, ast.Name) and isinstance(env.get(f.id), LayerNorm):
            x = _value(sub(node.args[0]))
            return Value(f"layer_norm({x.text}, eps={env[f.id].eps})", x.shape, x.blocks, x.lib)
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in _LIBS \
                and f.value.id not in env:
            if not node.args:
                raise Unknown(dotted)
            return self.method(f.attr, _value(sub(node.args[0])), node.args[1:], node, sub, _LIBS[f.value.id])
        if isinstance(f, ast.Attribute):
            v = _value(sub(f.value))
            return self.method(f.attr, v, node.args, node, sub, v.lib)
        raise Unknown(dotted)

    def array(self, node: ast.Call, lib: str) -> Value:
        if not node.args:
            raise Unknown("array")
        shape = _shape(node.args[0])
        v = self.literal(self.line(node), self.lines[min(node.end_lineno, len(self.lines)) - 1],
                         self.numbers(node.args[0]))
        if v is None:
            raise Unknown("no block printed")
        return Value(v.text, shape, v.blocks, lib)

    def numbers(self, node) -> tuple:
        """A literal's numbers (rows of exact values, read from their decimal text)."""
        from fractions import Fraction
        if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, (ast.List, ast.Tuple)) for e in node.elts):
            return tuple(self.numbers(e)[0] for e in node.elts)
        out = []
        for e in getattr(node, "elts", ()):
            sign = -1 if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) else 1
            e = e.operand if sign < 0 else e
            text = ast.get_source_segment(self.src, e) or ""
            if not isinstance(e, ast.Constant) or not _NUMBER.fullmatch(text):
                raise Unknown("literal")
            out.append(sign * Fraction(text))
        return (tuple(out),)

    def method(self, name: str, x: Value, args: list, node: ast.Call, sub, lib: str) -> Value:
        """``x.name(*args)`` or ``lib.name(x, *args)``."""
        if name in _SAME:
            return x
        if name in _elementwise():
            return Value(f"{name}({x.text})", x.shape, x.blocks, x.lib)
        if name in _REDUCE:
            return _reduce(name, x, node, args, lib)
        if name == "softmax":
            d = _int(args[0]) if args else _int(_kw(node, "dim", "axis"))
            return _along(x, d, lambda t: f"softmax({t})", keep=True)
        if name in ("matmul", "dot", "mm"):
            return _matmul(x, _value(sub(args[0])))
        if name == "t" or (name == "transpose" and len(x.shape) == 2 and
                           sorted(_int(a) % 2 for a in args) == [0, 1]):
            return _transpose(x)
        if name == "unsqueeze" and len(x.shape) == 1:
            k = _int(args[0]) if args else _int(_kw(node, "dim"))
            row = Value(x.text, (1, x.shape[0]), x.blocks, x.lib)      # a vector prints as a row
            return row if k == 0 else _transpose(row)
        raise Unknown(name)


def _elementwise() -> set:
    """The declared one-argument functions (symattn.primitives) a spec calls, which the
    libraries name alike and mean alike: ``torch.exp``, ``np.sqrt``, ``x.tanh()``,
    ``torch.sigmoid``, ``x.relu()``, ``torch.round`` (half to even, as ours)."""
    from ..primitives import PRIMITIVES
    from ..spec.functions import FUNCTIONS
    return {p.name for p in PRIMITIVES.values() if p.builder and p.arity == 1 and p.name in FUNCTIONS}


def _value(v) -> Value:
    if not isinstance(v, Value):
        raise Unknown("not a tensor")
    return v


def _transpose(x: Value) -> Value:
    if len(x.shape) < 2:
        return x
    inner = x.text[:-2] if x.text.endswith(".T") else ""
    if inner and (_ATOM.fullmatch(inner) or _one_call(inner) or _enclosed(inner)):
        text = inner[1:-1] if _enclosed(inner) else inner          # (Y.T).T is Y
    else:
        text = f"{_wrap(x.text)}.T"
    return Value(text, (x.shape[1], x.shape[0]), x.blocks, x.lib)


def _enclosed(text: str) -> bool:
    """Is ``text`` one bracketed group, ``(…)``?"""
    if not text.startswith("("):
        return False
    depth = 0
    for k, c in enumerate(text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0:
            return k == len(text) - 1
    return False


def _matmul(a: Value, b: Value) -> Value:
    blocks = a.blocks | b.blocks
    if len(a.shape) == 2 and len(b.shape) == 2 and a.shape[1] == b.shape[0]:
        return Value(f"{_wrap(a.text)} @ {_wrap(b.text)}", (a.shape[0], b.shape[1]), blocks, a.lib)
    if len(a.shape) == 1 and len(b.shape) == 2 and a.shape[0] == b.shape[0]:
        return Value(f"{_wrap(a.text)} @ {_wrap(b.text)}", (b.shape[1],), blocks, a.lib)
    raise Unknown("matmul shapes")


def _reduce(name: str, x: Value, node: ast.Call, args: list, lib: str) -> Value:
    """mean, sum, var, std along an axis (``dim``/``axis``; all of a vector)."""
    dim = _kw(node, "dim", "axis")
    if dim is None and args and not isinstance(getattr(args[0], "value", None), bool):
        dim = args[0]
    d = _int(dim) if dim is not None else None
    keep = _kw(node, "keepdim", "keepdims")
    keep = isinstance(keep, ast.Constant) and keep.value is True
    if name in ("var", "std"):
        ddof = _ddof(node, args, lib)
        f = (lambda t: f"var({t}, ddof={ddof})") if name == "var" else (lambda t: f"sqrt(var({t}, ddof={ddof}))")
    else:
        f = lambda t: f"{name}({t})"          # noqa: E731 (one line per statistic)
    if d is None and len(x.shape) == 2:
        return _of_all(name, x, ddof if name in ("var", "std") else 0)
    if d is None or len(x.shape) < 2:
        if len(x.shape) == 2:
            d = -1
        elif not x.shape:
            raise Unknown("a statistic of a number")
        else:
            return Value(f(x.text), (), x.blocks, x.lib)
    return _along(x, d, f, keep=keep, reduces=True)


def _of_all(name: str, x: Value, ddof: int) -> Value:
    """A statistic of every entry of a matrix (its rows are of one length: the mean of the
    rows' means); the variance from the squared deviations, times N/(N − ddof)."""
    def mean_all(t: str) -> str:
        return f"mean(mean({t}).T)"
    if name == "sum":
        return Value(f"sum(sum({x.text}).T)", (), x.blocks, x.lib)
    if name == "mean":
        return Value(mean_all(x.text), (), x.blocks, x.lib)
    n = x.shape[0] * x.shape[1]
    if n - ddof <= 0:
        raise Unknown("too few entries")
    var = f"{mean_all(f'({_wrap(x.text)} - {mean_all(x.text)}) ** 2')} * {n} / {n - ddof}"
    return Value(var if name == "var" else f"sqrt({var})", (), x.blocks, x.lib)


def _along(x: Value, d: int, f, keep: bool, reduces: bool = False) -> Value:
    """``f`` (a statistic of each row, or softmax of it) along axis ``d`` of ``x``."""
    if len(x.shape) == 1:
        if d not in (0, -1):
            raise Unknown("axis")
        return Value(f(x.text), () if reduces else x.shape, x.blocks, x.lib)
    if len(x.shape) != 2 or d not in (0, 1, -1, -2):
        raise Unknown("axis")
    m, n = x.shape
    last = d in (1, -1)
    if not reduces:
        return Value(f(x.text) if last else f"{_wrap(f(f'{_wrap(x.text)}.T'))}.T", x.shape, x.blocks, x.lib)
    col = f(x.text) if last else f(f"{_wrap(x.text)}.T")       # a column of m (or n) statistics
    if keep:
        return Value(col, (m, 1), x.blocks, x.lib) if last else Value(f"{_wrap(col)}.T", (1, n), x.blocks, x.lib)
    return Value(f"{_wrap(col)}.T", (m if last else n,), x.blocks, x.lib)


def _ddof(node: ast.Call, args: list, lib: str) -> int:
    unbiased, correction, ddof = _kw(node, "unbiased"), _kw(node, "correction"), _kw(node, "ddof")
    if unbiased is None and args and isinstance(getattr(args[-1], "value", None), bool):
        unbiased = args[-1]
    if unbiased is not None:
        if not isinstance(unbiased, ast.Constant) or not isinstance(unbiased.value, bool):
            raise Unknown("unbiased")
        return int(unbiased.value)
    if correction is not None or ddof is not None:
        return _int(correction if correction is not None else ddof)
    return 1 if lib == "torch" else 0


def _kw(node: ast.Call, *names):
    return next((k.value for k in node.keywords if k.arg in names), None)


def _int(node) -> int:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_int(node.operand)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    raise Unknown("not a whole number")


def _shape(node) -> tuple:
    """The shape of a nested list literal of numbers (at most two axes)."""
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        raise Unknown("literal")
    if all(isinstance(e, (ast.List, ast.Tuple)) for e in node.elts):
        widths = {len(e.elts) for e in node.elts}
        if len(widths) != 1:
            raise Unknown("ragged")
        return (len(node.elts), widths.pop())
    return (len(node.elts),)


def _dotted(f) -> str:
    parts = []
    while isinstance(f, ast.Attribute):
        parts.append(f.attr)
        f = f.value
    if isinstance(f, ast.Name):
        parts.append(f.id)
    return ".".join(reversed(parts))

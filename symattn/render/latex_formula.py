"""A spec expression tree as LaTeX, three ways: in symbols (``Q = X W_Q``), with the
operands' values substituted (bmatrix), and one entry written out as the arithmetic on
numbers (``0.8 \\cdot 1.0 + 1.2 \\cdot 0.1``).

The trees are those of :mod:`symattn.spec.expr`; nothing here evaluates text. A
:class:`Scope` supplies the value and the print precision of every subtree.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Protocol

from ..evaluation import rounding as R
from ..ops import OPERATIONS
from ..primitives import FUNCTION_TEX, CONSTANT_TEX
from ..spec import expr as E
from ..tensor import Tensor
from . import step_forms
from .step_forms import Tex, paren, cell_tex, join_sum, fn as _fn, function as function_tex, entry as entry_tex, ADD, NEG, MUL, FRAC, POW, ATOM
from .latex_values import Cell, Precision, symbol, label_text, layout, texts

ELEMENTWISE = set(FUNCTION_TEX)              # declared with their LaTeX in symattn.primitives
REDUCTIONS = {"sum", "mean", "max"}
# what the declared operations (symattn.ops.OPERATIONS) do not say for themselves:
ROW_FIRST = {"argmax", "sum", "mean"}     # row i of the result needs row i of arg 0
OPERATOR_NAMES = {"relu": "ReLU", "keep_mask": "KeepMask", "argmax": "argmax", "width": "width",
                  "transpose": "transpose"}


class Scope(Protocol):
    def value(self, node) -> Tensor: ...
    def precision(self, node) -> Precision: ...
    def leaf_cells(self, t: Tensor, prec: Precision) -> list[list[Cell]]: ...


def number_tex(q: Fraction) -> Tex:
    """An exact number as written in a spec: a decimal when it ends, else a fraction."""
    from .latex_values import _terminating_places
    p = _terminating_places(q, 30)
    if p is not None:
        s = R.format_units(int(q * 10 ** p), p)
    else:
        s = rf"\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"
        if q < 0:
            s = "-" + s
    return Tex(s, NEG if q < 0 else ATOM)


def _op(name: str) -> str:
    op = OPERATIONS.get(name)
    text = op.latex.operator if op is not None and op.latex is not None else OPERATOR_NAMES.get(name, name)
    return r"\operatorname{" + text.replace("_", r"\_") + "}"


def _inline(node) -> str | None:
    """An exponent as articles write it on one line (``-2i/d`` for ``-2 * i / d``), or None
    when it is not a product or quotient of numbers and one-letter names."""
    if isinstance(node, E.Num) and node.value.denominator == 1:
        return str(node.value)
    if isinstance(node, E.Name) and len(node.id) == 1:
        return node.id
    if isinstance(node, E.Neg):
        inner = _inline(node.operand)
        return None if inner is None or inner.startswith("-") else "-" + inner
    if isinstance(node, E.BinOp) and node.op in ("*", "/"):
        a, b = _inline(node.left), _inline(node.right)
        if a is None or b is None or b.startswith("-") or (node.op == "*" and b[0].isdigit()):
            return None
        return f"{a}{b}" if node.op == "*" else f"{a}/{b}"
    return None


def is_constant(node) -> bool:
    """A subtree without names: numbers, labels and literal lists only."""
    return not E.names(node)


class Formula:
    """Renders subtrees of one step in symbols or values, optionally restricted to one row."""

    def __init__(self, scope: Scope):
        self.scope = scope

    # -- symbols and substituted values --------------------------------------------
    def show(self, node, values: bool, row: int | None = None) -> Tex:
        """The subtree in symbols (``values=False``) or with its operands' values; ``row``
        restricts it to one row of the result (a 1-row operand is not restricted)."""
        if isinstance(node, E.Num):
            return number_tex(node.value)
        if isinstance(node, E.Str):
            return Tex(label_text(node.value))
        if isinstance(node, E.Name):
            return self._leaf(node, values, row)
        if isinstance(node, E.ListLit):
            if values or all(isinstance(x, (E.Num, E.ListLit, E.Neg)) and is_constant(x)
                             for x in node.items):
                return self._value_leaf(node, row)
            return self._literal(node)
        if isinstance(node, (E.Index, E.Transpose)) and values and self._plain(node):
            return self._value_leaf(node, row)
        if isinstance(node, E.Index):
            return self._index(node, values, row)
        if isinstance(node, E.Transpose):
            inner = self.show(node.operand, values)
            t = Tex(rf"{paren(inner, POW)}^{{\top}}", POW, inner.leaves)
            return self._restrict(t, node, row)
        if isinstance(node, E.Neg):
            inner = self.show(node.operand, values, row)
            return Tex("-" + paren(inner, NEG), NEG, inner.leaves)
        if isinstance(node, E.BinOp):
            return self._binop(node, values, row)
        if isinstance(node, E.Call):
            if values and is_constant(node) and not self._scalar_function(node):
                return self._value_leaf(node, row)
            return self._call(node, values, row)
        return Tex(r"\text{?}")

    def _literal(self, node: E.ListLit) -> Tex:
        """A literal matrix with expressions, in symbols: a rotation matrix as the article
        writes it, not the concatenations it is built from."""
        rows = [r.items if isinstance(r, E.ListLit) else (r,) for r in node.items] \
            if all(isinstance(r, E.ListLit) for r in node.items) else [node.items]
        cells = [[self.show(x, False) for x in r] for r in rows]
        body = r" \\ ".join(" & ".join(c.text for c in r) for r in cells)
        return Tex(rf"\begin{{bmatrix}} {body} \end{{bmatrix}}", ATOM, sum(len(r) for r in cells))

    def _plain(self, node) -> bool:
        """An index or transpose of a name (shown as its values when substituting)."""
        while isinstance(node, (E.Index, E.Transpose)):
            node = node.target if isinstance(node, E.Index) else node.operand
        return isinstance(node, E.Name)

    def _scalar_function(self, node) -> bool:
        return (isinstance(node, E.Call) and node.name in ELEMENTWISE and len(node.args) == 1
                and isinstance(node.args[0], E.Num))

    def _rows(self, node) -> int:
        return self.scope.value(node).shape[0]

    def _leaf(self, node: E.Name, values: bool, row) -> Tex:
        if values:
            return self._value_leaf(node, row)
        sym = symbol(node.id)
        t = self.scope.value(node)
        if row is not None and (t.shape[0] > 1 or t.rows):
            return Tex(sym.sub(_row_key(t, row if t.shape[0] > 1 else 0)).latex())
        return Tex(sym.latex())

    def _value_leaf(self, node, row) -> Tex:
        t = self.scope.value(node)
        cells = self.scope.leaf_cells(t, self.scope.precision(node))
        if row is not None and t.shape[0] > 1:
            cells = [cells[row]]
        rows = texts(cells)
        text = layout(rows)
        level = ATOM
        if len(rows) == 1 and len(rows[0]) == 1 and cells[0][0].negative:
            level = NEG
        return Tex(text, level, sum(len(r) for r in rows))

    def _restrict(self, t: Tex, node, row) -> Tex:
        if row is None or self._rows(node) == 1:
            return t
        v = self.scope.value(node)
        return Tex(rf"\left({t.text}\right)_{{{_row_key(v, row)}}}", POW, t.leaves)

    def _index(self, node: E.Index, values: bool, row) -> Tex:
        target = node.target
        tv = self.scope.value(target)
        keys = []
        for axis, k in enumerate(node.keys):
            if k is E.ALL:
                keys.append(":")
            elif isinstance(k, E.Slice):                  # 0-based a:b, shown 1-based a+1 … b
                lo, hi = self._slice_ends(k, tv.shape[axis])
                keys.append(f"{lo}{{:}}{hi}")
            elif isinstance(k, E.Str):
                keys.append(label_text(k.value))
            elif isinstance(k, E.Num) and k.value.denominator == 1:
                n = tv.shape[axis]
                idx = int(k.value) % n if n else int(k.value)
                labels = tv.rows if axis == 0 else tv.cols
                keys.append(label_text(labels[idx]) if labels else str(idx + 1))
            else:
                keys.append(self.show(k, values).text)
        if isinstance(target, E.Name) and not values:
            sym = symbol(target.id)
            if not sym.subs or (len(keys) == 1 and keys[0] != ":"):
                return self._restrict(Tex(sym.sub(*keys).latex()), node, row)
            base = Tex(sym.latex())
        else:
            base = self.show(target, values)
        text = rf"\left({base.text}\right)_{{{','.join(keys)}}}"
        return self._restrict(Tex(text, POW, base.leaves), node, row)

    def _slice_ends(self, k: E.Slice, n: int) -> tuple:
        ends = [None if b is None else self.scope.value(b) for b in (k.start, k.stop)]
        ends = [None if v is None else int(v.params["entries"][0][0]) if hasattr(v, "params")
                else int(v) for v in ends]
        r = range(*slice(*ends).indices(n))
        return r.start + 1, r[-1] + 1 if len(r) else r.start

    def _binop(self, node: E.BinOp, values: bool, row) -> Tex:
        op = node.op
        if op == "@":
            a = self.show(node.left, values, row)
            b = self.show(node.right, values)
            return Tex(f"{paren(a, MUL)} {paren(b, MUL)}", MUL, a.leaves + b.leaves)
        a = self.show(node.left, values, row)
        if op == "**":
            inline = None if values else _inline(node.right)
            b = Tex(inline) if inline else self.show(node.right, values)
            return Tex(f"{{{paren(a, FRAC)}}}^{{{b.text}}}", POW, a.leaves + b.leaves)
        b = self.show(node.right, values, row)
        leaves = a.leaves + b.leaves
        if op in "+-":
            return _additive(op, a, b, leaves)
        if op == "*":
            scalar = (self.scope.value(node.left).shape == (1, 1)
                      or self.scope.value(node.right).shape == (1, 1))
            dot = r"\cdot" if scalar else r"\odot"
            return Tex(f"{paren(a, NEG)} {dot} {paren(b, NEG)}", MUL, leaves)
        if op == "/":
            return Tex(rf"\frac{{{a.text}}}{{{b.text}}}", FRAC, leaves)
        return Tex(r"\text{?}")

    def _call(self, node: E.Call, values: bool, row) -> Tex:
        name, args = node.name, node.args
        kw = dict(node.kwargs)

        def arg(k, r=row):
            return self.show(args[k], values, r)

        if name in ELEMENTWISE and len(args) == 1:
            a, form = arg(0), FUNCTION_TEX[name]
            if form.power and (isinstance(args[0], E.Num) or (
                    a.level >= NEG and a.leaves == 1 and values and
                    self.scope.value(args[0]).shape == (1, 1))):
                return Tex(form.power % a.text, POW, a.leaves)
            return function_tex(form, a)
        if name in CONSTANT_TEX and not args:
            return Tex(CONSTANT_TEX[name].wrap)
        if name in ("sum", "mean") and len(args) == 1 and not values and isinstance(args[0], E.Name):
            t = self.scope.value(args[0])
            sym = symbol(args[0].id)
            if row is not None and (t.shape[0] > 1 or t.rows):
                subs = [_row_key(t, row if t.shape[0] > 1 else 0), "j"]
            else:
                subs = ["j"] if t.shape[0] == 1 else ["i", "j"]
            body = rf"\sum_{{j}} {sym.sub(*subs).latex()}"
            if name == "mean":
                body = rf"\frac{{1}}{{{t.shape[1]}}}" + body
            return Tex(body, MUL)
        if name == "max" and len(args) == 1:
            return _fn(r"\max", arg(0))
        op = OPERATIONS.get(name)
        rows = op.latex.rows if op is not None and op.latex is not None else None
        if rows is not None and op.latex.formula is not None:        # its own formula
            return op.latex.formula(lambda n, restrict=True: self.show(n, values, row if restrict
                                                                       else None),
                                    op.bind(args, kw), step_forms)
        if rows == "all":
            restrict = [True] * len(args)
        elif rows == "first" or name in ROW_FIRST:
            restrict = [k == 0 for k in range(len(args))]
        else:
            restrict = [False] * len(args)
        parts = [self.show(a, values, row if r else None) for a, r in zip(args, restrict)]
        parts += [Tex(r"\text{" + k.replace("_", r"\_") + "}=" + self.show(v, values).text)
                  for k, v in node.kwargs]
        out = Tex(_op(name) + r"\left(" + ",\\ ".join(p.text for p in parts) + r"\right)",
                  ATOM, sum(p.leaves for p in parts))
        return out if any(restrict) else self._restrict(out, node, row)

    # -- one entry written out -----------------------------------------------------
    def entry(self, node, i: int, j: int) -> Tex | None:
        """Entry (i, j) of the subtree as arithmetic on the operands' printed numbers,
        or None where the subtree has no arithmetic to show."""
        if isinstance(node, E.Num):
            return number_tex(node.value)
        if isinstance(node, (E.Name, E.ListLit)):
            return self._cell(node, i, j)
        if isinstance(node, E.Index):
            t = self.scope.value(node.target)
            rows, cols = self._index_map(node, t)
            return self.entry(node.target, rows[i], cols[j])
        if isinstance(node, E.Transpose):
            return self.entry(node.operand, j, i)
        if isinstance(node, E.Neg):
            a = self.entry(node.operand, i, j)
            return None if a is None else Tex("-" + paren(a, NEG), NEG, a.leaves)
        if isinstance(node, E.BinOp):
            return self._entry_binop(node, i, j)
        if isinstance(node, E.Call):
            return self._entry_call(node, i, j)
        return None

    def _cell(self, node, i, j) -> Tex:
        t = self.scope.value(node)
        i = i if t.shape[0] > 1 else 0
        j = j if t.shape[1] > 1 else 0
        return cell_tex(self.scope.leaf_cells(t, self.scope.precision(node))[i][j])

    def _index_map(self, node: E.Index, t: Tensor):
        keys = node.keys
        rk = keys[0]
        ck = keys[1] if len(keys) > 1 else E.ALL

        def resolve(k, axis):
            n = t.shape[axis]
            if k is E.ALL:
                return list(range(n))
            if isinstance(k, E.Str):
                return [t.row_index(k.value) if axis == 0 else t.col_index(k.value)]
            if isinstance(k, E.Num):
                return [int(k.value) % n]
            if isinstance(k, E.Slice):
                lo, hi = self._slice_ends(k, n)
                return list(range(lo - 1, hi))
            return list(range(n))
        return resolve(rk, 0), resolve(ck, 1)

    def _bcast(self, node, i, j):
        t = self.scope.value(node)
        return (i if t.shape[0] > 1 else 0), (j if t.shape[1] > 1 else 0)

    def _entry_binop(self, node: E.BinOp, i, j) -> Tex | None:
        op = node.op
        if op == "@":
            lt = self.scope.value(node.left)
            terms = []
            for k in range(lt.shape[1]):
                a = self.entry(node.left, *self._bcast(node.left, i, k))
                b = self.entry(node.right, *self._bcast(node.right, k, j))
                if a is None or b is None:
                    return None
                terms.append(Tex(f"{paren(a, NEG)} \\cdot {paren(b, NEG)}", MUL, a.leaves + b.leaves))
            return join_sum(terms)
        a = self.entry(node.left, *self._bcast(node.left, i, j))
        if op == "**":
            b = self.entry(node.right, *self._bcast(node.right, i, j))
            if a is None or b is None:
                return None
            return Tex(f"{{{paren(a, FRAC)}}}^{{{b.text}}}", POW, a.leaves + b.leaves)
        b = self.entry(node.right, *self._bcast(node.right, i, j))
        if a is None or b is None:
            return None
        leaves = a.leaves + b.leaves
        if op in "+-":
            return _additive(op, a, b, leaves)
        if op == "*":
            return Tex(f"{paren(a, NEG)} \\cdot {paren(b, NEG)}", MUL, leaves)
        if op == "/":
            return Tex(rf"\frac{{{a.text}}}{{{b.text}}}", FRAC, leaves)
        return None

    def _entry_call(self, node: E.Call, i, j) -> Tex | None:
        name, args = node.name, node.args
        if name in ELEMENTWISE and len(args) == 1 and not node.kwargs:
            a = self.entry(args[0], *self._bcast(args[0], i, j))
            if a is None:
                return None
            return entry_tex(FUNCTION_TEX[name], a)
        if name in REDUCTIONS and len(args) == 1 and not node.kwargs:
            t = self.scope.value(args[0])
            r = i if t.shape[0] > 1 else 0
            items = [self.entry(args[0], r, k) for k in range(t.shape[1])]
            if any(x is None for x in items):
                return None
            if name == "max":
                return Tex(r"\max\left(" + ",\\ ".join(x.text for x in items) + r"\right)",
                           ATOM, sum(x.leaves for x in items))
            total = join_sum(items)
            if name == "sum":
                return total
            return Tex(rf"\frac{{{total.text}}}{{{t.shape[1]}}}", FRAC, total.leaves)
        return self._cell(node, i, j)

    def has_arithmetic(self, node) -> bool:
        """Whether writing an entry out shows anything beyond the operand's own numbers."""
        if isinstance(node, (E.Num, E.Name, E.ListLit, E.Str)):
            return False
        if isinstance(node, E.Index):
            return self.has_arithmetic(node.target)
        if isinstance(node, E.Transpose):
            return self.has_arithmetic(node.operand)
        if isinstance(node, E.Call):
            if node.name in ELEMENTWISE or node.name in REDUCTIONS:
                return True
            return False
        return True


def _row_key(t: Tensor, i: int) -> str:
    return label_text(t.rows[i]) if t.rows else str(i + 1)


def _additive(op: str, a, b, leaves) -> "Tex":
    """``a + b`` or ``a - b``, the right operand parenthesised when it is negative."""
    return Tex(f"{a.text} {op} {paren(b, NEG)}", ADD, leaves)

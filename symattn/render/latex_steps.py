"""Every step of a spec as the chain of equations the articles print.

A step whose expression calls a declared operation is shown as its declaration says
(:class:`symattn.ops.operation.Presentation`, from the operation's own steps: softmax its
exponentials, their sum and the quotients; attention its scores, scaling, mask, weights
and weighted sum; LayerNorm its mean, deviations, variance and √(σ² + ε); ...). Any other
step gets the generic chain: the formula in symbols, the operands' numbers substituted, one
row written out as arithmetic on those numbers, and the result. A step with labelled
columns (logits, probabilities, weights) gets a table. A masked entry is −∞ and its
weight 0.

Every number is certified (see :mod:`symattn.render.latex_values`), printed at the
precision and in the rounding mode of the claims on its step, or at ``digits`` decimals
where the article prints none of it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..errors import LimitError, SymattnError
from ..ops import OPERATIONS, group
from ..spec import expr as E
from ..tensor import Tensor, NEG_INF
from .latex_config import LatexConfig
from .latex_display import Display, rel, printed_tex, row_lines
from .latex_formula import Formula, REDUCTIONS
from .latex_values import (Numbers, Precision, Cell, symbol, _small_closed_form, row_key, layout,
                           table, texts, MAX_EXACT_PLACES)
from .step_forms import weighted_rows
from .step_view import StepView

MAX_EXACT_NODES = 20_000    # estimated expression-tree size of one closed form before building it


# -- the output of one step -------------------------------------------------------------

@dataclass
class StepBlock:
    """The LaTeX of one step (or of the inputs): displays, and notes in plain text."""
    name: str
    title: str
    symbol: str
    displays: list = field(default_factory=list)     # LaTeX math, no delimiters
    notes: list = field(default_factory=list)        # plain-text lines (corrections)
    remarks: list = field(default_factory=list)      # plain-text lines shown first (--exact fallback)
    wrong: list = field(default_factory=list)        # the check Records marked wrong


# -- the renderer -----------------------------------------------------------------------

class SpecRenderer:
    """Renders the inputs and steps of one loaded spec; one Evaluator for all of it."""

    def __init__(self, spec, config: LatexConfig | None = None):
        from ..claims.check import Checker, resolve
        self.spec = spec
        self.cfg = config or LatexConfig()
        self.records: list = []
        self.marks: dict = {}
        if self.cfg.corrections:
            checker = Checker(spec)
            self.records = checker.run()
            entries = [e for es in checker.entries for e in es]
            for e, r in zip(entries, self.records):
                if r.verdict == "wrong":
                    self.marks.setdefault(e.claim.step, {}).setdefault((e.i, e.j), []).append(r)
            evaluator = checker.ev
        else:
            entries = [e for c in spec.claims for e in resolve(spec, c)]
            evaluator = None
        self.num = Numbers(evaluator)
        self.num_exact = Numbers(self.num.ev, exact=True) if self.cfg.exact else None
        self._entries = entries
        self.precisions = self._precisions(entries)
        self.claimed_rows = self._claimed_rows(entries)
        self.formula = Formula(self)
        self.cur = Precision(self.cfg.digits, spec.rounding)
        self._values: dict = {}
        self._cells: dict = {}
        self._keep: list = []

    # -- precision --------------------------------------------------------------------
    def _precisions(self, entries) -> dict:
        decs: dict = {}
        modes: dict = {}
        for e in entries:
            if e.number.value is NEG_INF:
                continue
            d = e.decimals + (2 if e.number.percent else 0)
            decs.setdefault(e.claim.step, []).append(d)
            modes.setdefault(e.claim.step, Counter())[e.mode] += 1
        out = {}
        for s in self.spec.steps:
            if s.name in decs:
                out[s.name] = Precision(max(decs[s.name]), modes[s.name].most_common(1)[0][0])
            elif s.decimals is not None:
                out[s.name] = Precision(s.decimals, self.spec.rounding)
            else:
                out[s.name] = Precision(self.cfg.digits, self.spec.rounding)
        return out

    def _claimed_rows(self, entries) -> dict:
        order = sorted(entries, key=lambda e: (e.claim.line, e.claim.index))
        out: dict = {}
        for e in order:
            rows = out.setdefault(e.claim.step, [])
            if e.i not in rows:
                rows.append(e.i)
        return out

    def input_precision(self) -> Precision:
        return Precision(self.cfg.digits, self.spec.rounding, MAX_EXACT_PLACES)

    def name_precision(self, name: str) -> Precision:
        if name in self.precisions:
            return self.precisions[name]
        if name in self.spec.inputs:
            return self.input_precision()
        return Precision(self.cfg.digits, self.spec.rounding)

    # -- the Scope of latex_formula ----------------------------------------------------
    def value(self, node) -> Tensor:
        key = id(node)
        if key in self._values:
            return self._values[key][1]
        if isinstance(node, E.Name) and node.id in self.spec.tensors:
            t = self.spec.tensors[node.id]
        else:
            from ..spec.build import build, as_tensor
            t = as_tensor(build(node, self.spec.tensors))
        self._values[key] = (node, t)
        return t

    def precision(self, node) -> Precision:
        while isinstance(node, (E.Index, E.Transpose)):
            node = node.target if isinstance(node, E.Index) else node.operand
        if isinstance(node, E.Name):
            return self.name_precision(node.id)
        if isinstance(node, (E.Num, E.ListLit)):
            return self.input_precision()
        return self.cur

    def leaf_cells(self, t: Tensor, prec: Precision) -> list[list[Cell]]:
        key = (id(t), prec)
        if key not in self._cells:
            self._cells[key] = self.num.cells(t, prec)
            self._keep.append(t)
        return self._cells[key]

    # -- rows -------------------------------------------------------------------------
    def rows_for(self, name: str, t: Tensor) -> list[int]:
        m = t.shape[0]
        if m == 1:
            return [0]
        if self.cfg.rows == "first":
            rows = [0]
        elif self.cfg.rows == "all":
            rows = list(range(m))
        else:
            rows = self.claimed_rows.get(name) or list(range(m))
        return rows[: self.cfg.max_rows]

    # -- results with corrections -------------------------------------------------------
    def result(self, t: Tensor, prec: Precision | None = None, rows=None, name=None,
               as_table: bool = False) -> tuple[str, bool]:
        """The value of ``t`` (or some rows) and whether any number in it is rounded."""
        prec = prec or self.cur
        cells = self.leaf_cells(t, prec)
        idx = list(range(t.shape[0])) if rows is None else list(rows)
        marks = self.marks.get(name, {}) if name else {}
        out, approx = [], False
        for i in idx:
            r = []
            for j, c in enumerate(cells[i]):
                approx = approx or c.rounded
                text = c.text
                if (i, j) in marks:
                    struck = r"\ ".join(rf"\textcolor{{red}}{{\cancel{{{printed_tex(rec.printed)}}}}}"
                                        for rec in _unique_printed(marks[(i, j)]))
                    text = rf"{struck}\ \mathbf{{{text}}}"
                r.append(text)
            out.append(r)
        if as_table:
            return table(out, [t.rows[i] for i in idx] if t.rows else None, t.cols), approx
        return layout(out), approx

    def row_cells(self, t: Tensor, i: int, prec: Precision | None = None) -> list[Cell]:
        cells = self.leaf_cells(t, prec or self.cur)
        return cells[i if t.shape[0] > 1 else 0]

    # -- blocks -------------------------------------------------------------------------
    def inputs_block(self) -> StepBlock:
        block = StepBlock("inputs", "Inputs", "")
        d = Display()
        prec = self.input_precision()
        for name, t in self.spec.inputs.items():
            labelled = bool(t.cols) or (bool(t.rows) and t.shape[0] > 1)
            if self.num_exact is None:
                text, _ = self.result(t, prec, as_table=labelled)
            else:
                text = layout(texts(self.num_exact.cells(t, prec)))
            d.add(symbol(name).latex(), "=", text)
        if d:
            block.displays.append(d.latex())
        return block

    def step_block(self, step) -> StepBlock:
        name = step.name
        t = self.spec.tensors[name]
        self.cur = self.precisions.get(name, Precision(self.cfg.digits, self.spec.rounding))
        title = name + (f" (article line {step.article_line})" if step.article_line else "")
        block = StepBlock(name, title, symbol(name).latex())
        lhs = symbol(name).latex()
        tree = step.tree
        try:
            exact = self.cfg.exact
            if exact:
                try:
                    block.displays += self._exact(name, t, tree, lhs)
                except LimitError as e:            # too large to read: this step in decimals
                    exact = False
                    block.remarks.append(f"Shown in certified decimals: {e.message}.")
            if not exact:
                block.displays += self._declared(name, t, tree, lhs)
                if self._wants_table(step, t):
                    res, approx = self.result(t, name=name, as_table=True)
                    block.displays.append(Display().add(lhs, rel(approx), res).latex())
        except SymattnError as e:
            if e.where is None:
                e.message = f"step '{name}': {e.message}"
            raise e.located(self.spec.where(step.line)) from None
        for (i, j), recs in sorted(self.marks.get(name, {}).items()):
            for r in recs:
                block.wrong.append(r)
                text = (f"line {r.line}: {name}[{r.at[0]}, {r.at[1]}] printed {r.printed}, "
                        f"correct {r.expected}")
                if r.diagnosis:
                    text += " (" + "; ".join(r.diagnosis) + ")"
                block.notes.append(text)
        return block

    def _declared(self, name, t, tree, lhs) -> list[str]:
        """The step as its operation's declaration shows it, else the generic display."""
        op = OPERATIONS.get(tree.name) if isinstance(tree, E.Call) else None
        shown = None
        if op is not None and op.latex is not None and op.latex.show is not None:
            view = StepView(self, name, t, tree, lhs, op)
            shown = op.latex.show(view, op.bind(tree.args, dict(tree.kwargs)))
        return self._generic(name, t, tree, lhs) if shown is None else shown

    def _wants_table(self, step, t: Tensor) -> bool:
        """A labelled table for logits and probabilities over a vocabulary (columns labelled
        as an input's columns), and for many-row matrices with labelled columns (weights)."""
        if not t.cols or t.shape == (1, 1):
            return False
        if t.shape[0] > 1:
            return True
        return any(v.cols == t.cols for v in self.spec.inputs.values())

    # -- generic: formula, substituted, written out, result ------------------------------
    def _generic(self, name, t, tree, lhs) -> list[str]:
        F = self.formula
        one = 0 if t.shape[0] == 1 and t.rows else None       # one labelled row: Q_{私は}
        if one is not None:
            lhs = symbol(name).sub(row_key(t, 0)).latex()
        d = Display().add(lhs, "=", F.show(tree, False, one).text)
        reduction = isinstance(tree, E.Call) and tree.name in REDUCTIONS
        if not reduction:
            d.cont("=", F.show(tree, True, one).text)
        out = [d]
        if t.shape[0] == 1:
            self._written_row(d, name, t, tree, 0)
        else:
            res, approx = self.result(t, name=name)
            d.cont(rel(approx), res)
            if F.has_arithmetic(tree):
                for i in self.rows_for(name, t):
                    di = Display().add(symbol(name).sub(row_key(t, i)).latex(), "=",
                                       F.show(tree, False, i).text)
                    if not reduction:
                        di.cont("=", F.show(tree, True, i).text)
                    self._written_row(di, name, t, tree, i)
                    out.append(di)
        return [x.latex() for x in out]

    def _written_row(self, d: Display, name, t, tree, i):
        F = self.formula
        if isinstance(tree, E.BinOp) and tree.op == "@" and self._is_weights(tree.left):
            d.lines("=", self._weighted_sum(tree, i))
        elif F.has_arithmetic(tree):
            entries = [F.entry(tree, i, j) for j in range(t.shape[1])]
            if all(e is not None for e in entries) and \
                    sum(e.leaves for e in entries) <= self.cfg.max_terms:
                d.lines("=", row_lines(entries))
        res, approx = self.result(t, rows=[i], name=name)
        d.cont(rel(approx), res)

    def _is_weights(self, node) -> bool:
        """Attention weights (a softmax), whose product with V is a weighted sum of rows."""
        while isinstance(node, E.Index):
            node = node.target
        if isinstance(node, E.Call):
            return node.name in group("weights")     # rows of weights summing to 1
        if not isinstance(node, E.Name):
            return False
        step = self.spec.step(node.id)
        if step is None:
            return False
        tree = step.tree
        if isinstance(tree, E.Call) and tree.name in group("weights"):
            return True
        if isinstance(tree, E.BinOp) and tree.op == "/" and isinstance(tree.left, E.Name):
            num = self.spec.step(tree.left.id)
            if num is not None and isinstance(num.tree, E.Call) and num.tree.name == "exp":
                return True
        return False

    def _weighted_sum(self, tree: E.BinOp, i: int) -> list[str]:
        a_t, v_t = self.value(tree.left), self.value(tree.right)
        a = self.leaf_cells(a_t, self.precision(tree.left))
        v = self.leaf_cells(v_t, self.precision(tree.right))
        return weighted_rows(a[i if a_t.shape[0] > 1 else 0], v)

    # -- exact closed forms ------------------------------------------------------------
    def _exact(self, name, t, tree, lhs) -> list[str]:
        F = self.formula
        d = Display().add(lhs, "=", F.show(tree, False).text)
        if not _small_closed_form(t, MAX_EXACT_NODES):
            raise LimitError("its closed form would be too large to print",
                             hint="print decimals instead (--digits N, without --exact), or "
                                  "choose smaller steps with --step")
        cells = self.num_exact.cells(t, self.cur)
        closed = layout(texts(cells))
        size = sum(len(c.text) for row in cells for c in row)
        if size > self.cfg.max_exact_chars:
            raise LimitError(f"its closed form has {size} characters of LaTeX, "
                             f"more than {self.cfg.max_exact_chars}",
                             hint="print decimals instead (--digits N, without --exact), or "
                                  "choose smaller steps with --step")
        d.cont("=", closed)
        res, approx = self.result(t, name=name)
        d.cont(rel(approx), res)
        return [d.latex()]


def _unique_printed(recs) -> list:
    seen, out = set(), []
    for r in recs:
        if r.printed not in seen:
            seen.add(r.printed)
            out.append(r)
    return out


def _name_of(node) -> str | None:
    """The spec name a subtree stands for (a name, or an index of one), else None."""
    return node.id if isinstance(node, E.Name) else None

"""What an operation's presentation (:class:`symattn.ops.operation.Presentation`) works with.

A declaration's ``show(view, args)`` writes the displays of one step from the operation's
own steps; everything generic comes from here: the step's arguments as symbols and values,
certified cells at the right precision, results with the article's corrections, the
layout (:class:`~symattn.render.latex_display.Display`, :func:`row_lines`) and the entry
forms (:mod:`symattn.render.step_forms`, as ``view.f``).
"""

from __future__ import annotations

from . import step_forms
from .latex_display import Display, rel, row_lines
from .latex_formula import _op
from .latex_values import Cell, Precision, Sym, layout, row_key, symbol


class StepView:
    """One step being rendered: ``name``, its tensor ``t``, its tree, its left side
    ``lhs``, and ``op``, the declaration of the operation its tree calls."""

    f = step_forms
    Display = Display
    Sym = Sym
    rel = staticmethod(rel)
    row_lines = staticmethod(row_lines)
    layout = staticmethod(layout)

    def __init__(self, renderer, name: str, t, tree, lhs: str, op=None):
        self.r, self.op = renderer, op
        self.name, self.t, self.tree, self.lhs = name, t, tree, lhs

    # -- the arguments --------------------------------------------------------------
    def value(self, node):
        """The argument's Tensor."""
        return self.r.value(node)

    def tex(self, node, row: int | None = None):
        """The argument in symbols (:class:`~symattn.render.latex_formula.Tex`); with
        ``row``, its row i (``X_{\\text{love}}``)."""
        return self.r.formula.show(node, False, row)

    def show(self, node, values: bool = False, row: int | None = None):
        return self.r.formula.show(node, values, row)

    def precision(self, node) -> Precision:
        return self.r.precision(node)

    # -- the steps ------------------------------------------------------------------
    def steps(self, function, *args, **kwargs):
        """The operation's own steps for these argument values (kept alive while rendered)."""
        st = function(*args, **kwargs)
        self.r._keep.append(st)
        return st

    def keep(self, *ts) -> None:
        self.r._keep.extend(ts)

    # -- rows and cells -------------------------------------------------------------
    def rows(self) -> list[tuple[int, str | None]]:
        """The rows of the step to write out: (index, row key or None for a single row)."""
        many = self.t.shape[0] > 1
        return [(i, row_key(self.t, i) if many else None)
                for i in self.r.rows_for(self.name, self.t)]

    def cells(self, t, node=None) -> list[list[Cell]]:
        """Every cell of ``t``, printed at ``node``'s precision (the step's own if None)."""
        return self.r.leaf_cells(t, self.r.precision(node) if node is not None else self.r.cur)

    def row_cells(self, t, i: int, node=None, prec: Precision | None = None) -> list[Cell]:
        """Row i of ``t`` (its only row when it has one), at ``node``'s precision."""
        if prec is None and node is not None:
            prec = self.r.precision(node)
        return self.r.row_cells(t, i, prec)

    def result(self, t=None, row: int | None = None, own: bool = False,
               prec: Precision | None = None, as_table: bool = False) -> tuple[str, bool]:
        """(LaTeX, rounded?) of ``t`` (the step itself if None) or its row; ``own``: this
        step's printed numbers marked (struck through where the article is wrong)."""
        t = self.t if t is None else t
        return self.r.result(t, prec, rows=None if row is None else [row],
                             name=self.name if own or t is self.t else None, as_table=as_table)

    def finish(self, d: Display, t=None, row: int | None = None, **kw) -> Display:
        """Continue ``d`` with ``≈ value`` (or ``= value`` when nothing is rounded)."""
        res, approx = self.result(t, row, **kw)
        return d.cont(rel(approx), res)

    def input_precision(self) -> Precision:
        return self.r.input_precision()

    def eps(self, a: dict, default) -> tuple:
        """A normalisation's ε: its value (``default``, a 1×1 Tensor, when not given), how
        it is written (ε when not given) and the precision its value is shown at."""
        if "eps" in a:
            return self.value(a["eps"]), self.tex(a["eps"]).text, self.precision(a["eps"])
        return default, r"\varepsilon", self.input_precision()

    # -- symbols --------------------------------------------------------------------
    @staticmethod
    def row_key(t, i: int) -> str:
        """Row i's subscript: its label as text, else its 1-based number."""
        return row_key(t, i)

    def symbol(self, name: str) -> Sym:
        return symbol(name)

    def row_lhs(self, key: str | None) -> str:
        """The step's own symbol for one row (``A_{\\text{love}}``), or ``lhs``."""
        return symbol(self.name).sub(key).latex() if key else self.lhs

    @staticmethod
    def operator(name: str) -> str:
        """``\\operatorname{…}`` of a declared operation."""
        return _op(name)

    def generic(self) -> list[str]:
        return self.r._generic(self.name, self.t, self.tree, self.lhs)

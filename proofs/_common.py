"""Shared helpers for the proof scripts in ``symattn.proofs``.

A proof module defines ``NAME``, ``STATEMENT``, ``GENERAL``, ``SCOPE`` and ``derive()``.
``derive()`` builds a :class:`Derivation`: a list of steps, each a plain-text sentence
with an optional SymPy object (rendered with ``sympy.sstr`` and ``sympy.latex``).
Steps added with :meth:`Derivation.equal`, :meth:`Derivation.zero`,
:meth:`Derivation.limit`, :meth:`Derivation.positive` and :meth:`Derivation.true` are
checks: SymPy must reduce the difference to exactly ``0`` (or the relation to ``True``),
otherwise :class:`ProofError` is raised. Nothing is evaluated with floats and no string
is ever parsed into an expression.

A proof is about the operation symattn ships: beside its general derivation it checks the
engine's own operation, evaluated exactly on SymPy symbols with the helpers of
``proofs/_engine.py``, in steps whose text names the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import sympy
from sympy import (
    Basic,
    Eq,
    Limit,
    MatrixBase,
    Q,
    S,
    ZeroMatrix,
    latex,
    limit,
    refine,
    simplify,
    sstr,
)
from sympy.matrices.expressions.matexpr import MatrixExpr

__all__ = [
    "Derivation",
    "ProofError",
    "Step",
    "in_range",
    "is_zero",
    "linear_sums",
    "print_derivation",
]


class ProofError(AssertionError):
    """A step of a derivation did not reduce to exactly 0 / True."""


@dataclass
class Step:
    text: str
    expr: Basic | MatrixBase | None = None
    checked: bool = False  # True: SymPy verified this step

    @property
    def plain(self) -> str:
        if self.expr is None:
            return ""
        if isinstance(self.expr, sympy.core.relational.Relational):
            op = "=" if self.expr.rel_op == "==" else self.expr.rel_op
            return f"{sstr(self.expr.lhs)} {op} {sstr(self.expr.rhs)}"
        return sstr(self.expr)

    @property
    def latex(self) -> str:
        return "" if self.expr is None else latex(self.expr)


def is_zero(expr, method: Callable = simplify) -> bool:
    """True when ``method(expr)`` is exactly zero (a scalar 0, a zero matrix)."""
    if isinstance(expr, MatrixBase):
        return all(is_zero(e, method) for e in expr)
    if isinstance(expr, MatrixExpr):
        reduced = method(expr.doit())
        if isinstance(reduced, ZeroMatrix):
            return True
        if isinstance(reduced, MatrixBase):
            return is_zero(reduced, method)
        return reduced == 0
    return method(expr) == 0


def in_range(expr, n, *indices):
    """Refine ``expr`` under the hypothesis ``1 <= idx <= n`` for each index.

    ``Sum(f(k) * KroneckerDelta(k, j), (k, 1, n)).doit()`` gives
    ``Piecewise((f(j), j <= n), (0, True))``; an index of a length-n vector satisfies
    ``j <= n`` (``j >= 1`` is an assumption of the symbol), so the first branch is the
    value. ``refine`` performs that reduction; nothing else is assumed.
    """
    assumptions = True
    for idx in indices:
        assumptions = assumptions & Q.le(idx, n) & Q.ge(idx, 1)
    return refine(expr, assumptions)


def linear_sums(expr):
    """Use the linearity of finite sums: split sums of sums, sum terms free of the
    summation variable (Sum(c, (k, 1, n)) = n c) and take constant factors out."""
    from sympy import Sum, expand
    from sympy.simplify.simplify import factor_sum

    split = expand(expr).doit()
    return split.replace(lambda e: isinstance(e, Sum), factor_sum)


@dataclass
class Derivation:
    name: str
    statement: str
    general: bool
    scope: str
    steps: list[Step] = field(default_factory=list)
    holds: bool = False
    checks: int = 0

    # -- steps -------------------------------------------------------------------
    def note(self, text: str, expr=None) -> None:
        """A definition or an intermediate result (not itself a check)."""
        self.steps.append(Step(text, expr))

    def _fail(self, text: str, detail: str) -> None:
        self.holds = False
        raise ProofError(f"{self.name}: step failed: {text} ({detail})")

    def _passed(self, text: str, expr) -> None:
        self.checks += 1
        self.steps.append(Step(text, expr, checked=True))

    def equal(self, text: str, lhs, rhs, *, method: Callable = simplify, show=None):
        """Check ``method(lhs - rhs) == 0`` exactly; record ``lhs = rhs``.

        ``show`` replaces the recorded expression (``False``: record the text only,
        for checks on large explicit matrices).
        """
        if not is_zero(lhs - rhs, method):
            self._fail(text, f"{sstr(lhs)} - ({sstr(rhs)}) does not simplify to 0")
        self._passed(text, _shown(show, _eq(lhs, rhs)))
        return rhs

    def zero(self, text: str, expr, *, method: Callable = simplify, show=None):
        """Check ``method(expr) == 0`` exactly; record ``show = 0`` (default expr)."""
        if not is_zero(expr, method):
            self._fail(text, f"{sstr(expr)} does not simplify to 0")
        if show is False:
            self._passed(text, None)
            return expr
        shown = expr if show is None else show
        zero = sympy.zeros(*shown.shape) if isinstance(shown, MatrixBase) else S.Zero
        self._passed(text, _eq(shown, zero))
        return expr

    def limit(self, text: str, expr, var, point, expected, direction: str = "+"):
        """Check that SymPy's ``limit(expr, var, point, direction)`` is ``expected``."""
        value = limit(expr, var, point, direction)
        if not is_zero(value - expected):
            self._fail(text, f"limit is {sstr(value)}, expected {sstr(expected)}")
        self._passed(text, Eq(Limit(expr, var, point, direction), expected, evaluate=False))
        return value

    def positive(self, text: str, expr, *, method: Callable = simplify, show=None):
        """Check that SymPy's assumptions prove ``expr > 0``; record ``show > 0``."""
        reduced = method(expr)
        if reduced.is_positive is not True:
            self._fail(text, f"cannot prove {sstr(reduced)} > 0")
        if show is False:
            self._passed(text, None)
        else:
            shown = expr if show is None else show
            self._passed(text, sympy.StrictGreaterThan(shown, 0, evaluate=False))
        return reduced

    def true(self, text: str, relation, *, method: Callable = simplify, show=None):
        """Check that ``relation`` (a Boolean / relational) reduces to ``True``."""
        value = relation if relation in (sympy.true, sympy.false) else method(relation)
        if value is not sympy.true:
            self._fail(text, f"{sstr(relation)} reduces to {sstr(value)}, not True")
        self._passed(text, _shown(show, relation))
        return value

    def qed(self) -> "Derivation":
        """Every check passed (a failing check raised already)."""
        self.holds = self.checks > 0
        if not self.holds:
            raise ProofError(f"{self.name}: no step was checked")
        return self

    # -- rendering ---------------------------------------------------------------
    def plain_text(self) -> str:
        lines = [
            f"== {self.name}: {self.statement}",
            f"   {'general' if self.general else 'checked for particular n only'}: {self.scope}",
        ]
        for number, step in enumerate(self.steps, 1):
            mark = "[checked] " if step.checked else ""
            lines.append(f"  {number:2d}. {mark}{step.text}")
            if step.expr is not None:
                for part in step.plain.splitlines():
                    lines.append(f"        {part}")
        lines.append(f"   holds: {self.holds}  ({self.checks} checks)")
        return "\n".join(lines)

    def latex_text(self) -> str:
        lines = [
            f"\\subsection*{{{tex_escape(self.name)}}}",
            f"\\textbf{{Statement.}} {tex_escape(self.statement)}\\\\",
            f"\\textbf{{{'General' if self.general else 'Particular n only'}.}} "
            f"{tex_escape(self.scope)}",
            "\\begin{enumerate}",
        ]
        for step in self.steps:
            mark = " (checked)" if step.checked else ""
            lines.append(f"\\item {tex_escape(step.text)}{mark}")
            if step.expr is not None:
                lines.append(f"\\[ {step.latex} \\]")
        lines.append("\\end{enumerate}")
        lines.append(f"\\textbf{{Holds:}} {self.holds} ({self.checks} checks)")
        return "\n".join(lines)


def _shown(show, default):
    if show is False:
        return None
    return default if show is None else show


def _eq(lhs, rhs):
    return Eq(lhs, rhs, evaluate=False)


_TEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "^": r"\^{}",
    "%": r"\%",
    "#": r"\#",
    "&": r"\&",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def tex_escape(text: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in text)


def print_derivation(derivation: Derivation) -> None:
    """What ``python -m symattn.proofs.X`` prints: plain text, then LaTeX."""
    print(derivation.plain_text())
    print()
    print(derivation.latex_text())

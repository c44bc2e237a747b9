"""`symattn grad SPEC --loss EXPR --wrt NAME`: the exact gradient of a scalar loss of a
worked example with respect to one of its inputs.

The loss is an expression of the spec's inputs and steps in the spec expression language
(``cross_entropy(logit, "眠る")``, ``sum(Z)``, ``Y["猫", 0]``), parsed by the whitelist
parser and built like a step. The gradient is printed as certified digits and, where it
is small enough to read, as a closed form in exp, log and sqrt of rationals.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import SymattnError, SpecError, ShapeError, LimitError, InputError

DEFAULT_DIGITS = 15
MAX_DIGITS = 10_000
SHOW_FORM = 1200           # characters of one closed form shown in the text report
MAX_FORM_NODES = 2000      # the closed form written out, as symattn latex bounds it (estimated)
TIDY_NODES = 600           # gradient entries tidied and written out up to this size (SymPy's
                           # printer takes minutes for raw entries of a few thousand nodes)


def configure(p):
    p.add_argument("spec", metavar="SPEC",
                   help="a spec file, or the name of a bundled example (e.g. 003-ch8-vocab-softmax)")
    p.add_argument("--loss", required=True, metavar="EXPR",
                   help='a scalar (1×1) expression of the inputs and steps, e.g. '
                        '\'cross_entropy(logit, "眠る")\' or "sum(sum(Z).T)"')
    p.add_argument("--wrt", required=True, metavar="NAME",
                   help="the input to differentiate with respect to")
    p.add_argument("--digits", type=int, default=DEFAULT_DIGITS, metavar="N",
                   help=f"certified significant digits (default {DEFAULT_DIGITS})")
    p.add_argument("--latex", action="store_true", help="print the gradient as LaTeX")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (loss, gradient digits and closed forms, notes)")


def run(args) -> int:
    if args.latex and args.json:
        raise InputError("--latex and --json: choose one")
    if args.digits < 1 or args.digits > MAX_DIGITS:
        raise LimitError(f"--digits {args.digits}: give 1 to {MAX_DIGITS}")
    from ..spec.load import load
    from .. import deadline
    deadline.check(f"{resolve(args.spec)}:1")           # the place a MemoryError names
    spec = load(str(resolve(args.spec)))
    result = compute(spec, args.loss, args.wrt, args.digits, progress=_progress())
    if args.json:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False, indent=1) + "\n")
    elif args.latex:
        sys.stdout.write(result.latex())
    else:
        sys.stdout.write(result.text())
    return 0


def _progress():
    """A function showing the current stage on a terminal (stderr), nothing when piped."""
    if not sys.stderr.isatty():
        return None

    from .output import progress

    def show(stage: str | None):
        progress("" if stage is None else f"grad: {stage}")
    return show


def resolve(name: str) -> Path:
    """A spec path, or a bundled example by its file name or stem."""
    p = Path(name)
    if p.exists() or p.suffix == ".toml" and p.parent != Path("."):
        return p
    from .check import bundled
    for b in bundled():
        if name in (b.name, b.stem):
            return b
    return p                              # load() reports "no such file"


class Result:
    """What `symattn grad` found: the loss, the gradient and how to print them."""

    def __init__(self, spec, loss_text, wrt, loss, gradient, digits):
        self.spec = spec
        self.loss_text = loss_text
        self.wrt = wrt
        self.loss = loss
        self.gradient = gradient
        self.digits = digits
        self.notes: list[str] = []
        self.loss_digits = None
        self.grad_digits = None
        self.forms = None                 # tidy closed forms (sympy), or None
        self.forms_note = None

    # -- output ---------------------------------------------------------------------
    def _labels(self):
        g = self.gradient
        m, n = g.shape
        rows = list(g.rows) if g.rows else [str(i) for i in range(m)]
        cols = list(g.cols) if g.cols else [str(j) for j in range(n)]
        return rows, cols

    def text(self) -> str:
        rows, cols = self._labels()
        m, n = self.gradient.shape
        out = [f"{self.spec.id}: ∂L/∂{self.wrt} ({m}×{n}) where L = {self.loss_text}"]
        if self.loss_digits is not None:
            out.append(f"L = {self.loss_digits}")
        if self.grad_digits is not None:
            out.append(f"∂L/∂{self.wrt}, {self.digits} certified significant digits:")
            width = max(len(r) for r in rows)
            cells = [[c for c in row] for row in self.grad_digits]
            colw = [max(len(cols[j]), *(len(cells[i][j]) for i in range(m))) for j in range(n)]
            out.append(" " * (width + 2) + "  ".join(cols[j].rjust(colw[j]) for j in range(n)))
            for i in range(m):
                out.append(rows[i].ljust(width + 2) +
                           "  ".join(cells[i][j].rjust(colw[j]) for j in range(n)))
        if self.forms is not None:
            out.append("closed form:")
            for i in range(m):
                for j in range(n):
                    s = str(self.forms[i, j])
                    if len(s) > SHOW_FORM:
                        s = f"({len(s):,} characters; --json or --latex print it whole)"
                    out.append(f"  ∂L/∂{self.wrt}[{rows[i]}, {cols[j]}] = {s}")
        elif self.forms_note:
            out.append(f"closed form: {self.forms_note}")
        for note in self.notes + self.gradient.notes:
            out.append(f"note: {note}")
        return "\n".join(out) + "\n"

    def latex(self) -> str:
        import sympy
        out = [f"% {self.spec.id}: L = {self.loss_text}"]
        name = _latex_name(self.wrt)
        if self.forms is not None:
            body = r" \\ ".join(" & ".join(sympy.latex(v) for v in row)
                                for row in self.forms.tolist())
            out.append(r"\frac{\partial L}{\partial " + name + r"} = \begin{bmatrix} " + body +
                       r" \end{bmatrix}")
        elif self.forms_note:
            out.append(f"% closed form: {self.forms_note}")
        if self.grad_digits is not None:
            body = r" \\ ".join(" & ".join(row) for row in self.grad_digits)
            out.append(r"\frac{\partial L}{\partial " + name + r"} \approx \begin{bmatrix} " +
                       body + r" \end{bmatrix}")
        for note in self.notes + self.gradient.notes:
            out.append(f"% note: {note}")
        return "\n".join(out) + "\n"

    def to_json(self) -> dict:
        import sympy
        rows, cols = self._labels()
        g = self.gradient
        forms = None
        if self.forms is not None:
            forms = {"text": [[str(v) for v in row] for row in self.forms.tolist()],
                     "latex": [[sympy.latex(v) for v in row] for row in self.forms.tolist()]}
        return {
            "example": self.spec.id,
            "spec": self.spec.path,
            "loss": {"expr": self.loss_text, "digits": self.loss_digits},
            "wrt": {"name": self.wrt, "shape": list(g.shape), "rows": rows, "cols": cols},
            "digits": self.digits,
            "gradient": {"digits": self.grad_digits, "closed_form": forms,
                         "closed_form_note": self.forms_note},
            "notes": self.notes + g.notes,
        }


def _latex_name(name: str) -> str:
    head, _, tail = name.partition("_")
    return head + ("_{" + tail.replace("_", r"\_") + "}" if tail else "")


def compute(spec, loss_text: str, wrt: str, digits: int, progress=None) -> Result:
    """Check the request against the spec, build the loss and find its gradient;
    ``progress(stage)`` is told each stage (and None at the end)."""
    show = progress or (lambda stage: None)
    try:
        return _compute(spec, loss_text, wrt, digits, show)
    finally:
        show(None)


def _compute(spec, loss_text: str, wrt: str, digits: int, show) -> Result:
    from ..spec import expr as E
    from ..spec.build import build, as_tensor
    from ..gradients import gradient
    _check_wrt(spec, wrt)
    try:
        tree = E.parse(loss_text)
    except SymattnError as e:
        raise type(e)(f"--loss: {e.message}", hint=e.hint) from None
    refs = _loss_dependencies(spec, tree)
    _check_variable(spec, tree, refs, wrt)
    try:
        loss = as_tensor(build(tree, spec.tensors))
    except SymattnError as e:
        raise type(e)(f"--loss: {e.message}", hint=e.hint) from None
    if loss.shape != (1, 1):
        m, n = loss.shape
        hint = ('pick one entry (x["row", "column"]) or add them up: sum(x) for a row, '
                "sum(sum(x).T) for a matrix")
        raise ShapeError(f"--loss is {m}×{n}; a gradient needs a scalar (1×1) loss", hint=hint)
    show("building the gradient")
    g = gradient(loss, spec.inputs[wrt], missing="zero")
    res = Result(spec, loss_text, wrt, loss, g, digits)
    if not g._found:
        res.notes.append(f"the loss does not depend on {wrt}: its gradient is 0")
    symbols = _free_symbols(loss)
    if symbols:
        res.notes.append(f"the loss holds the symbols {', '.join(symbols)}: no digits, "
                         "the closed form only")
    else:
        from ..evaluation import evaluate
        show("certified digits")
        res.loss_digits = evaluate(loss, digits=digits)[0][0]
        res.grad_digits = g.evaluate(digits)
    show("closed form")
    try:
        res.forms = _closed_form(g, loss, bounded=not symbols)
    except LimitError as e:
        res.forms_note = e.message + "; the digits above are certified"
        if symbols:
            raise
    return res


def _closed_form(g, loss, bounded: bool):
    """The gradient's closed form, tidied; refused (LimitError) when the loss's closed form
    is estimated beyond MAX_FORM_NODES (the estimate ``symattn latex`` uses) or an entry
    of the gradient has more than TIDY_NODES nodes."""
    import sympy
    from ..evaluation.size import closed_form_size
    from ..gradients import tidy_expr, tree_size
    if bounded:
        n = closed_form_size(loss)
        if n > MAX_FORM_NODES:
            raise LimitError(f"the loss's closed form would have about {n:,} nodes per entry "
                             f"(more than {MAX_FORM_NODES:,}, what symattn latex writes out)")
    raw = g.exact(tidy=False)
    n = max(tree_size(v) for v in raw)
    if bounded and n > TIDY_NODES:
        raise LimitError(f"the gradient's closed form would have about {n:,} nodes per entry "
                         f"(more than {TIDY_NODES:,} are not written out)")
    return sympy.ImmutableMatrix(raw.shape[0], raw.shape[1],
                                 [tidy_expr(v) if tree_size(v) <= TIDY_NODES else v for v in raw])


def _check_wrt(spec, wrt: str) -> None:
    inputs = ", ".join(spec.inputs) or "none"
    if wrt in spec.inputs:
        t = spec.inputs[wrt]
        if t.op != "const":
            raise SpecError(f"--wrt {wrt}: not a plain input", where=spec.path)
        return
    if spec.step(wrt) is not None:
        raise SpecError(f"--wrt {wrt}: '{wrt}' is a step of {spec.id}, not an input; "
                        "a gradient is taken with respect to an input", where=spec.path,
                        hint=f"inputs: {inputs}")
    raise SpecError(f"--wrt {wrt}: {spec.id} has no input named '{wrt}'", where=spec.path,
                    hint=f"inputs: {inputs}")


def _loss_dependencies(spec, tree) -> set[str]:
    """Every input and step the loss reaches, through the steps it names."""
    from ..spec import expr as E
    seen: set[str] = set()
    todo = list(E.names(tree))
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        step = spec.step(name)
        if step is not None:
            todo.extend(E.names(step.tree))
    return seen


def _check_variable(spec, tree, refs: set[str], wrt: str) -> None:
    """Rebuild the steps the loss needs with ``wrt`` as a matrix of symbols: an operation
    that needs ``wrt`` as a plain number (a mask size, an exponent, a token id ...) is not
    differentiable in it, and says so here rather than giving a silent zero."""
    from ..spec.build import build
    from ..spec.load import build_step
    from .. import symbols
    if wrt not in refs:
        return
    t = spec.inputs[wrt]
    m, n = t.shape
    var = symbols(wrt, m, n) if (m, n) != (1, 1) else symbols(wrt, 1)
    var = var.named(wrt, t.rows, t.cols)
    env = dict(spec.inputs)
    env[wrt] = var
    for step in spec.steps:
        if step.name not in refs:
            continue
        try:
            env[step.name] = build_step(spec, step, env)
        except SymattnError as e:
            raise SpecError(f"the loss depends on {wrt} through step '{step.name}', which "
                            f"needs {wrt} as plain numbers, not as a variable "
                            f"({e.message})", where=e.where) from None
    try:
        build(tree, env)
    except SymattnError as e:
        raise SpecError(f"--loss uses {wrt} where plain numbers are needed, not a variable "
                        f"({e.message})") from None


def _free_symbols(t) -> list[str]:
    """The SymPy symbols among the constants of ``t``'s graph (symbol inputs of a spec)."""
    from ..tensor import walk
    return sorted({str(s) for node in walk(t) if node.op == "const"
                   for row in node.params["entries"] for v in row
                   for s in getattr(v, "free_symbols", ())})

"""Arithmetic the text writes out: a function of one number (``-\\log(0.659) = 0.417``,
``e^{2.0} = 7.389``, ``\\sqrt{64} = 8``, ``ln(0.25) ≈ -1.386``) and sums of products of
numbers (``0×1 + 1×0 = 0``, ``0.5 \\times 2 + 1 = 2``: a dot product worked by hand).

Each is a step of one entry, the function (a declared primitive: its maths is the
primitive's) of the number: of its entry in the nearest block before it that prints it
(``-log(p[0, 2])``: the exact value that print rounds, so a result worked from the rounded
print is carried, as the keys count it), or of the number as written when no block prints
it. The step's line is the result's, and the result as printed its claim: the check judges
that number, right or wrong, as for a hand-written spec (beside another result on its line
too). Only a function that starts its expression and a result that
ends it are read (``e^{2.0} + e^{1.0} = 10.107`` is no ``e^{1.0}``); a logarithm without a
base whose result fits base 2 or 10 and not e is left alone, as the text does not say which
it means. A sum of products is read only where each of its decimals is a print of an
earlier block's entry (its exact value then): a decimal no block prints is a rounded
number of unknown origin (``2.034 + 1 + 2.034 ≈ 5.068`` of exps worked from rounded
scores), and the sum as written would call right a number the example gets wrong.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..article.tokens import fold
from ..errors import SymattnError
from .blocks import Block, spec_name
from .chains import Chain

_NUM = r"-?\d+(?:\.\d+)?"


def _arg(k: str) -> str:
    """``(x)`` or ``{x}``, the number in group ``<k>p`` or ``<k>b``."""
    return rf"\(\s*(?P<{k}p>{_NUM})\s*\)|\{{\s*(?P<{k}b>{_NUM})\s*\}}"


_WORD = r"(?:\\|(?<![A-Za-z\\]))"           # \log, or log as a word of its own
_FUNCTION = re.compile(
    rf"(?P<neg>-\s*)?(?:"
    rf"{_WORD}(?P<log>log|ln)(?:_\{{?(?P<base>2|10|e)\}}?)?(?:{_arg('l')}|\s+(?P<ls>{_NUM}))"
    rf"|{_WORD}exp(?:{_arg('x')})"
    rf"|(?<![A-Za-z\\])e\^(?:{_arg('e')}|(?P<es>\d+(?:\.\d+)?))"
    rf"|(?:{_WORD}sqrt|√)(?:{_arg('s')}|(?<=√)\s*(?P<ss>\d+(?:\.\d+)?))"
    rf"|(?:\((?P<qp>{_NUM})\)|(?<![\w.])(?P<qs>\d+(?:\.\d+)?))\s*(?:²|\^\{{?2\}}?(?![\d.])))"
    rf"\s*(?:=|≈|\\approx|\\simeq|≃)\s*(?P<result>{_NUM}(?:[eE][-+]?\d+)?)")
_OPEN = re.compile(r"(?:[-+*/×·^_{}()\[\]\d]|\\cdot|\\times|\\frac)\s*$")   # an operand before it
_BINARY = re.compile(r"[\w)\]}]\s*$")             # ``x - log(…)``: a minus between two operands
_LABEL = re.compile(r"(?<![\w\\])(?:\\(?:mathcal|mathrm|text)\{(\w+)\}|\\?([A-Za-z]\w*))(_\{?\w+\}?)?\s*=\s*$")
_OF = re.compile(r"(?:\\?(?:log|ln|exp|sqrt)|[-+*/^_(√])\s*$")
_GOES_ON = re.compile(r"\s*(?:[-+*/×·^%\d]|\\cdot|\\times)")         # the result is not the end
_TERM = r"(?:\(\s*-?\d+(?:\.\d+)?\s*\)|\d+(?:\.\d+)?)"     # 1.414, (-1.414)
_OP = r"(?:[-+*×·]|\\times|\\cdot)"
_SUM = re.compile(rf"(?P<expr>-?{_TERM}(?:\s*{_OP}\s*{_TERM})+)\s*(?:=|≈|\\approx|\\simeq|≃)\s*"
                  rf"(?P<result>{_NUM}(?:[eE][-+]?\d+)?)")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_STARTS = re.compile(r"(?:[-+*/×·^_{}.,\d()A-Za-z\\]|\\cdot|\\times)\s*$")  # an operand or a name before it
_BULLET = re.compile(r"^\s*[-*+]\s+(?=\S)")
NO_END = 10 ** 9                           # a chain of written steps alone: its block's part is not cut
_TEX = ((r"\left(", "("), (r"\right)", ")"), (r"\mathrm{e}", "e"), (r"\operatorname{log}", r"\log"),
        (r"\,", " "), (r"\!", ""))


@dataclass(frozen=True)
class Written:
    """``f(argument) = result`` on ``line``: the function's ``key`` (``log``, ``log2``,
    ``log10``, ``exp``, ``sqrt``, ``square``; ``sum`` for a sum of products, its argument
    the sum as written), negated or not, the argument and the result as printed; ``form``:
    the spec language's expression over ``{0}``, ``{1}``… for its ``numbers``."""
    key: str
    negated: bool
    argument: str
    result: str
    line: int
    printed: str = ""        # the result as printed (signs and digits folded to ASCII)
    label: str = ""          # the name the text gives it (``L = -\log(0.659) = 0.417``)
    form: str = ""
    numbers: tuple = ()


def written(lines) -> list[Written]:
    """The one-number arithmetic written on the lines of one article part."""
    out = []
    for ln in lines:
        text = fold(ln.text)
        for a, b in _TEX:
            text = text.replace(a, b)
        if getattr(ln, "kind", "text") == "text":    # ``- e^{0.55} = 1.733``: a list's item
            text = _BULLET.sub(lambda b: " " * len(b.group()), text)
        for m in _FUNCTION.finditer(text):
            before = text[:m.start()]
            if _OPEN.search(before) or _GOES_ON.match(text, m.end()) or (
                    m.group("neg") and m.group("neg") != "-" and _BINARY.search(before)):
                continue
            group = next(k for k in _ARGUMENTS if m.group(k))
            key = _key(m) if group[0] == "l" else _KINDS[group[0]]
            form = _TEMPLATE[key].format("{0}")
            if m.group("neg"):
                form = f"-({form})" if " / " in form else f"-{form}"
            out.append(Written(key, bool(m.group("neg")), m.group(group), m.group("result"),
                               ln.number, m.group("result"), _label(before), form, (m.group(group),)))
        out += _sums(text, ln.number)
    return [w for w in out if _plain(w)]


def _sums(text: str, line: int) -> list[Written]:
    """The sums of products written on one line (folded): ``0×1 + 1×0 = 0``."""
    out = []
    for m in _SUM.finditer(text):
        before = text[:m.start()]
        if _STARTS.search(before) or _GOES_ON.match(text, m.end()) or "." not in m.group():
            continue                         # whole numbers: a step of 1 or 2 matches every 1 and 2
        expr = m.group("expr")
        form, numbers = _form(expr)
        out.append(Written("sum", False, expr.strip(), m.group("result"), line, m.group("result"),
                           _label(before), form, numbers))
    return out


def _form(expr: str) -> tuple[str, tuple[str, ...]]:
    """A written sum as a spec template and its numbers: ``0.5×1.2 + 0.3`` -> ``{0} * {1} + {2}``."""
    form, numbers = [], ()
    for piece in re.split(rf"({_TERM})", expr.replace("\\times", "*").replace("\\cdot", "*")):
        if re.fullmatch(_TERM, piece):
            form.append(f"{{{len(numbers)}}}")
            numbers += (_NUMBER.search(piece).group(),)
        elif piece.strip():
            form.append(" ".join(re.sub(r"([-+*])", r" \1 ", re.sub(r"[×·]", "*", piece)).split()))
    return " ".join(form), numbers


def _label(before: str) -> str:
    """The spec name of what the text calls the result (``L =``, ``\\mathcal{L} =``), or ''."""
    m = _LABEL.search(before)
    if m and _OF.search(before[:m.start()]):
        return ""                            # -\\log p_{cat} = -\\log(0.659): its operand's name
    return spec_name((m.group(1) or m.group(2)) + (m.group(3) or "")) if m else ""


_ARGUMENTS = ("lp", "lb", "ls", "xp", "xb", "ep", "eb", "es", "sp", "sb", "ss", "qp", "qs")
_KINDS = {"x": "exp", "e": "exp", "s": "sqrt", "q": "square"}     # by the argument's group


def _key(m: re.Match) -> str:
    """``log`` (natural: ``\\ln``, ``\\log`` with no base or base e), ``log2`` or ``log10``."""
    base = m.group("base")
    return "log" if base in (None, "e") or m.group("log") == "ln" else "log" + base


def _value(key: str, x: str) -> float | None:
    """The float value of the function ``key`` at the number ``x`` (the spec language's
    own), or None where it is undefined."""
    from ..evaluation import float_value
    from ..spec import expr as E
    from ..spec.build import build
    try:
        with np.errstate(all="ignore"):
            v = build(E.parse(_TEMPLATE[key].format(f"({x})")), {})
            v = float(v) if isinstance(v, Fraction) else float(np.asarray(float_value(v), dtype=float).flat[0])
    except (SymattnError, ValueError, TypeError, ZeroDivisionError, ArithmeticError):
        return None
    return v if math.isfinite(v) else None


def _plain(w: Written) -> bool:
    """Defined there, and not a logarithm whose base the text leaves open while its result
    fits another."""
    if w.key == "sum":
        return True
    if w.key != "log":
        return _value(w.key, w.argument) is not None
    r = float(w.result)
    half = 0.5 * 10.0 ** -len(w.result.partition(".")[2]) if "e" not in w.result.lower() else 0.0

    def fits(key):
        v = _value(key, w.argument)
        return v is not None and abs((-v if w.negated else v) - r) <= half * (1 + 1e-9)
    return _value("log", w.argument) is not None and (fits("log") or not (fits("log2") or fits("log10")))


_TEMPLATE = {"log": "log({})", "log2": "log({}) / log(2)", "log10": "log({}) / log(10)",
             "exp": "exp({})", "sqrt": "sqrt({})",
             "square": "{} ** 2"}


def written_steps(found: list[Block], parts: list, shown: dict, in_example: set, used: set,
                  derived_exprs=()) -> Chain:
    """Add the arithmetic written in the article (``parts``: (path, lines)) to ``shown``
    (block index -> :class:`.chains.Chain`) as steps of the nearest block before it that
    prints one of its decimals (those blocks operands), or, with its numbers as written, of
    the nearest block before it in an example (``in_example``: indices); ``used``: the names
    taken. Arithmetic on an entry of a block that a step (``derived_exprs``, the chains')
    computes whole (``exp(z)``) is that step's already. Returns the chain of the arithmetic
    on numbers as written before any block of an example (``e^{2.0} = 7.389`` in an article
    that prints no block): the article's example when it has no other."""
    from .stated import fresh
    lone = Chain((), [], 0, (), NO_END)
    covered = {expr for c in shown.values() for _, expr, _ in c.steps} | set(derived_exprs)
    worked = {(line, key) for c in shown.values() for _, expr, line in c.steps
              for key, form in _TEMPLATE.items()
              if form.endswith(")") and expr.lstrip("-").startswith(form.split("{")[0])}   # a call
    chained = {line for c in shown.values() for _, _, line in c.steps}
    results: dict = {}                       # a result as printed -> its step
    for path, lines in parts:
        here = [b for b in found if b.path == path and b.parent is None and b.again < 0]
        for w in written(lines):
            before = [b for b in here if b.line + b.shape[0] <= w.line + 1 and b.line <= w.line]
            if (w.line, w.key) in worked or (w.key == "sum" and w.line in chained):
                continue                     # √0.1325 = 0.364 where a chain's sqrt(variance) is,
                                             # 2.034 + 1 + 2.034 ≈ 5.068 where its sum of exps is
            if w.key != "sum" and any(_expr(w, (b.name,)) in covered for b in before
                                      if _entry(b, w.argument) is not None):
                continue                     # e^{2.0} = 7.389 of exp(z), a step already
            operands, owners = _operands(w, before, results)
            if operands is None:
                continue
            owner = (max(owners, key=lambda b: b.index) if owners else
                     next((b for b in reversed(before) if b.index in in_example), None))
            in_example.update(b.index for b in owners)
            base = owner.name if owners and w.key != "sum" else "written"
            name = w.label if w.label and w.label not in used else f"{base}_{'neg_' if w.negated else ''}{w.key}"
            step = (fresh(name, used), _expr(w, operands), w.line)
            chain = lone if owner is None else shown.setdefault(
                owner.index, Chain(tuple(b.index for b in owners), [], 0, (), NO_END))
            chain.operands += tuple(b.index for b in owners if b.index not in chain.operands)
            chain.steps.append(step)
            chain.claims.append((step[0], w.printed, w.line))    # which number on the line it is
            if owner is not None:                # a lone step is in no example the others are in
                results.setdefault(w.result, step[0])  # exp(0.357) of the loss -log(0.70) = 0.357
            chain.end = max(chain.end, w.line)
    return lone


def _operands(w: Written, before: list[Block], results: dict) -> tuple[tuple, list] | tuple[None, None]:
    """Each number's operand (its entry in the nearest block before that prints it, for a
    decimal: √2 of d_k = 2 is no entry; else an earlier written result it is, else the
    number), and the blocks taken, the nearest first; (None, None) for a sum with a decimal
    that no block prints."""
    operands, owners, loose = [], [], False
    for x in w.numbers:
        owner = next((b for b in reversed(before) if _entry(b, x) is not None), None) if "." in x else None
        if owner is not None:
            i, j = _entry(owner, x)
            operands.append(f"{owner.name}[{i}, {j}]")
            owners += [owner] if owner not in owners else []
        else:                                 # a whole number: as written (2 is no result)
            operands.append(results.get(x, x) if "." in x else x)
            loose |= "." in x and x not in results
    if w.key == "sum" and loose:
        return None, None
    return tuple(operands), owners


def _expr(w: Written, operands: tuple) -> str:
    return w.form.format(*(f"({o})" if o.startswith("-") else o for o in operands))


def _entry(b: Block, argument: str) -> tuple[int, int] | None:
    """The (row, column) of ``b``'s first entry printed as the number ``argument``."""
    x = Fraction(argument)
    for i, row in enumerate(b.printed.values):
        for j, v in enumerate(row):
            if v == x:
                return i, j
    return None

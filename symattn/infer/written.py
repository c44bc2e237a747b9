"""Arithmetic the text writes out: a function of one number (``-\\log(0.659) = 0.417``,
``e^{2.0} = 7.389``, ``\\sqrt{64} = 8``, ``ln(0.25) ≈ -1.386``) and expressions of several
numbers (``0×1 + 1×0.5 = 0.5``: a dot product worked by hand; ``1 / 1.732 = 0.577``,
``\\frac{12.182}{16.721} = 0.7285``: :mod:`.arithmetic` reads them), also entry by entry in
a vector equation (``[exp(-0.00707), exp(0.0)] ≈ [0.9929, 1.0]``).

Each is a step of one entry, the function (a declared primitive: its maths is the
primitive's) of the number: of its entry in the nearest block before it that prints it
(``-log(p[0, 2])``: the exact value that print rounds, so a result worked from the rounded
print is carried, as the keys count it), else of an earlier written result it prints
(``1.732`` of ``sqrt(3) ≈ 1.732``), or of the number as written. The step's line is the
result's, and the result as printed its claim: the check judges that number, right or
wrong, as for a hand-written spec (beside another result on its line too). Only a function
that starts its expression and a result that ends it are read (``e^{2.0} + e^{1.0} =
10.107`` is no ``e^{1.0}``); a logarithm without a base whose result fits base 2 or 10 and
not e is left alone, as the text does not say which it means. An expression is read only
where each of its decimals is a print of an earlier block's entry or written result (its
exact value then): a decimal of unknown origin is a rounded number (``2.034 + 1 + 2.034 ≈
5.068`` of exps worked from rounded scores), and the arithmetic as written would call right
a number the example gets wrong. Arithmetic on no block's numbers is an example of its own.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from ..article.tokens import fold
from ..errors import SymattnError
from .blocks import Block, spec_name
from .arithmetic import expression
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
_ENDED = re.compile(rf"(?:=|≈|\\approx)\s*{_NUM}(?:\s{{2,}}|\s*[,;]\s*)$")   # ``e^2.0 = 7.39    e^1.0 = …``:
                                                 # the equation before it ended: no operand
_BINARY = re.compile(r"[\w)\]}]\s*$")             # ``x - log(…)``: a minus between two operands
_LABEL = re.compile(r"(?<![\w\\])(?:\\(?:mathcal|mathrm|text)\{(\w+)\}|\\?([A-Za-z]\w*))(_\{?\w+\}?)?\s*=\s*$")
_OF = re.compile(r"(?:\\?(?:log|ln|exp|sqrt)|[-+*/^_(√])\s*$")
_GOES_ON = re.compile(r"\s*(?:[-+*/×·^%\d]|\\cdot|\\times)")         # the result is not the end
_RESULT = re.compile(rf"(?:=|≈|\\approx|\\simeq|≃)\s*(?P<result>{_NUM}(?:[eE][-+]?\d+)?)(?![\d.])")
_INSIDE = set("_^.'])}\\")            # an expression cut out of a name, an index or a call
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_BULLET = re.compile(r"^\s*[-*+]\s+(?=\S)")
ARITHMETIC = "arithmetic"                 # the key of a written expression of several numbers
NO_END = 10 ** 9                           # a chain of written steps alone: its block's part is not cut
_TEX = ((r"\left(", "("), (r"\right)", ")"), (r"\mathrm{e}", "e"), (r"\operatorname{log}", r"\log"),
        (r"\,", " "), (r"\!", ""))


@dataclass(frozen=True)
class Written:
    """``f(argument) = result`` on ``line``: the function's ``key`` (``log``, ``log2``,
    ``log10``, ``exp``, ``sqrt``, ``square``; ``arithmetic`` for an expression of several
    numbers, its argument the expression as written), negated or not, the argument and the result as printed; ``form``:
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
    earlier: tuple = ()      # (form, numbers) of the expressions it equals before it, first first
                             # (``(0.3 × 0.4) + (0.6 × 0.7) = 0.12 + 0.42 = 0.54``)


def written(lines) -> list[Written]:
    """The arithmetic written on the lines of one article part (a line that opens with ``=``
    goes on with the line above)."""
    out, chain = [], ""
    for ln in lines:
        text = fold(ln.text)
        for a, b in _TEX:
            text = text.replace(a, b)
        if getattr(ln, "kind", "text") == "text":    # ``- e^{0.55} = 1.733``: a list's item
            text = _BULLET.sub(lambda b: " " * len(b.group()), text)
        out += _functions(text, ln.number)
        chain = f"{chain} {text}" if chain and re.match(r"\s*(?:=|≈)", text) else text
        out += _sums(chain, ln.number, len(chain) - len(text))
        for entry in _elementwise(text):         # [exp(-0.00707), exp(0.0)] ≈ [0.9929, 1.0]
            out += _functions(entry, ln.number) + _sums(entry, ln.number)
    return [w for w in out if _plain(w)]


def _functions(text: str, line: int) -> list[Written]:
    """The functions of one number written on a line (folded) with their results."""
    out = []
    for m in _FUNCTION.finditer(text):
        before = text[:m.start()]
        if (_OPEN.search(before) and not _ENDED.search(before)) or _GOES_ON.match(text, m.end()) or (
                m.group("neg") and m.group("neg") != "-" and _BINARY.search(before)):
            continue
        group = next(k for k in _ARGUMENTS if m.group(k))
        key = _key(m) if group[0] == "l" else _KINDS[group[0]]
        form = _TEMPLATE[key].format("{0}")
        if m.group("neg"):
            form = f"-({form})" if " / " in form else f"-{form}"
        out.append(Written(key, bool(m.group("neg")), m.group(group), m.group("result"),
                           line, m.group("result"), _label(before), form, (m.group(group),)))
    return out


_VECTORS = re.compile(rf"\[([^\[\]]+)\]\s*(?:=|≈|\\approx)\s*\[\s*({_NUM}(?:\s*,\s*{_NUM})+)\s*\](?![\d.])")


def _elementwise(text: str) -> list[str]:
    """``e₁ = r₁`` for each entry of a vector equation ``[e₁, e₂] ≈ [r₁, r₂]`` (the entries
    worked side by side: ``[0.9929/1.9929, 1.0/1.9929] ≈ [0.498, 0.502]``), of as many
    entries on each side."""
    out = []
    for m in _VECTORS.finditer(text):
        left, right = _entries(m.group(1)), [r.strip() for r in m.group(2).split(",")]
        if len(left) == len(right):
            out += [f"{e} = {r}" for e, r in zip(left, right)]
    return out


def _entries(text: str) -> list[str]:
    """The entries of a list's text, split at its commas outside parentheses."""
    out, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += (ch in "({") - (ch in ")}")
        if ch == "," and depth == 0:
            out.append(text[start:k].strip())
            start = k + 1
    return out + [text[start:].strip()]


def _sums(text: str, line: int, since: int = 0) -> list[Written]:
    """The arithmetic of two numbers or more written on one line (folded) and its result:
    ``0×1 + 1×0.5 = 0.5``, ``1 / 1.732 = 0.577``, ``\\frac{12.182}{16.721} = 0.7285``
    (:func:`.arithmetic.expression`); not whole numbers alone, nor an expression that a
    name, an index or a bracket opens (``x_1 + 0.5``, ``[0.99/1.99``: a vector's entry)."""
    out = []
    for m in _RESULT.finditer(text, since):
        if _GOES_ON.match(text, m.end()):
            continue
        found = expression(text[:m.start()])
        if found is None:
            continue
        form, numbers, start = found
        before, prev = text[:start].rstrip(), text[start - 1:start]
        if len(numbers) < 2 or prev.isalnum() or prev in _INSIDE or before[-1:] in ("[", ",") or \
                not any("." in x for x in numbers + (m.group("result"),)):
            continue                         # whole numbers: a step of 1 or 2 matches every 1 and 2
        earlier, at = _earlier(text, start)
        out.append(Written(ARITHMETIC, False, text[start:m.start()].strip(), m.group("result"), line,
                           m.group("result"), _label(text[:at].rstrip() + " "), form, numbers, earlier))
    return out


def _earlier(text: str, start: int) -> tuple[tuple, int]:
    """The expressions an expression at ``start`` is written equal to before it (``A = B =
    …``), the first first, and where the first starts."""
    out = []
    while True:
        left = text[:start].rstrip()
        if not left.endswith(("=", "≈")):
            return tuple(reversed(out)), start
        found = expression(left[:-1])
        if found is None:
            return tuple(reversed(out)), start
        form, numbers, start = found
        out.append((form, numbers))


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
    if w.key == ARITHMETIC:
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
    worked = {(line, key): (c, name, expr) for c in list(shown.values()) for name, expr, line in c.steps
              for key, form in _TEMPLATE.items()
              if form.endswith(")") and expr.lstrip("-").startswith(form.split("{")[0])}   # a call
    chained = {line for c in shown.values() for _, _, line in c.steps}
    by_expr = {expr: (c, name, expr) for c in list(shown.values()) for name, expr, _ in c.steps}
    results: dict = {}                       # a result as printed -> (its step, its chain's block
                                             # or None: the lone chain)
    for path, lines in parts:
        here = [b for b in found if b.path == path and b.parent is None and b.again < 0]
        listed = _listed(lines)
        for w in written(lines):
            before = [b for b in here if b.line + b.shape[0] <= w.line + 1 and b.line <= w.line]
            if (w.line, w.key) in worked or (w.key == ARITHMETIC and w.line in chained):
                _entry_claim(w, worked.get((w.line, w.key)), before)
                continue                     # √0.1325 = 0.364 where a chain's sqrt(variance) is,
                                             # 2.034 + 1 + 2.034 ≈ 5.068 where its sum of exps is
            whole = [b for b in before if w.key != ARITHMETIC and _entry(b, w.argument) is not None
                     and _expr(w, (b.name,)) in covered]
            if whole:                        # e^{2.0} = 7.389 of exp(z), a step already
                _entry_claim(w, by_expr.get(_expr(w, (whole[-1].name,))), before)
                continue
            first = w
            for as_written in _forms(w):     # a result of the chain the step joins, no other's
                owners = _owners(as_written, before)
                owner = max(owners, key=lambda b: b.index) if owners else \
                    next((b for b in reversed(before) if b.index in in_example), None)
                key = None if owner is None else owner.index
                table = {p: name for p, (name, k) in results.items() if k == key}
                operands, owners = _operands(as_written, before, table, listed)
                if operands is not None:
                    w = as_written
                    break
            else:
                continue
            in_example.update(b.index for b in owners)
            base = owner.name if owners and w.key != ARITHMETIC else "written"
            name = w.label if w.label and w.label not in used else f"{base}_{'neg_' if w.negated else ''}{w.key}"
            step = (fresh(name, used), _expr(w, operands), w.line)
            chain = lone if owner is None else shown.setdefault(
                owner.index, Chain(tuple(b.index for b in owners), [], 0, (), NO_END))
            chain.operands += tuple(b.index for b in owners if b.index not in chain.operands)
            chain.steps.append(step)
            chain.claims.append((step[0], w.printed, w.line))    # which number on the line it is
            for term in _terms(first, w, operands, used):   # a*b + c*d = 0.585 + 1.035 = …: 0.585
                chain.steps.append(term[:3])
                chain.claims.append((term[0], term[3], w.line))
            results.setdefault(w.result, (step[0], key))   # exp(0.357) of the loss -log(0.70) = 0.357
            chain.end = max(chain.end, w.line)
    return lone


_PRODUCT = re.compile(r"(?:\(\s*)?\{\d+\}(?:\s*\))?\s*\*\s*(?:\(\s*)?\{\d+\}(?:\s*\))?")
_SUM = re.compile(r"\{0\}(?: [+-] \{\d+\})+")


def _terms(written_as: Written, w: Written, operands: tuple, used: set) -> list[tuple]:
    """(name, expr, line, printed) of each product of a sum of products ``w`` is (the form
    the step takes of ``written_as``'s chain of expressions) whose terms the text writes as
    the next expression of the chain (``0.9*0.65 + 1.15*0.9 = 0.585 + 1.035 = 1.620``: 0.585
    is the first product's; a term written after a minus, its magnitude: ``0.101 - 0.154``
    of ``a*b + c*(-d)``). None where the two do not pair up."""
    from .stated import fresh
    parts = [t.strip() for t in w.form.split(" + ")]
    forms = _forms(written_as)
    k = next((i for i, f in enumerate(forms) if f.form == w.form and f.numbers == w.numbers), None)
    if w.key != ARITHMETIC or k is None or k + 1 >= len(forms) or len(parts) < 2 or \
            not all(_PRODUCT.fullmatch(t) for t in parts):
        return []
    nxt = forms[k + 1]
    signs = ["+"] + re.findall(r" ([+-]) ", nxt.form)
    if not _SUM.fullmatch(nxt.form) or len(nxt.numbers) != len(parts):
        return []
    shown = [f"({o})" if o.startswith("-") else o for o in operands]
    out = []
    for t, sign, printed in zip(parts, signs, nxt.numbers):
        expr = t.format(*shown)
        out.append((fresh(f"{w.label or 'written'}_term", used),
                    f"-({expr})" if sign == "-" else expr, w.line, printed))
    return out


def _entry_claim(w: Written, call, before: list[Block]) -> None:
    """The result of ``e^{0.45} = 1.586`` where a chain's step computes ``exp(z)`` entry by
    entry and 0.45 prints one entry of ``z`` (once): a claim on that entry of the step, so a
    wrong result is judged there, not left unverified."""
    if call is None or w.negated:
        return
    chain, name, expr = call
    blocks = [b for b in before if re.search(rf"\b{re.escape(b.name)}\b", expr)]
    places = [(b, i, j) for b in blocks for i, j in _places(b, w.argument)]
    if len(places) == 1 and expr == _TEMPLATE[w.key].format(places[0][0].name):
        _, i, j = places[0]
        chain.claims.append((name, w.printed, w.line, (i, j)))


_VECTOR = re.compile(r"\[([-+\d.,\s]*)\]")


def _listed(lines) -> dict:
    """The decimals the lines print inside a bracketed vector (``[0.3, 0.6]``), each with
    the first line it is printed on."""
    out: dict = {}
    for ln in lines:
        for m in _VECTOR.finditer(fold(ln.text)):
            for x in _NUMBER.findall(m.group(1)):
                out.setdefault(x, ln.number)
    return out


def _owner(x: str, before: list[Block]) -> Block | None:
    """The nearest block before that prints the decimal ``x`` (a whole number: none, √2 of
    d_k = 2 is no entry)."""
    return next((b for b in reversed(before) if _entry(b, x) is not None), None) if "." in x else None


def _owners(w: Written, before: list[Block]) -> list[Block]:
    """The blocks whose entries the decimals of ``w`` print (the nearest for each)."""
    out = []
    for b in (_owner(x, before) for x in w.numbers):
        out += [b] if b is not None and b not in out else []
    return out


def _forms(w: Written) -> list[Written]:
    """``w`` as each expression it is written equal to, the first first, then itself."""
    return [replace(w, form=f, numbers=n) for f, n in w.earlier] + [w]


def _operands(w: Written, before: list[Block], results: dict, listed: dict | None = None
              ) -> tuple[tuple, list] | tuple[None, None]:
    """Each number's operand (its entry in the nearest block before that prints it, for a
    decimal: √2 of d_k = 2 is no entry; else an earlier written result it is, else the
    number), and the blocks taken, the nearest first; (None, None) for an expression with a
    decimal that no block, result or earlier vector (``listed``: number -> its first line;
    ``→ [0.3, 0.6]``, a given of the arithmetic) prints."""
    listed = listed or {}
    dot = _dot(w, before) if w.key == ARITHMETIC else None
    if dot is not None:
        return dot
    operands, owners, loose = [], [], False
    for x in w.numbers:
        owner = _owner(x, before)
        if owner is not None:
            i, j = _entry(owner, x)
            operands.append(f"{owner.name}[{i}, {j}]")
            owners += [owner] if owner not in owners else []
        else:                                 # a whole number: as written (2 is no result)
            operands.append(results.get(x, x) if "." in x else x)
            loose |= "." in x and x not in results and listed.get(x, w.line) >= w.line
    if w.key == ARITHMETIC and loose:
        return None, None
    return tuple(operands), owners


_PRODUCTS = re.compile(r"\{0\} \* \{1\}(?: \+ \{\d+\} \* \{\d+\})+")


def _dot(w: Written, before: list[Block]) -> tuple[tuple, list] | None:
    """The operands of a dot product worked by hand (``0.6×0.5 + 0.4×0.2 + 1.0×0.7``) whose
    left factors are a row of an earlier block and right factors a column (or a row: a key)
    of one, the nearest first: each factor that block's entry there, not the first entry
    anywhere that prints the same number. None when no such pair of blocks prints them."""
    if not _PRODUCTS.fullmatch(w.form):
        return None
    try:
        left = tuple(Fraction(x) for x in w.numbers[0::2])
        right = tuple(Fraction(x) for x in w.numbers[1::2])
    except ValueError:
        return None
    n = len(left)
    rows = [(b, f"{b.name}[{i}, {{}}]") for b in reversed(before) if b.shape[1] == n
            for i, r in enumerate(b.printed.values) if tuple(r) == left]
    cols = [(b, f"{b.name}[{{}}, {j}]") for b in reversed(before) if b.shape[0] == n
            for j in range(b.shape[1]) if tuple(r[j] for r in b.printed.values) == right]
    cols += [(b, f"{b.name}[{i}, {{}}]") for b in reversed(before) if b.shape[1] == n
             for i, r in enumerate(b.printed.values) if tuple(r) == right]
    if not rows or not cols:
        return None
    (a, at_a), (b, at_b) = rows[0], cols[0]
    operands = tuple(x for k in range(n) for x in (at_a.format(k), at_b.format(k)))
    return operands, [a] + ([b] if b is not a else [])


def _expr(w: Written, operands: tuple) -> str:
    return w.form.format(*(f"({o})" if o.startswith("-") else o for o in operands))


def _entry(b: Block, argument: str) -> tuple[int, int] | None:
    """The (row, column) of ``b``'s first entry printed as the number ``argument``."""
    return next(_places(b, argument), None)


def _places(b: Block, argument: str):
    """The (row, column) of each of ``b``'s entries printed as the number ``argument``."""
    x = Fraction(argument)
    return ((i, j) for i, row in enumerate(b.printed.values) for j, v in enumerate(row) if v == x)
